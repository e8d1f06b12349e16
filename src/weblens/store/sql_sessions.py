"""The session store's queries, written once for SQLite and PostgreSQL.

A backend supplies `_transaction(statements)`: run (sql, args) pairs in one transaction
and return the last one's rows as dicts, turning a foreign-key failure into
`_SessionGone` and any other database failure into `StorageError`. SQL here uses `?`
placeholders; the PostgreSQL backend rewrites them.
"""

from __future__ import annotations

import json
import time
import uuid
from abc import abstractmethod
from typing import Any

from weblens.errors import NotFoundError
from weblens.store.sessions import TITLE_MAX_CHARS, SessionInfo, SessionStore, StoredMessage, title_from

__all__ = ["SessionGone", "SqlSessions"]

Statement = tuple[str, tuple[Any, ...]]
_COUNTED = "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count FROM sessions s "


class SessionGone(Exception):
    """A message named a session that no longer exists (foreign key)."""


def _text(value: str) -> str:
    """`value` as both backends store it: NUL and lone surrogates (which PostgreSQL or UTF-8 refuse) become U+FFFD."""
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace").replace("\x00", "\ufffd")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)  # ASCII-only: any text stores


class SqlSessions(SessionStore):
    """Sessions over SQL; subclasses say how statements run."""

    like = "LIKE"

    @abstractmethod
    async def _transaction(self, statements: list[Statement]) -> list[dict[str, Any]]: ...

    async def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return await self._transaction([(sql, args)])

    async def create(self, title: str = "", *, first_message: str = "") -> SessionInfo:
        now = time.time()
        info = SessionInfo(
            id=uuid.uuid4().hex,
            title=_text((title.strip() or title_from(first_message))[:TITLE_MAX_CHARS]),
            created_at=now,
            updated_at=now,
        )
        await self._query(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (info.id, info.title, info.created_at, info.updated_at),
        )
        return info

    async def sessions(self, search: str = "") -> list[SessionInfo]:
        where = ""
        args: tuple[str, ...] = ()
        if search.strip():
            pattern = "%" + _text(search.strip()).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where = (
                f"WHERE s.title {self.like} ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m "
                f"WHERE m.session_id = s.id AND m.content {self.like} ? ESCAPE '\\') "
            )
            args = (pattern, pattern)
        rows = await self._query(f"{_COUNTED}{where}ORDER BY s.updated_at DESC, s.created_at DESC", args)
        return [SessionInfo(**row) for row in rows]

    async def get(self, session_id: str) -> SessionInfo:
        rows = await self._query(f"{_COUNTED}WHERE s.id = ?", (session_id,))
        if not rows:
            raise NotFoundError(f"no session with id {session_id!r}")
        return SessionInfo(**rows[0])

    async def rename(self, session_id: str, title: str) -> SessionInfo:
        await self.get(session_id)
        await self._query(
            "UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?",
            (_text(title.strip()[:TITLE_MAX_CHARS]), time.time(), session_id),
        )
        return await self.get(session_id)

    async def delete(self, session_id: str) -> None:
        await self.get(session_id)
        await self._query("DELETE FROM sessions WHERE id = ?", (session_id,))

    async def add(self, session_id: str, message: StoredMessage) -> StoredMessage:
        values = (
            session_id,
            message.role,
            _text(message.content),
            message.status,
            _json(message.tool_calls),
            _json(message.sources),
            _json(message.error),
            _json(message.usage),
            _json(message.checks()),
            message.created_at,
        )
        try:
            rows = await self._transaction(
                [
                    ("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id)),
                    (
                        "INSERT INTO messages (session_id, role, content, status, tool_calls, sources, error, usage, "
                        "checks, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                        values,
                    ),
                ]
            )
        except SessionGone:
            raise NotFoundError(f"no session with id {session_id!r} (it was deleted)") from None
        return message.model_copy(update={"id": rows[0]["id"]})

    async def messages(self, session_id: str, *, last: int | None = None) -> list[StoredMessage]:
        if last is None:
            rows = await self._query("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,))
        else:
            rows = await self._query(
                "SELECT * FROM (SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) AS m ORDER BY id",
                (session_id, last),
            )
        return [_message(row) for row in rows]

    async def check(self) -> None:
        await self._query("SELECT 1 AS ok")


def _message(row: dict[str, Any]) -> StoredMessage:
    return StoredMessage(
        id=row["id"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        tool_calls=json.loads(row["tool_calls"]),
        sources=json.loads(row["sources"]),
        error=json.loads(row["error"]) if row["error"] else None,
        usage=json.loads(row["usage"]) if row["usage"] else None,
        **(json.loads(row["checks"]) if row.get("checks") else {}),
        created_at=row["created_at"],
    )
