"""Sessions in PostgreSQL, shared by every replica of a fleet (`WEBLENS_DATABASE_URL`).

psycopg 3 (async) with psycopg_pool: typed, one pool per runtime, and every call bounded —
connect_timeout, statement_timeout and the pool's wait — so a lost database is a quick
`StorageError`, never a hang. Values in the URL (`?connect_timeout=2&options=-c%20statement_timeout%3D3000`)
override the defaults below. Migrations run on first use under an advisory lock.

A server that stops answering without closing its connections (hung, `SIGSTOP`) enforces
no statement timeout, so every call is also bounded here (`answer_s`). After the database
was down, the pool retries with a growing backoff (24 s measured before it reconnected);
`check()` (readiness) sees the database answer a fresh connection and renews the pool, so
a replica is ready again within a second or two of its database.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from weblens.store.migrations import SCHEMA_VERSION_TABLE, Migration, pending
from weblens.store.sessions import StorageError
from weblens.store.sql_sessions import SessionGone, SqlSessions, Statement

__all__ = ["PostgresSessions"]

CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 10_000
POOL_WAIT_S = 8.0
POOL_MAX = 10
ANSWER_S = STATEMENT_TIMEOUT_MS / 1000 + 2.0
"""The most any call waits for the database, its pool wait included."""
CHECK_WAIT_S = 1.0
"""Readiness: how long a check waits for a fresh connection, then for a pooled one."""
_MIGRATION_LOCK = 0x7765626C656E73  # "weblens": one advisory lock id for every replica
_PLACEHOLDER = re.compile(r"\?")


def _dialect(sql: str) -> str:
    return _PLACEHOLDER.sub("%s", sql)


def where(url: str) -> str:
    """host:port/dbname of a URL, without user or password, for messages."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "the database in WEBLENS_DATABASE_URL"
    return f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"


def _options(url: str) -> dict[str, Any]:
    given = conninfo_to_dict(url)
    extra: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT_S
    if "statement_timeout" not in str(given.get("options", "")):
        extra["options"] = f"{given.get('options', '')} -c statement_timeout={STATEMENT_TIMEOUT_MS}".strip()
    return extra


async def _applied(conn: psycopg.AsyncConnection[Any]) -> set[int]:
    cursor = await conn.execute("SELECT to_regclass('schema_version') IS NOT NULL")
    exists = await cursor.fetchone()
    if not exists or not exists[0]:
        return set()
    cursor = await conn.execute("SELECT version FROM schema_version")
    return {row[0] for row in await cursor.fetchall()}


async def _apply(conn: psycopg.AsyncConnection[Any], migrations: list[Migration]) -> None:
    for migration in migrations:
        for sql in migration.statements("postgresql"):
            await conn.execute(sql)
        await conn.execute(
            "INSERT INTO schema_version (version, description, applied_at) VALUES (%s, %s, %s)",
            (migration.version, migration.description, time.time()),
        )


async def _execute(
    conn: psycopg.AsyncConnection[Any], sql: str, args: tuple[Any, ...]
) -> psycopg.AsyncCursor[dict[str, Any]]:
    cursor = conn.cursor(row_factory=dict_row)
    await cursor.execute(_dialect(sql), args)
    return cursor


async def _fetch(conn: psycopg.AsyncConnection[Any], sql: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
    cursor = await _execute(conn, sql, args)
    return await cursor.fetchall() if cursor.description is not None else []


class PostgresSessions(SqlSessions):
    name = "postgresql"
    like = "ILIKE"

    def __init__(self, url: str, *, pool_wait_s: float = POOL_WAIT_S, answer_s: float = ANSWER_S) -> None:
        try:
            self._kwargs = _options(url)
        except psycopg.Error:
            raise StorageError("WEBLENS_DATABASE_URL is not a valid postgresql:// URL") from None
        self._url = url
        self.where = where(url)
        self._pool_wait_s = pool_wait_s
        self._answer_s = answer_s
        self._pool: AsyncConnectionPool | None = None
        self._closing: set[asyncio.Future[Any]] = set()
        self._migrated = False
        self._opening = asyncio.Lock()

    async def _ready(self) -> AsyncConnectionPool:
        if self._pool is not None and self._migrated:
            return self._pool
        async with self._opening:
            if self._pool is None:
                pool = AsyncConnectionPool(
                    self._url,
                    min_size=1,
                    max_size=POOL_MAX,
                    kwargs=self._kwargs,
                    timeout=self._pool_wait_s,
                    open=False,
                    check=AsyncConnectionPool.check_connection,
                    name="weblens-sessions",
                )
                await pool.open(wait=False)
                self._pool = pool
            if not self._migrated:
                await self._guard(self._migrate(self._pool))
                self._migrated = True
            return self._pool

    async def _migrate(self, pool: AsyncConnectionPool) -> None:
        async with pool.connection() as conn:
            if not pending(await _applied(conn)):  # the usual start: nothing to lock or write
                return
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                await conn.execute(SCHEMA_VERSION_TABLE)
                await _apply(conn, pending(await _applied(conn)))

    async def _guard(self, work: Any) -> Any:
        """Await `work` (at most `answer_s`), turning every database failure into a `StorageError`
        naming host and database."""
        task = asyncio.ensure_future(work)
        try:
            await asyncio.wait({task}, timeout=self._answer_s)
        finally:
            if not task.done():  # over its time, or its caller cancelled: cancelled, but not waited for
                task.cancel()  # (psycopg's cancel request to a hung server waits ~10 s more)
                self._aside(task)
        if not task.done():
            raise StorageError(
                f"PostgreSQL at {self.where} did not answer within {self._answer_s:g} s (hung or overloaded?)"
            )
        try:
            return task.result()
        except SessionGone:
            raise
        except PoolTimeout:
            raise StorageError(
                f"PostgreSQL at {self.where} did not answer within {self._pool_wait_s:g} s (is it running?)"
            ) from None
        except pg_errors.QueryCanceled:
            raise StorageError(f"PostgreSQL at {self.where} timed out running a statement") from None
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StorageError(f"PostgreSQL at {self.where} failed: {first}") from None

    async def _run(self, statements: list[Statement]) -> list[dict[str, Any]]:
        """One statement runs as is (autocommit); several run in one transaction, pipelined, so a
        write costs one round trip, not one per statement plus BEGIN and COMMIT."""
        pool = await self._ready()
        async with pool.connection() as conn:
            try:
                if len(statements) == 1:
                    return await _fetch(conn, *statements[0])
                async with conn.pipeline(), conn.transaction():
                    cursors = [await _execute(conn, sql, args) for sql, args in statements]
                rows: list[dict[str, Any]] = await cursors[-1].fetchall() if cursors[-1].description else []
                return rows
            except pg_errors.ForeignKeyViolation:
                raise SessionGone from None

    async def _transaction(self, statements: list[Statement]) -> list[dict[str, Any]]:
        return await self._guard(self._run(statements))  # type: ignore[no-any-return]

    async def _select_one(self) -> None:
        pool = await self._ready()
        async with pool.connection(timeout=CHECK_WAIT_S) as conn:
            await conn.execute("SELECT 1")

    async def _answers_afresh(self) -> bool:
        """Whether a new connection gets through now (while the pool may still wait out its backoff)."""
        try:
            async with asyncio.timeout(CHECK_WAIT_S):
                conn = await psycopg.AsyncConnection.connect(self._url, **self._kwargs)
                await conn.close()
        except (TimeoutError, psycopg.Error, OSError):
            return False
        return True

    async def _renew(self) -> None:
        """A new pool in place of one that is waiting out its reconnect backoff. The old one closes
        aside: its connections in use end their calls first (it closes them when they come back)."""
        async with self._opening:
            old, self._pool, self._migrated = self._pool, None, False
        if old is not None:
            self._aside(asyncio.get_running_loop().create_task(old.close(timeout=1.0)))

    def _aside(self, task: asyncio.Future[Any]) -> None:
        """Let `task` end in the background; `aclose()` waits for it."""
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def check(self) -> None:
        pool = self._pool
        if pool is not None and pool.get_stats().get("connections_errors", 0) and await self._answers_afresh():
            await self._renew()  # the pool failed to connect before: it may still be waiting out its backoff
        await self._guard(self._select_one())

    async def aclose(self) -> None:
        if self._closing:  # calls given up on a hung server: psycopg closes them within ~10 s
            await asyncio.wait(set(self._closing), timeout=self._answer_s)
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
            self._migrated = False
