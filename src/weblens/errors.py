"""The weblens error tree: one class per error code of the closed set.

Every failure a tool can report is one of these codes, so callers branch on a code,
never on the wording of a message::

    WeblensError                    internal_error
    ├── ToolValidationError         validation_error   (carries field-level issues)
    ├── NotConfiguredError          not_configured     (names the variable to set)
    ├── RateLimitedError            rate_limited       (retryable, retry_after_s)
    ├── ToolTimeoutError            timeout            (retryable)
    ├── UpstreamError               upstream_error     (retryable when 5xx or network)
    ├── BlockedError                blocked            (SSRF guard, robots.txt)
    ├── UnsupportedContentError     unsupported_content
    ├── TooLargeError               too_large
    ├── NotFoundError               not_found
    ├── ToolCancelledError          cancelled
    ├── ApprovalRequiredError       approval_required
    ├── UrlNotAllowedError          url_not_allowed    (operator domain policy, URL provenance)
    └── MaxUsesExceededError        max_uses_exceeded  (a per-run or per-day budget is spent)

Programmer misuse (a tool declared wrongly) raises built-in errors instead.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

__all__ = [
    "ApprovalRequiredError",
    "BlockedError",
    "ErrorCode",
    "MaxUsesExceededError",
    "NotConfiguredError",
    "NotFoundError",
    "RateLimitedError",
    "TooLargeError",
    "ToolCancelledError",
    "ToolTimeoutError",
    "ToolValidationError",
    "UnsupportedContentError",
    "UpstreamError",
    "UrlNotAllowedError",
    "WeblensError",
    "error_class_for",
]

ErrorCode = Literal[
    "validation_error",
    "not_configured",
    "rate_limited",
    "timeout",
    "upstream_error",
    "blocked",
    "unsupported_content",
    "too_large",
    "not_found",
    "cancelled",
    "approval_required",
    "url_not_allowed",
    "max_uses_exceeded",
    "internal_error",
]
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)


class WeblensError(Exception):
    """Base of every error weblens reports; `code` is its place in the closed set."""

    code: ClassVar[ErrorCode] = "internal_error"
    default_retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = self.default_retryable if retryable is None else retryable
        self.retry_after_s = retry_after_s
        self.details = details or {}


class ToolValidationError(WeblensError):
    """Arguments did not match the tool's parameters; `issues` says which field and why."""

    code = "validation_error"

    def __init__(self, message: str, issues: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message, details={"issues": issues or []})
        self.issues: list[dict[str, Any]] = issues or []


class NotConfiguredError(WeblensError):
    """A required setting (usually an API key) is missing or was refused upstream."""

    code = "not_configured"


class RateLimitedError(WeblensError):
    """The upstream asked us to slow down (HTTP 429, DuckDuckGo's 202 page, plan limits)."""

    code = "rate_limited"
    default_retryable = True


class ToolTimeoutError(WeblensError):
    """The call ran out of time; the work was cancelled, not abandoned."""

    code = "timeout"
    default_retryable = True


class UpstreamError(WeblensError):
    """The upstream failed or answered something unusable; `status` when it was HTTP."""

    code = "upstream_error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        if retryable is None:
            retryable = status is None or status >= 500
        super().__init__(message, retryable=retryable, retry_after_s=retry_after_s, details=details)
        self.status = status


class BlockedError(WeblensError):
    """Refused on purpose: a private or metadata address, or a robots.txt rule."""

    code = "blocked"


class UnsupportedContentError(WeblensError):
    """The content type is one weblens cannot turn into text."""

    code = "unsupported_content"


class TooLargeError(WeblensError):
    """The body went past the configured byte cap."""

    code = "too_large"


class NotFoundError(WeblensError):
    """The thing asked for does not exist (HTTP 404, an unknown place or tool)."""

    code = "not_found"


class ToolCancelledError(WeblensError):
    """The caller cancelled the call through its context."""

    code = "cancelled"


class ApprovalRequiredError(WeblensError):
    """The tool needs approval and the approval callback did not give it."""

    code = "approval_required"


class UrlNotAllowedError(WeblensError):
    """The URL is outside what policy allows: the operator's domain policy, or (in an agent
    run) a URL that neither the user nor an earlier tool result gave."""

    code = "url_not_allowed"


class MaxUsesExceededError(WeblensError):
    """A budget is spent: calls per tool in one agent run, or requests per day to a provider."""

    code = "max_uses_exceeded"


_BY_CODE: dict[str, type[WeblensError]] = {
    cls.code: cls
    for cls in (
        WeblensError,
        ToolValidationError,
        NotConfiguredError,
        RateLimitedError,
        ToolTimeoutError,
        UpstreamError,
        BlockedError,
        UnsupportedContentError,
        TooLargeError,
        NotFoundError,
        ToolCancelledError,
        ApprovalRequiredError,
        UrlNotAllowedError,
        MaxUsesExceededError,
    )
}


def error_class_for(code: str) -> type[WeblensError]:
    """The exception class for an error code (e.g. to re-raise a result's error)."""
    return _BY_CODE.get(code, WeblensError)
