"""Safe web fetch: any URL to clean markdown, bounded and paged, usable without any Tool.

page = await weblens.fetch("https://example.com/article")
page.content, page.truncated, page.next_start_index
"""

from __future__ import annotations

import sys
import types
from typing import Any

from weblens.fetch.document import Document, Page
from weblens.fetch.fetcher import Fetcher, fetch, fetch_document
from weblens.fetch.fetcher import take_screenshot as screenshot

__all__ = ["Document", "Fetcher", "Page", "fetch", "fetch_document", "screenshot"]


class _CallableModule(types.ModuleType):
    """Lets `weblens.fetch(...)` call `fetch` while `weblens.fetch.Document` stays importable."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return fetch(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
