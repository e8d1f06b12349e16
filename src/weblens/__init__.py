"""weblens: the web for LLM agents.

Declare a tool once and export it to any model API; search, fetch and get the weather
through one result envelope; serve it all over MCP or drive it with the built-in agent.

Names are imported on first use (PEP 562), so `import weblens` (and every `weblens`
command) does not pay for the libraries behind the parts it does not touch.
"""

from __future__ import annotations

import importlib
import typing as _typing

from weblens._version import __version__

if _typing.TYPE_CHECKING:
    from weblens.cache import Cache
    from weblens.config import Settings, get_settings
    from weblens.context import CancelSignal, ToolContext
    from weblens.errors import (
        ApprovalRequiredError,
        BlockedError,
        MaxUsesExceededError,
        NotConfiguredError,
        NotFoundError,
        RateLimitedError,
        TooLargeError,
        ToolCancelledError,
        ToolTimeoutError,
        ToolValidationError,
        UnsupportedContentError,
        UpstreamError,
        UrlNotAllowedError,
        WeblensError,
    )
    from weblens.extract import extract as extract
    from weblens.fetch import fetch as fetch
    from weblens.fetch import screenshot
    from weblens.policy import DomainPolicy
    from weblens.result import ErrorInfo, Source, ToolError, ToolOk, ToolResult
    from weblens.runtime import Runtime
    from weblens.search import search as search
    from weblens.sites import crawl, map_site
    from weblens.tool import FunctionTool, Retry, Tool, define_tool
    from weblens.toolset import Toolset
    from weblens.weather import get_weather

_HOMES = {
    "weblens.cache": ("Cache",),
    "weblens.config": ("Settings", "get_settings"),
    "weblens.context": ("CancelSignal", "ToolContext"),
    "weblens.policy": ("DomainPolicy",),
    "weblens.fetch": ("screenshot",),
    "weblens.errors": (
        "ApprovalRequiredError", "BlockedError", "MaxUsesExceededError", "NotConfiguredError", "NotFoundError",
        "RateLimitedError", "TooLargeError", "ToolCancelledError", "ToolTimeoutError", "ToolValidationError",
        "UnsupportedContentError", "UpstreamError", "UrlNotAllowedError", "WeblensError",
    ),
    "weblens.result": ("ErrorInfo", "Source", "ToolError", "ToolOk", "ToolResult"),
    "weblens.runtime": ("Runtime",),
    "weblens.tool": ("FunctionTool", "Retry", "Tool", "define_tool"),
    "weblens.toolset": ("Toolset",),
    "weblens.weather": ("get_weather",),
    "weblens.sites": ("crawl", "map_site"),
}  # fmt: skip
_WHERE = {name: module for module, names in _HOMES.items() for name in names}
# callable modules: weblens.fetch(...) fetches a page, weblens.search(...) runs a search
_MODULES = ("extract", "fetch", "search")

__all__ = [
    "ApprovalRequiredError",
    "BlockedError",
    "Cache",
    "CancelSignal",
    "DomainPolicy",
    "ErrorInfo",
    "FunctionTool",
    "MaxUsesExceededError",
    "NotConfiguredError",
    "NotFoundError",
    "RateLimitedError",
    "Retry",
    "Runtime",
    "Settings",
    "Source",
    "TooLargeError",
    "Tool",
    "ToolCancelledError",
    "ToolContext",
    "ToolError",
    "ToolOk",
    "ToolResult",
    "ToolTimeoutError",
    "ToolValidationError",
    "Toolset",
    "UnsupportedContentError",
    "UpstreamError",
    "UrlNotAllowedError",
    "WeblensError",
    "__version__",
    "crawl",
    "define_tool",
    "extract",
    "fetch",
    "get_settings",
    "get_weather",
    "map_site",
    "screenshot",
    "search",
]


def __getattr__(name: str) -> object:
    if name in _MODULES:
        return importlib.import_module(f"weblens.{name}")
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'weblens' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
