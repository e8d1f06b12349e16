"""Saved chat sessions: a small SQLite (WAL) store of sessions and their messages.

Calls are short and synchronous; the server runs them in a worker thread. Messages
keep their tool calls, sources and status: "complete", "stopped" (the user pressed Stop),
"incomplete" (the server shut down mid-answer) or "error" (the model failed), so nothing
a user saw is lost.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from weblens.errors import NotFoundError

__all__ = ["MessageStatus", "SessionInfo", "SessionStore", "StoredMessage"]

MessageStatus = Literal["complete", "stopped", "incomplete", "error"]
TITLE_MAX_CHARS = 200
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    status TEXT NOT NULL,
    tool_calls TEXT NOT NULL DEFAULT '[]',
    sources TEXT NOT NULL DEFAULT '[]',
    error TEXT,
    usage TEXT,
    checks TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, id);
"""


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
    created_at: float = Field(default_factory=time.time)

    def checks(self) -> str | None:
        """The citation checks as one JSON column (None when there are none)."""
        if not self.citations and not self.flagged_urls:
            return None
        return json.dumps({"citations": self.citations, "flagged_urls": self.flagged_urls}, ensure_ascii=False)


def _title_from(text: str) -> str:
    line = " ".join(text.split())
    return line[:60] + ("…" if len(line) > 60 else "") or "New chat"


class SessionStore:
    """Sessions and messages in one SQLite file; safe to share between threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        columns = {row["name"] for row in self._db.execute("PRAGMA table_info(messages)")}
        if "checks" not in columns:  # a database from before citation checks
            self._db.execute("ALTER TABLE messages ADD COLUMN checks TEXT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- sessions ----------------------------------------------------------------

    def create(self, title: str = "", *, first_message: str = "") -> SessionInfo:
        now = time.time()
        info = SessionInfo(
            id=uuid.uuid4().hex,
            title=(title.strip() or _title_from(first_message))[:TITLE_MAX_CHARS],
            created_at=now,
            updated_at=now,
        )
        self._query(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (info.id, info.title, info.created_at, info.updated_at),
        )
        return info

    def sessions(self, search: str = "") -> list[SessionInfo]:
        """Newest first; with `search`, those whose title or messages contain it (case-insensitive)."""
        where: str = ""
        args: tuple[str, ...] = ()
        if search.strip():
            pattern = "%" + search.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where = (
                "WHERE s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m "
                "WHERE m.session_id = s.id AND m.content LIKE ? ESCAPE '\\') "
            )
            args = (pattern, pattern)
        rows = self._query(
            "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
            f"FROM sessions s {where}ORDER BY s.updated_at DESC, s.created_at DESC",
            args,
        )
        return [SessionInfo(**dict(row)) for row in rows]

    def get(self, session_id: str) -> SessionInfo:
        rows = self._query(
            "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
            "FROM sessions s WHERE s.id = ?",
            (session_id,),
        )
        if not rows:
            raise NotFoundError(f"no session with id {session_id!r}")
        return SessionInfo(**dict(rows[0]))

    def rename(self, session_id: str, title: str) -> SessionInfo:
        self.get(session_id)
        self._query(
            "UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?",
            (title.strip()[:TITLE_MAX_CHARS], time.time(), session_id),
        )
        return self.get(session_id)

    def delete(self, session_id: str) -> None:
        self.get(session_id)
        self._query("DELETE FROM sessions WHERE id = ?", (session_id,))

    # -- messages ----------------------------------------------------------------

    def add(self, session_id: str, message: StoredMessage) -> StoredMessage:
        with self._lock, _session_must_exist(session_id):
            cursor = self._db.execute(
                "INSERT INTO messages (session_id, role, content, status, tool_calls, sources, error, usage, "
                "checks, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    message.role,
                    message.content,
                    message.status,
                    json.dumps(message.tool_calls, ensure_ascii=False),
                    json.dumps(message.sources, ensure_ascii=False),
                    json.dumps(message.error) if message.error is not None else None,
                    json.dumps(message.usage) if message.usage is not None else None,
                    message.checks(),
                    message.created_at,
                ),
            )
            self._db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id))
        return message.model_copy(update={"id": cursor.lastrowid})

    def messages(self, session_id: str, *, last: int | None = None) -> list[StoredMessage]:
        """The session's messages in order (only the `last` N when given)."""
        if last is None:
            rows = self._query("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,))
        else:
            rows = self._query(
                "SELECT * FROM (SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id",
                (session_id, last),
            )
        return [_message(row) for row in rows]


@contextmanager
def _session_must_exist(session_id: str) -> Iterator[None]:
    """A message for a session that is gone (deleted meanwhile) is a `NotFoundError`."""
    try:
        yield
    except sqlite3.IntegrityError:
        raise NotFoundError(f"no session with id {session_id!r} (it was deleted)") from None


def _message(row: sqlite3.Row) -> StoredMessage:
    data = dict(row)
    return StoredMessage(
        id=data["id"],
        role=data["role"],
        content=data["content"],
        status=data["status"],
        tool_calls=json.loads(data["tool_calls"]),
        sources=json.loads(data["sources"]),
        error=json.loads(data["error"]) if data["error"] else None,
        usage=json.loads(data["usage"]) if data["usage"] else None,
        **(json.loads(data["checks"]) if data.get("checks") else {}),
        created_at=data["created_at"],
    )
