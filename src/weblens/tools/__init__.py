"""The built-in tools: thin wrappers that turn search, fetch and weather calls into Tools.

The catalog (every tool, and so every tool's dependencies: the model client for web_extract,
the browser for web_screenshot) loads on first use, so `weblens fetch` importing the fetch
tool's rendering does not pay for the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from weblens.tools.think import Think
from weblens.tools.todo import SetTodoList, Todo

if TYPE_CHECKING:
    from weblens.tools.catalog import FACTORIES, default_toolset

__all__ = ["FACTORIES", "SetTodoList", "Think", "Todo", "default_toolset"]


def __getattr__(name: str) -> Any:
    if name in ("FACTORIES", "default_toolset"):
        from weblens.tools import catalog

        return getattr(catalog, name)
    raise AttributeError(f"module 'weblens.tools' has no attribute {name!r}")
