"""weblens: the web for LLM agents.

Declare a tool once and export it to any model API; search, fetch and get the weather
through one result envelope; serve it all over MCP or drive it with the built-in agent.
"""

from typing import TYPE_CHECKING

from weblens._version import __version__
from weblens.cache import Cache
from weblens.config import Settings, get_settings
from weblens.context import CancelSignal, ToolContext
from weblens.errors import (
    ApprovalRequiredError,
    BlockedError,
    NotConfiguredError,
    NotFoundError,
    RateLimitedError,
    TooLargeError,
    ToolCancelledError,
    ToolTimeoutError,
    ToolValidationError,
    UnsupportedContentError,
    UpstreamError,
    WeblensError,
)
from weblens.result import ErrorInfo, Source, ToolError, ToolOk, ToolResult
from weblens.runtime import Runtime
from weblens.tool import FunctionTool, Retry, Tool, define_tool
from weblens.toolset import Toolset

if TYPE_CHECKING:
    from weblens.search import search as search
else:
    from weblens import search  # a callable module: weblens.search(...) runs a search

__all__ = [
    "ApprovalRequiredError",
    "BlockedError",
    "Cache",
    "CancelSignal",
    "ErrorInfo",
    "FunctionTool",
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
    "WeblensError",
    "__version__",
    "define_tool",
    "get_settings",
    "search",
]
