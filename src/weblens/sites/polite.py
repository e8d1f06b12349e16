"""Politeness per host: at most N requests in flight, starts spaced by `Crawl-delay`, and a
host that answers 429 slowed down for the rest of the walk."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Protocol

__all__ = ["MAX_BACKOFF_S", "Gate", "GateFactory", "HostGate"]

MAX_BACKOFF_S = 60.0
"""The longest a `Retry-After` or `Crawl-delay` is waited; longer ones are capped at this."""


class Gate(Protocol):
    """One host's turnstile: `HostGate` in this process, or one a fleet shares (crawl jobs on Redis)."""

    def slot(self) -> contextlib.AbstractAsyncContextManager[None]: ...

    async def slow_down(self, retry_after_s: float | None) -> float: ...


GateFactory = Callable[[str, int, float], Gate]
"""(host, requests in flight at most, seconds between starts) -> that host's gate."""


class HostGate:
    """One host's turnstile in this process."""

    def __init__(self, concurrency: int, interval_s: float = 0.0) -> None:
        self._slots = asyncio.Semaphore(concurrency)
        self.interval_s = min(max(0.0, interval_s), MAX_BACKOFF_S)
        self._next_at = 0.0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the host's slots, starting no sooner than the spacing allows."""
        async with self._slots:
            loop = asyncio.get_running_loop()
            now = loop.time()
            start = max(now, self._next_at)
            self._next_at = start + self.interval_s
            if start > now:
                await asyncio.sleep(start - now)
            yield

    async def slow_down(self, retry_after_s: float | None) -> float:
        """The host said 429: wait what it asked (or a second) and space requests twice as far.
        Returns the wait."""
        wait = min(MAX_BACKOFF_S, retry_after_s if retry_after_s is not None else 1.0)
        self.interval_s = min(MAX_BACKOFF_S, max(self.interval_s * 2, 0.5))
        self._next_at = max(self._next_at, asyncio.get_running_loop().time() + wait)
        return wait
