"""Per-upstream rate limits that queue requests instead of failing them.

Brave's free tier allows one request a second: ten parallel searches should arrive a
second apart and all succeed, not nine 429s. A `RateLimiter` hands out start times
spaced `1/rate` apart; when the upstream still says "slow down" (`Retry-After`,
`X-RateLimit-Reset`), the limiter moves everyone's next slot back and the call is tried
again once, if the wait is within the bound.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from weblens.errors import RateLimitedError

__all__ = ["RateLimiter", "RateLimiters"]

T = TypeVar("T")


class RateLimiter:
    """Spaces calls `1/rate` seconds apart, in arrival order; works across event loops."""

    def __init__(self, rate_per_s: float | None, *, max_wait_s: float = 10.0, retries: int = 1) -> None:
        """`rate_per_s=None`: no spacing, but `Retry-After` answers are still waited out."""
        if rate_per_s is not None and rate_per_s <= 0:
            raise ValueError("rate_per_s must be positive")
        self.interval = 1.0 / rate_per_s if rate_per_s else 0.0
        self.max_wait_s = max_wait_s
        self.retries = retries
        self._next = 0.0
        self._not_before = 0.0
        self._freed: list[float] = []
        """Future slots given back by callers cancelled while waiting (a heap of start times)."""

    def reserve(self) -> float:
        """Claim the next free slot; returns seconds to wait for it."""
        start, now = self._claim()
        return start - now

    def _claim(self) -> tuple[float, float]:
        """(the slot's start, now)."""
        now = time.monotonic()
        while self._freed:
            start = heapq.heappop(self._freed)
            if start >= max(now, self._not_before):  # still ahead and still spaced: reuse it
                return start, now
        start = max(now, self._next)
        self._next = start + self.interval
        return start, now

    def defer(self, seconds: float) -> None:
        """The upstream asked for a pause: no slot starts before `seconds` from now."""
        self._not_before = max(self._not_before, time.monotonic() + seconds)
        self._next = max(self._next, self._not_before)

    async def acquire(self) -> None:
        start, now = self._claim()
        wait = start - now
        if wait > 0:
            try:
                await asyncio.sleep(wait)
            except asyncio.CancelledError:
                # a caller that gave up (a tool timeout) must not keep its slot: later callers get it
                heapq.heappush(self._freed, start)
                raise

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run `work` in its slot; a rate-limit answer with a bounded wait is waited out and retried."""
        attempt = 0
        while True:
            await self.acquire()
            try:
                return await work()
            except RateLimitedError as exc:
                wait = exc.retry_after_s
                if attempt >= self.retries or wait is None or wait > self.max_wait_s:
                    raise
                attempt += 1
                self.defer(wait)


class RateLimiters:
    """The limiters of one runtime, one per upstream, so every caller of an upstream shares its queue."""

    def __init__(self) -> None:
        self._limiters: dict[tuple[str, float | None, float], RateLimiter] = {}

    def get(self, upstream: str, rate_per_s: float | None, *, max_wait_s: float) -> RateLimiter:
        """The limiter for one upstream (e.g. "brave https://api.search.brave.com")."""
        key = (upstream, rate_per_s, max_wait_s)
        limiter = self._limiters.get(key)
        if limiter is None:
            limiter = self._limiters[key] = RateLimiter(rate_per_s, max_wait_s=max_wait_s)
        return limiter
