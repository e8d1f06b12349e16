"""weblens: the web for LLM agents.

Declare a tool once and export it to any model API; search, fetch and get the weather
through one result envelope; serve it all over MCP or drive it with the built-in agent.
"""

import typing as _typing

from weblens._version import __version__
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
from weblens.policy import DomainPolicy
from weblens.result import ErrorInfo, Source, ToolError, ToolOk, ToolResult
from weblens.runtime import Runtime
from weblens.tool import FunctionTool, Retry, Tool, define_tool
from weblens.toolset import Toolset
from weblens.weather import get_weather

if _typing.TYPE_CHECKING:
    from weblens.fetch import fetch as fetch
    from weblens.search import search as search
else:
    from weblens import (
        fetch,  # a callable module: weblens.fetch(...) fetches a page
        search,  # a callable module: weblens.search(...) runs a search
    )

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
    "define_tool",
    "fetch",
    "get_settings",
    "get_weather",
    "search",
]
