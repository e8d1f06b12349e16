"""Saved chat sessions: the models, the store interface both backends implement, and the choice between them.

`WEBLENS_DATABASE_URL=postgresql://…` puts sessions in PostgreSQL (shared by a fleet);
without it they live in one SQLite file under the data directory. Either way the store
opens on first use (migrations run then), so commands that never touch sessions pay nothing.
Messages keep their tool calls, sources and status: "complete", "stopped" (the user pressed
Stop), "incomplete" (the server shut down mid-answer) or "error" (the model failed).
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from weblens.closing import AsyncClosing
from weblens.errors import UpstreamError

if TYPE_CHECKING:
    from weblens.config import Settings

__all__ = [
    "TITLE_MAX_CHARS",
    "MessageStatus",
    "SessionInfo",
    "SessionStore",
    "StorageError",
    "StoredMessage",
    "open_session_store",
    "title_from",
]

MessageStatus = Literal["complete", "stopped", "incomplete", "error"]
TITLE_MAX_CHARS = 200


class StorageError(UpstreamError):
    """The session store could not be read or written (full disk, database down, timeout).

    Retryable: storage usually comes back; the message says what failed, never a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=True)


class SessionInfo(BaseModel):
    id: str
    title: str
    created_at: float
    updated_at: float
    message_count: int = 0


class StoredMessage(BaseModel):
    """One message as saved; an assistant message carries its tool calls and sources."""

    id: int | None = None
    role: Literal["user", "assistant"]
    content: str
    status: MessageStatus = "complete"
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    sources: list[dict[str, Any]] = Field(default_factory=list)
    error: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    citations: list[dict[str, Any]] = Field(default_factory=list)
    """The answer's `[n]` markers as checked after it was written (`weblens.agent.CitationCheck`)."""
    flagged_urls: list[str] = Field(default_factory=list)
    """URLs the model wrote that no source gave, shown as plain text."""
    linked_urls: list[str] = Field(default_factory=list)
    """The ledger and user URLs the answer links to (as a browser resolves them): the page links only these."""
    created_at: float = Field(default_factory=time.time)

    def checks(self) -> dict[str, Any] | None:
        """The citation checks as one JSON column (None when there are none)."""
        if not self.citations and not self.flagged_urls and not self.linked_urls:
            return None
        return {"citations": self.citations, "flagged_urls": self.flagged_urls, "linked_urls": self.linked_urls}


def title_from(text: str) -> str:
    """A session title from its first message: one line, at most 60 characters."""
    line = " ".join(text.split())
    return line[:60] + ("…" if len(line) > 60 else "") or "New chat"


class SessionStore(AsyncClosing):
    """Sessions and their messages. Every method may raise `StorageError`; unknown ids are
    `NotFoundError`. `name` says which backend for /ready and messages."""

    name: str = "sessions"

    @abstractmethod
    async def create(self, title: str = "", *, first_message: str = "") -> SessionInfo: ...

    @abstractmethod
    async def sessions(self, search: str = "") -> list[SessionInfo]:
        """Newest first; with `search`, those whose title or messages contain it (case-insensitive)."""

    @abstractmethod
    async def get(self, session_id: str) -> SessionInfo: ...

    @abstractmethod
    async def rename(self, session_id: str, title: str) -> SessionInfo: ...

    @abstractmethod
    async def delete(self, session_id: str) -> None: ...

    @abstractmethod
    async def add(self, session_id: str, message: StoredMessage) -> StoredMessage: ...

    @abstractmethod
    async def messages(self, session_id: str, *, last: int | None = None) -> list[StoredMessage]:
        """The session's messages in order (only the `last` N when given)."""

    @abstractmethod
    async def check(self) -> None:
        """Raise `StorageError` unless the store answers now (readiness)."""

    async def open(self) -> None:
        """Connect and run migrations now (server start-up) rather than on first use."""
        await self.check()


def open_session_store(settings: Settings) -> SessionStore:
    """PostgreSQL when `database_url` is set, else SQLite at `settings.sessions_path`; opened on first use."""
    from weblens.store.pending import PendingWrites

    store: SessionStore
    if settings.database_url is not None:
        from weblens.store.postgres_sessions import PostgresSessions

        store = PostgresSessions(settings.database_url.get_secret_value())
    else:
        from weblens.store.sqlite_sessions import SqliteSessions

        store = SqliteSessions(settings.sessions_path)
    bound = settings.server
    return PendingWrites(
        store, max_messages=bound.pending_max_messages, max_bytes=int(bound.pending_max_mb * 1_048_576)
    )
