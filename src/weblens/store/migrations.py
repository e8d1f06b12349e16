"""Numbered schema migrations for the session store, one list for both SQL dialects.

Each backend runs `pending(current)` at start-up inside one lock (SQLite: `BEGIN
IMMEDIATE`; PostgreSQL: an advisory lock), records each applied number in
`schema_version`, and so is idempotent and safe when several replicas start at once.
Add a migration by appending one; never edit an applied one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["LATEST", "MIGRATIONS", "Migration", "pending"]

Dialect = Literal["sqlite", "postgresql"]

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
    "applied_at DOUBLE PRECISION NOT NULL)"
)


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    sqlite: tuple[str, ...]
    postgresql: tuple[str, ...]

    def statements(self, dialect: Dialect) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgresql


_SESSIONS = (
    "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, "
    "created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)"
)
# JSON columns are TEXT holding ASCII-only JSON in both dialects: any string a model
# wrote (NUL, lone surrogates) stores as its escape, where JSONB would refuse it
_MESSAGE_COLUMNS = (
    "session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, role TEXT NOT NULL, "
    "content TEXT NOT NULL, status TEXT NOT NULL, tool_calls TEXT NOT NULL DEFAULT '[]', "
    "sources TEXT NOT NULL DEFAULT '[]', error TEXT, usage TEXT, created_at DOUBLE PRECISION NOT NULL"
)
_INDEX = "CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, id)"

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "sessions and messages",
        sqlite=(
            _SESSIONS,
            f"CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, {_MESSAGE_COLUMNS})",
            _INDEX,
        ),
        postgresql=(
            _SESSIONS,
            f"CREATE TABLE IF NOT EXISTS messages (id BIGSERIAL PRIMARY KEY, {_MESSAGE_COLUMNS})",
            _INDEX,
            "CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions(updated_at DESC)",
        ),
    ),
    Migration(
        2,
        "citation checks on messages",
        sqlite=("ALTER TABLE messages ADD COLUMN checks TEXT",),
        postgresql=("ALTER TABLE messages ADD COLUMN IF NOT EXISTS checks TEXT",),
    ),
)
LATEST = MIGRATIONS[-1].version


def pending(applied: set[int]) -> list[Migration]:
    """The migrations not yet in `applied`, in order."""
    return [m for m in MIGRATIONS if m.version not in applied]
