"""What a tool call knows about its caller: who, which thread, how to cancel, approve, trace."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["ApprovalCallback", "CancelSignal", "Span", "ToolContext", "Tracer"]


class Span(Protocol):
    def set_attribute(self, key: str, value: Any) -> None: ...


class Tracer(Protocol):
    """The slice of OpenTelemetry's `Tracer` weblens uses; an OTel tracer fits as is."""

    def start_as_current_span(self, name: str, **kwargs: Any) -> AbstractContextManager[Span]: ...


ApprovalCallback = Callable[[str, dict[str, Any]], "Awaitable[bool] | bool"]
"""Called with the tool name and validated arguments; True lets the call run."""


class CancelSignal:
    """A cancel switch a caller holds while a call runs (like JavaScript's AbortSignal).

    `cancel()` must be called from the event loop's thread (use
    `loop.call_soon_threadsafe(signal.cancel)` from elsewhere).
    """

    def __init__(self) -> None:
        self._cancelled = False
        self.reason = ""
        self._callbacks: list[Callable[[], Any]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self, reason: str = "cancelled by the caller") -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self.reason = reason
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def subscribe(self, callback: Callable[[], Any]) -> Callable[[], None]:
        """Run `callback` on cancel; returns a function that unsubscribes it."""
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unsubscribe


@dataclass
class ToolContext:
    """Per-call information passed to every tool body (seed 003's ToolContext)."""

    thread_id: str | None = None
    user_id: str | None = None
    agent_name: str | None = None
    cancel: CancelSignal | None = None
    tracer: Tracer | None = None
    approve: ApprovalCallback | None = None
    extra: dict[str, Any] = field(default_factory=dict)
