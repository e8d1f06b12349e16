"""Sessions in one SQLite file (WAL): the default, nothing to install.

sqlite3 blocks, so each transaction runs in a worker thread under one lock. The file is
opened (and migrated) on first use.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from anyio import to_thread

from weblens.store.migrations import SCHEMA_VERSION_TABLE, pending
from weblens.store.sessions import StorageError
from weblens.store.sql_sessions import SessionGone, SqlSessions, Statement

__all__ = ["SqliteSessions"]

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another process holding the file's lock before it fails."""


class SqliteSessions(SqlSessions):
    name = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._memory = str(path) == ":memory:"
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self._db = self._open()
                return self._db
            except sqlite3.OperationalError as exc:
                # switching a new file to WAL can fail at once, without waiting, while another
                # process opens it too (replicas starting together): wait and try again
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StorageError(f"the sessions file {self.path} cannot be opened: {exc}") from None
                time.sleep(0.05)
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"the sessions file {self.path} cannot be opened: {exc}") from None

    def _open(self) -> sqlite3.Connection:
        if not self._memory:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")
            _migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    def connection(self) -> sqlite3.Connection:
        """The open connection (opening it if needed); for tests that make the file fail for real."""
        with self._lock:
            return self._connect()

    def _run(self, statements: list[Statement]) -> list[dict[str, Any]]:
        with self._lock:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                rows: list[sqlite3.Row] = []
                for sql, args in statements:
                    rows = db.execute(sql, args).fetchall()
                db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                _rollback(db)
                if "FOREIGN KEY" in str(exc):
                    raise SessionGone from None
                raise StorageError(f"the sessions file {self.path} refused a write: {exc}") from None
            except sqlite3.Error as exc:
                _rollback(db)
                raise StorageError(f"the sessions file {self.path} failed: {exc}") from None
            return [dict(row) for row in rows]

    async def _transaction(self, statements: list[Statement]) -> list[dict[str, Any]]:
        return await to_thread.run_sync(self._run, statements)

    async def aclose(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def _migrate(db: sqlite3.Connection) -> None:
    """Apply pending migrations under the file's write lock (other processes wait)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(SCHEMA_VERSION_TABLE)
        applied = {row[0] for row in db.execute("SELECT version FROM schema_version")}
        for migration in pending(applied):
            for sql in migration.statements("sqlite"):
                db.execute(sql)
            db.execute(
                "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.description, time.time()),
            )
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise
