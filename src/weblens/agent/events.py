"""What the agent reports while it answers: one typed event per thing a consumer shows.

`delta`, `done` and `error` are seed 001's SSE protocol and keep their meaning;
`tool_call` and `tool_result` carry tool activity for clients that want it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from weblens.result import Source

__all__ = [
    "AgentEvent",
    "CitedSource",
    "Delta",
    "Done",
    "ErrorEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "Usage",
]


class CitedSource(Source):
    """A source a tool returned, with the number the answer cites it by ([1], [2], ...)."""

    number: int


class Usage(BaseModel):
    """Tokens the model reported, summed over every model call of one answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, other: Usage | None) -> None:
        if other is not None:
            self.prompt_tokens += other.prompt_tokens
            self.completion_tokens += other.completion_tokens
            self.total_tokens += other.total_tokens


class Delta(BaseModel):
    """A piece of the answer's text, as the model streams it."""

    type: Literal["delta"] = "delta"
    text: str


class ToolCallEvent(BaseModel):
    """The model asked for a tool; `key_argument` is what a UI shows on one line."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] | str
    key_argument: str | None = None


class ToolResultEvent(BaseModel):
    """A tool call finished: `outcome` is "ok" or the error code."""

    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    ok: bool
    outcome: str
    brief: str = ""
    duration_ms: float = 0.0
    result_count: int | None = None
    repeated: bool = False
    """Answered from an earlier identical call instead of running again."""


class Done(BaseModel):
    """The answer is complete. `message` ends with the sources; `answer` is the text alone."""

    type: Literal["done"] = "done"
    message: str
    answer: str
    sources: list[CitedSource] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str = "stop"
    """"stop", "length", ..., or "step_limit" when the answer was forced after the last step."""
    steps: int = 0
    notice: str | None = None
    """A limitation the user should know about (e.g. web access unavailable)."""
    session_id: str | None = None


class ErrorEvent(BaseModel):
    """The answer could not be produced; `code` is from weblens' closed set."""

    type: Literal["error"] = "error"
    code: str
    message: str


AgentEvent = Delta | ToolCallEvent | ToolResultEvent | Done | ErrorEvent
