"""Messages that could not be written yet: kept in memory and written when storage is back.

A full disk or a lost database must not lose an answer the user has just read. `add()`
that fails keeps the message (and every later one of that session, so order holds),
raises the `StorageError` for the caller to report, and retries: before the next write,
before a read of that session, and every `RETRY_S` in the background. Reads of a
session show its waiting messages after the stored ones.

What waits is bounded (`max_messages`, `max_bytes`: `server.pending_max_messages`,
`server.pending_max_mb`). Past the bound a message that cannot be written is not kept:
`add()` raises `PendingFullError`, the chat stream's `error` event says the answer is lost
(the user has read it; it is not saved), and the ones already waiting are still written
when storage is back. Memory stays bounded however long storage is down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from weblens.errors import NotFoundError
from weblens.store.sessions import SessionInfo, SessionStore, StorageError, StoredMessage

__all__ = ["MAX_BYTES", "MAX_MESSAGES", "RETRY_S", "PendingFullError", "PendingWrites"]

RETRY_S = 2.0
MAX_MESSAGES = 1_000
MAX_BYTES = 64 * 1024 * 1024
CHECK_FLUSH_S = 1.0
log = logging.getLogger("weblens.sessions")


class PendingFullError(StorageError):
    """Storage is failing and the memory kept for waiting messages is full: this one is not kept."""


@dataclass
class _Waiting:
    session_id: str
    message: StoredMessage
    size: int


class PendingWrites(SessionStore):
    """Any `SessionStore`, with failed message writes kept and retried."""

    def __init__(
        self,
        store: SessionStore,
        *,
        retry_s: float = RETRY_S,
        max_messages: int = MAX_MESSAGES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.store = store
        self.name = store.name
        self.retry_s = retry_s
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._waiting: list[_Waiting] = []
        self._bytes = 0
        self._flushing = asyncio.Lock()
        self._retry: asyncio.Task[None] | None = None
        self._flush_now: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """How many messages wait to be written."""
        return len(self._waiting)

    async def flush(self) -> None:
        """Write what waits, oldest first; stops at the first `StorageError` (raised)."""
        async with self._flushing:
            while self._waiting:
                head = self._waiting[0]
                with contextlib.suppress(NotFoundError):  # a session deleted meanwhile needs nothing kept
                    await self.store.add(head.session_id, head.message)
                self._bytes -= self._waiting.pop(0).size
                log.info("a message kept in memory was saved to session %s", head.session_id)

    async def _try_flush(self) -> None:
        if self._waiting:
            with contextlib.suppress(StorageError):
                await self.flush()

    def _schedule_retry(self) -> None:
        if self._retry is not None and not self._retry.done():
            return

        async def retry() -> None:
            while self._waiting:
                await asyncio.sleep(self.retry_s)
                await self._try_flush()

        self._retry = asyncio.get_running_loop().create_task(retry(), name="weblens session retry")

    @property
    def waiting_bytes(self) -> int:
        """The size of what waits (its JSON), bytes."""
        return self._bytes

    def _keep(self, session_id: str, message: StoredMessage, failure: StorageError) -> StorageError:
        """Keep `message` to write later if the bound allows; the error for the caller either way."""
        size = len(message.model_dump_json())
        if len(self._waiting) + 1 > self.max_messages or self._bytes + size > self.max_bytes:
            log.error("session %s: a message was not saved and not kept (%s)", session_id, self._full())
            return PendingFullError(f"{failure.message}; {self._full()}, so this one is not kept")
        self._waiting.append(_Waiting(session_id, message, size))
        self._bytes += size
        self._schedule_retry()
        return failure

    def _full(self) -> str:
        return (
            f"{self.waiting} message(s), {self._bytes:,} bytes, already wait in memory, the most this "
            f"server keeps ({self.max_messages} messages, {self.max_bytes / 1_048_576:g} MB: "
            "server.pending_max_messages, server.pending_max_mb)"
        )

    async def add(self, session_id: str, message: StoredMessage) -> StoredMessage:
        await self._try_flush()
        if not any(w.session_id == session_id for w in self._waiting):
            try:
                return await self.store.add(session_id, message)
            except StorageError as exc:
                raise self._keep(session_id, message, exc) from None
        # behind its session's waiting ones, so order holds
        failing = StorageError(f"the session store is failing; {self.waiting} message(s) wait in memory to be saved")
        raise self._keep(session_id, message, failing)

    async def messages(self, session_id: str, *, last: int | None = None) -> list[StoredMessage]:
        await self._try_flush()
        stored = await self.store.messages(session_id, last=last)
        mine = [w.message for w in self._waiting if w.session_id == session_id]
        combined = stored + mine
        return combined[-last:] if last is not None and last > 0 else combined

    async def create(self, title: str = "", *, first_message: str = "") -> SessionInfo:
        await self._try_flush()
        return await self.store.create(title, first_message=first_message)

    async def sessions(self, search: str = "") -> list[SessionInfo]:
        return await self.store.sessions(search)

    async def get(self, session_id: str) -> SessionInfo:
        return await self.store.get(session_id)

    async def rename(self, session_id: str, title: str) -> SessionInfo:
        return await self.store.rename(session_id, title)

    async def delete(self, session_id: str) -> None:
        await self.store.delete(session_id)
        self._waiting = [w for w in self._waiting if w.session_id != session_id]
        self._bytes = sum(w.size for w in self._waiting)

    async def check(self) -> None:
        """Down while messages wait: the store answers reads but writes fail (a full disk, a read-only
        database). A write is tried now, in the background, and waited for up to `CHECK_FLUSH_S`."""
        await self.store.check()
        if not self._waiting:
            return
        if self._flush_now is None or self._flush_now.done():
            self._flush_now = asyncio.get_running_loop().create_task(self._try_flush(), name="weblens session flush")
        await asyncio.wait({self._flush_now}, timeout=CHECK_FLUSH_S)  # never cancelled: a write may be underway
        if self._waiting:
            raise StorageError(f"writes fail: {self.waiting} message(s) wait in memory to be saved")

    async def open(self) -> None:
        await self.store.open()

    async def aclose(self) -> None:
        """Try once more to write what waits, then close; what still cannot be written is logged as lost."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
        if self._flush_now is not None:
            await asyncio.wait({self._flush_now})
        await self._try_flush()
        if self._waiting:
            log.warning("%d message(s) could not be saved before shutdown (storage failing)", self.waiting)
        await self.store.aclose()
