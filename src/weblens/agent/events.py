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
    "CitationCheck",
    "CitationStatus",
    "CitedSource",
    "Delta",
    "Done",
    "ErrorEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "Usage",
]


class CitedSource(Source):
    """A source a tool returned, with the number the answer cites it by ([1], [2], ...), and what
    the ledger knows of it: where the fetch ended, when it was read, and a hash of the text read."""

    number: int
    final_url: str | None = None
    """Where redirects ended, when a fetch read the page (else the URL a search returned)."""
    fetched_at: float | None = None
    """When a tool first returned it (Unix time)."""
    sha256: str | None = None
    """Hash of the text the tools returned for it (what citations are checked against)."""


CitationStatus = Literal["verified", "quote_not_found", "unknown_source", "cited", "unsupported"]


class CitationCheck(BaseModel):
    """One `[n]` marker of the answer, checked against the text of source n after the answer.

    `verified`: source n exists and every quote of the sentence is in its text;
    `quote_not_found`: a quote of the sentence is not in source n; `unknown_source`: no source
    has number n. A sentence that quotes nothing is never `verified`: `cited` when a passage of
    source n holds at least `SUPPORT_MIN_SCORE` of its words (`score`), else `unsupported`
    (both added in issue 25; a client that knows only the first three should show any other
    value as not verified). See docs/citations.md.
    """

    number: int
    status: CitationStatus
    sentence: str
    """The sentence of the answer that carries the marker."""
    quote: str | None = None
    """Text the sentence quotes, when it quotes."""
    quote_score: float | None = None
    """How close the quote came to the source (0–100, fuzzy); for the reader: the status decides."""
    passage: str = ""
    """The passage of the source that best supports the sentence (or contains the quote)."""
    score: float = 0.0
    """Support of the sentence by `passage`: the share of the sentence's words found in it (0–1)."""
    url: str | None = None


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
    sources: list[CitedSource] = Field(default_factory=list)
    """The result's sources with the numbers the answer cites them by (kept when the answer is cut short)."""


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
    citations: list[CitationCheck] = Field(default_factory=list)
    """Every `[n]` marker of the answer, in order, with its check (see `CitationCheck`)."""
    flagged_urls: list[str] = Field(default_factory=list)
    """URLs the model wrote that no source or user message gave: shown as plain text, not links."""
    linked_urls: list[str] = Field(default_factory=list)
    """The URLs the answer links to or shows images from, each a ledger or user URL, as a browser
    resolves them (`https://x.example/`): a renderer should make links only to these."""


class ErrorEvent(BaseModel):
    """The answer could not be produced; `code` is from weblens' closed set."""

    type: Literal["error"] = "error"
    code: str
    message: str


AgentEvent = Delta | ToolCallEvent | ToolResultEvent | Done | ErrorEvent
