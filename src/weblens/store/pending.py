"""Messages that could not be written yet: kept in memory and written when storage is back.

A full disk or a lost database must not lose an answer the user has just read. `add()`
that fails keeps the message (and every later one of that session, so order holds),
raises the `StorageError` for the caller to report, and retries: before the next write,
before a read of that session, and every `RETRY_S` in the background. Reads of a
session show its waiting messages after the stored ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from weblens.errors import NotFoundError
from weblens.store.sessions import SessionInfo, SessionStore, StorageError, StoredMessage

__all__ = ["RETRY_S", "PendingWrites"]

RETRY_S = 2.0
log = logging.getLogger("weblens.sessions")


@dataclass
class _Waiting:
    session_id: str
    message: StoredMessage


class PendingWrites(SessionStore):
    """Any `SessionStore`, with failed message writes kept and retried."""

    def __init__(self, store: SessionStore, *, retry_s: float = RETRY_S) -> None:
        self.store = store
        self.name = store.name
        self.retry_s = retry_s
        self._waiting: list[_Waiting] = []
        self._flushing = asyncio.Lock()
        self._retry: asyncio.Task[None] | None = None

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
                self._waiting.pop(0)
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

    async def add(self, session_id: str, message: StoredMessage) -> StoredMessage:
        await self._try_flush()
        if not any(w.session_id == session_id for w in self._waiting):
            try:
                return await self.store.add(session_id, message)
            except StorageError:
                self._waiting.append(_Waiting(session_id, message))
                self._schedule_retry()
                raise
        self._waiting.append(_Waiting(session_id, message))  # behind its session's waiting ones
        self._schedule_retry()
        raise StorageError(f"the session store is failing; {self.waiting} message(s) wait in memory to be saved")

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

    async def check(self) -> None:
        await self.store.check()

    async def open(self) -> None:
        await self.store.open()

    async def aclose(self) -> None:
        """Try once more to write what waits, then close; what still cannot be written is logged as lost."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
        await self._try_flush()
        if self._waiting:
            log.warning("%d message(s) could not be saved before shutdown (storage failing)", self.waiting)
        await self.store.aclose()
