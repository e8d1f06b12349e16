"""The one result envelope every tool call returns, and the seed-002 constructors."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from weblens.errors import ErrorCode, WeblensError, error_class_for
from weblens.redact import redact_text

__all__ = ["ErrorInfo", "Image", "Source", "ToolError", "ToolOk", "ToolResult"]


class Source(BaseModel):
    """A page a result came from: what the answer may cite."""

    title: str = ""
    url: str


class Image(BaseModel):
    """An image a tool made (a screenshot): base64 data, sent to MCP clients as image content."""

    data: str
    mime_type: str


class ErrorInfo(BaseModel):
    """Why a call failed, in a form a program (and a model) can act on."""

    code: ErrorCode
    message: str
    retryable: bool = False
    retry_after_s: float | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseModel):
    """What a tool call produced: text for the model, data for programs, a brief for a UI."""

    ok: bool
    text: str = ""
    """What the model reads."""
    data: Any = None
    """The structured result (JSON-compatible)."""
    sources: list[Source] = Field(default_factory=list)
    images: list[Image] = Field(default_factory=list, exclude=True)
    """Images for clients that show them (MCP image content); the text describes them. Not in the
    JSON envelope (CLI `--json`, the chat API): base64 images are no reading for a model or a log."""
    brief: str = ""
    """One line for a UI."""
    duration_ms: float = 0.0
    attempts: int = 1
    error: ErrorInfo | None = None

    @classmethod
    def success(
        cls,
        text: str = "",
        *,
        data: Any = None,
        sources: list[Source] | None = None,
        brief: str = "",
    ) -> ToolResult:
        return cls(ok=True, text=text, data=data, sources=sources or [], brief=brief)

    @classmethod
    def failure(
        cls,
        code: ErrorCode,
        message: str,
        *,
        retryable: bool = False,
        retry_after_s: float | None = None,
        details: dict[str, Any] | None = None,
        text: str = "",
        brief: str = "",
    ) -> ToolResult:
        message = redact_text(message)
        error = ErrorInfo(
            code=code,
            message=message,
            retryable=retryable,
            retry_after_s=retry_after_s,
            details=details or {},
        )
        return cls(ok=False, text=text or f"Error ({code}): {message}", brief=brief or message, error=error)

    @classmethod
    def from_exception(cls, exc: WeblensError) -> ToolResult:
        return cls.failure(
            exc.code,
            exc.message,
            retryable=exc.retryable,
            retry_after_s=exc.retry_after_s,
            details=exc.details,
        )

    @property
    def result_count(self) -> int | None:
        """How many sources the call returned, for logs; None when it returned none."""
        return len(self.sources) if self.sources else None

    def raise_for_error(self) -> ToolResult:
        """Raise the matching `WeblensError` subclass if the call failed."""
        if self.error is None:
            return self
        exc_cls = error_class_for(self.error.code)
        exc = exc_cls.__new__(exc_cls)
        WeblensError.__init__(
            exc,
            self.error.message,
            retryable=self.error.retryable,
            retry_after_s=self.error.retry_after_s,
            details=self.error.details,
        )
        if "issues" in self.error.details:
            exc.issues = self.error.details["issues"]  # type: ignore[attr-defined]
        raise exc


def _join(output: str, message: str) -> str:
    return "\n\n".join(part for part in (output, message) if part)


def ToolOk(
    output: str = "",
    message: str = "",
    brief: str = "",
    *,
    data: Any = None,
    sources: list[Source] | None = None,
) -> ToolResult:
    """Seed 002's success: `output` and `message` reach the model, `brief` the UI."""
    return ToolResult.success(_join(output, message), data=data, sources=sources, brief=brief)


def ToolError(
    output: str = "",
    message: str = "",
    brief: str = "",
    *,
    code: ErrorCode = "internal_error",
    retryable: bool = False,
) -> ToolResult:
    """Seed 002's failure, mapped onto an error result with a code."""
    result = ToolResult.failure(code, message or output or "tool failed", retryable=retryable, brief=brief)
    if output:
        result.text = _join(output, result.text)
    return result
