"""A SQLite TTL cache for JSON values, with single-flight for identical concurrent work.

Search results and extracted pages live here, so a repeated search or "the next page"
of a document costs no upstream request. SQLite calls are short (WAL, one small row)
and run on the event loop; the upstream work they save is what is slow.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["Cache", "SingleFlight", "cache_key"]

T = TypeVar("T")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (namespace, key)
)
"""


_PURGE_EVERY = 100
"""Expired entries are deleted every this many writes."""


def cache_key(*parts: Any) -> str:
    """A stable key for JSON-like request parts (order of dict keys does not matter)."""
    raw = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


class SingleFlight:
    """Identical concurrent calls share one run of the work and its outcome."""

    def __init__(self) -> None:
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    async def do(self, key: str, work: Callable[[], Awaitable[T]]) -> T:
        while (future := self._inflight.get(key)) is not None:
            try:
                return await asyncio.shield(future)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not future.cancelled() or (task is not None and task.cancelling()):
                    raise
                # the caller doing the work was cancelled, not us: do it ourselves
        future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await work()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                future.cancel()
            elif not future.done():
                future.set_exception(exc)
                future.exception()  # mark retrieved: no waiter is not an error
            raise
        else:
            future.set_result(result)
            return result
        finally:
            self._inflight.pop(key, None)

    def __len__(self) -> int:
        return len(self._inflight)


class Cache:
    """JSON values by (namespace, key) with a time to live; `path=None` keeps them in memory."""

    def __init__(self, path: Path | str | None = None, *, enabled: bool = True) -> None:
        self.enabled = enabled
        target = ":memory:" if path is None else str(path)
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._flight = SingleFlight()
        self._writes = 0

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def get(self, namespace: str, key: str) -> Any | None:
        if not self.enabled:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT value, expires_at FROM entries WHERE namespace = ? AND key = ?", (namespace, key)
            ).fetchone()
        if row is None or row[1] < time.time():
            return None
        return json.loads(row[0])

    def set(self, namespace: str, key: str, value: Any, ttl_s: float) -> None:
        if not self.enabled or ttl_s <= 0:
            return
        payload = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO entries (namespace, key, value, expires_at) VALUES (?, ?, ?, ?)",
                (namespace, key, payload, time.time() + ttl_s),
            )
            self._writes += 1
            if self._writes % _PURGE_EVERY == 0:  # expired rows are never read again: keep the file bounded
                self._db.execute("DELETE FROM entries WHERE expires_at < ?", (time.time(),))

    def purge_expired(self) -> int:
        with self._lock:
            return self._db.execute("DELETE FROM entries WHERE expires_at < ?", (time.time(),)).rowcount

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM entries")

    async def get_or_compute(
        self,
        namespace: str,
        key: str,
        ttl_s: float,
        compute: Callable[[], Awaitable[T]],
        *,
        use_cache: bool = True,
    ) -> tuple[T, bool]:
        """(value, was_cached). Concurrent identical misses share one `compute()`;
        `use_cache=False` skips reading the cache but still shares in-flight work."""
        if use_cache:
            hit = self.get(namespace, key)
            if hit is not None:
                return hit, True

        async def work() -> T:
            value = await compute()
            self.set(namespace, key, value, ttl_s)
            return value

        return await self._flight.do(f"{namespace}\x00{key}", work), False
