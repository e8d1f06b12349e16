"""Typed data from pages: markup first, the model for the rest, every value checked against the page."""

import sys
import types
from typing import Any

from weblens.extract.api import extract
from weblens.extract.extractor import (
    MAX_URLS,
    Extraction,
    FieldResult,
    SlotError,
    extract_many,
    extract_page,
    model_from,
)
from weblens.extract.markup import page_text
from weblens.extract.verify import Evidence

__all__ = ["MAX_URLS", "Evidence", "Extraction", "FieldResult", "SlotError", "extract", "extract_many",
           "extract_page", "model_from", "page_text"]  # fmt: skip


class _CallableModule(types.ModuleType):
    """Lets `weblens.extract(...)` call `extract` while `weblens.extract.Extraction` stays importable."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return extract(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
