"""The state backends of one process: a SQLite cache file and in-memory flights, slots and breakers.

The default, with nothing to install. The cache is disposable: a corrupt file is rebuilt,
and one that cannot be opened or written is replaced by memory, with one warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["LocalBreakers", "LocalSlots", "SingleFlight", "SqliteCacheStore"]

T = TypeVar("T")
log = logging.getLogger("weblens.cache")

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


def _open(target: str) -> sqlite3.Connection:
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
        db.execute("SELECT 1 FROM entries LIMIT 1").fetchall()
    except BaseException:
        db.close()
        raise
    return db


def _is_corrupt(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


class SqliteCacheStore:
    """Cache entries in one SQLite file (`path=None`: in memory). Calls are short (WAL, one small
    row) and run on the event loop; the upstream work they save is what is slow."""

    def __init__(self, path: Path | str | None = None) -> None:
        self._lock = threading.Lock()
        self._writes = 0
        self.path = None if path is None else Path(path)
        self._warned = False
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self.path is None:
            return _open(":memory:")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return _open(str(self.path))
        except sqlite3.DatabaseError as exc:
            if _is_corrupt(exc):
                return self._rebuild(exc)
            return self._in_memory(exc)
        except (sqlite3.Error, OSError) as exc:
            return self._in_memory(exc)

    def _rebuild(self, exc: sqlite3.Error) -> sqlite3.Connection:
        assert self.path is not None
        log.warning("cache file %s is corrupt (%s): starting a new one", self.path, exc)
        try:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return _open(str(self.path))
        except (sqlite3.Error, OSError) as again:
            return self._in_memory(again)

    def _in_memory(self, exc: BaseException) -> sqlite3.Connection:
        self._warn(
            f"cache file {self.path} cannot be used ({exc}): caching in memory for this process "
            "(set WEBLENS_CACHE_PATH to a writable file, or WEBLENS_CACHE_ENABLED=false)"
        )
        self.path = None
        return _open(":memory:")

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            log.warning("%s", message)

    def _failed(self, exc: sqlite3.Error) -> None:
        """A read or write failed mid-run (disk full, file removed or damaged): carry on in memory."""
        self._warn(f"cache file {self.path} failed ({exc}): caching in memory for this process")
        self._warned = True
        old, self._db, self.path = self._db, _open(":memory:"), None
        with contextlib.suppress(sqlite3.Error):
            old.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    async def get(self, namespace: str, key: str) -> str | None:
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT value, expires_at FROM entries WHERE namespace = ? AND key = ?", (namespace, key)
                ).fetchone()
            except sqlite3.Error as exc:
                self._failed(exc)
                return None
        if row is None or row[1] < time.time():
            return None
        return str(row[0])

    async def set(self, namespace: str, key: str, value: str, ttl_s: float) -> None:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO entries (namespace, key, value, expires_at) VALUES (?, ?, ?, ?)",
                    (namespace, key, value, time.time() + ttl_s),
                )
                self._writes += 1
                if self._writes % _PURGE_EVERY == 0:  # expired rows are never read again: keep the file bounded
                    self._db.execute("DELETE FROM entries WHERE expires_at < ?", (time.time(),))
            except sqlite3.Error as exc:
                self._failed(exc)

    async def delete(self, namespace: str, key: str) -> None:
        with self._lock:
            try:
                self._db.execute("DELETE FROM entries WHERE namespace = ? AND key = ?", (namespace, key))
            except sqlite3.Error as exc:
                self._failed(exc)

    async def purge_expired(self) -> int:
        with self._lock:
            return self._db.execute("DELETE FROM entries WHERE expires_at < ?", (time.time(),)).rowcount

    async def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM entries")


class SingleFlight:
    """Identical concurrent calls in this process share one run of the work and its outcome."""

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


@dataclass
class _Slots:
    next: float = 0.0
    not_before: float = 0.0
    departed: float | None = None
    """When the last request actually left (`depart`)."""
    freed: list[float] = field(default_factory=list)
    """Future slots given back by callers cancelled while waiting (a heap of start times)."""


class LocalSlots:
    """`SlotStore` in this process, on the monotonic clock; works across event loops."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._slots: dict[str, _Slots] = {}

    def claim_now(self, name: str, interval_s: float) -> tuple[float, float]:
        """`claim` without awaiting (a fallback for a shared store that is unreachable)."""
        slots = self._slots.setdefault(name, _Slots())
        now = self._clock()
        while slots.freed:
            start = heapq.heappop(slots.freed)
            if start >= max(now, slots.not_before):  # still ahead and still spaced: reuse it
                return start, start - now
        start = max(now, slots.next, slots.not_before)
        slots.next = start + interval_s
        return start, start - now

    async def claim(self, name: str, interval_s: float) -> tuple[float, float]:
        return self.claim_now(name, interval_s)

    def note(self, name: str, start_in_s: float, interval_s: float) -> None:
        """A slot this process took from a shared store, `start_in_s` from now: if that store is
        lost, the slots given here keep their distance from it."""
        slots = self._slots.setdefault(name, _Slots())
        slots.next = max(slots.next, self._clock() + start_in_s + interval_s)

    def ahead(self, name: str) -> float:
        """Seconds until the next slot here is free (0 when it is free now)."""
        slots = self._slots.get(name)
        return 0.0 if slots is None else max(0.0, max(slots.next, slots.not_before) - self._clock())

    async def release(self, name: str, start: float) -> None:
        heapq.heappush(self._slots.setdefault(name, _Slots()).freed, start)

    async def defer(self, name: str, seconds: float) -> None:
        slots = self._slots.setdefault(name, _Slots())
        slots.not_before = max(slots.not_before, self._clock() + seconds)
        slots.next = max(slots.next, slots.not_before)

    def depart_now(self, name: str, interval_s: float) -> float:
        """`depart` without awaiting (a fallback for a shared store that is unreachable)."""
        slots = self._slots.setdefault(name, _Slots())
        now = self._clock()
        if slots.departed is not None and now < slots.departed + interval_s:
            return slots.departed + interval_s - now
        slots.departed = now
        return 0.0

    async def depart(self, name: str, interval_s: float) -> float:
        return self.depart_now(name, interval_s)


@dataclass
class _Breaker:
    failures: int = 0
    open_until: float = 0.0
    last_code: str = ""
    last_message: str = ""


class LocalBreakers:
    """`BreakerStore` in this process."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._states: dict[str, _Breaker] = {}

    async def open_for(self, name: str) -> float:
        state = self._states.get(name)
        return max(0.0, state.open_until - self._clock()) if state else 0.0

    async def last_failure(self, name: str) -> tuple[str, str]:
        state = self._states.get(name) or _Breaker()
        return state.last_code, state.last_message

    async def succeeded(self, name: str) -> None:
        self._states.pop(name, None)

    async def failed(self, name: str, code: str, message: str, *, threshold: int, cooldown_s: float) -> None:
        state = self._states.setdefault(name, _Breaker())
        state.failures += 1
        state.last_code, state.last_message = code, message
        if state.failures >= threshold:
            state.open_until = self._clock() + cooldown_s
