"""Per-upstream rate limits that queue requests instead of failing them.

Brave's free tier allows one request a second: ten parallel searches should arrive a
second apart and all succeed, not nine 429s. A `RateLimiter` hands out start times
spaced `1/rate` apart; when the upstream still says "slow down" (`Retry-After`,
`X-RateLimit-Reset`), the limiter moves everyone's next slot back and the call is tried
again once, if the wait is within the bound. The slots live in a `SlotStore`: this
process's memory by default, Redis when a fleet of replicas shares one account's limit.

A slot is a plan: a request that leaves late (a busy event loop, a process waiting for a
core) would make the next one, on time, arrive closer than the limit. So each request, when
its slot comes, also records its departure in the store, and waits longer if the previous
one left less than the spacing ago; and the spacing is `1/rate` plus a margin for what
happens between departing and arriving. A margin of 0 turns both off (the plan alone, spaced
exactly at the limit): that way three replicas drew 429s now and then (bench/fleet.py
measures both).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from weblens.errors import RateLimitedError
from weblens.store.base import SlotStore
from weblens.store.local import LocalSlots

__all__ = ["RateLimiter", "RateLimiters"]

T = TypeVar("T")

MAX_MARGIN_SHARE = 0.1
"""The margin is at most this share of the spacing `1/rate`."""


class RateLimiter:
    """Spaces calls to one upstream `1/rate` seconds apart, in arrival order."""

    def __init__(
        self,
        rate_per_s: float | None,
        *,
        max_wait_s: float = 10.0,
        retries: int = 1,
        slots: SlotStore | None = None,
        name: str = "",
        margin_s: float = 0.0,
    ) -> None:
        """`rate_per_s=None`: no spacing, but `Retry-After` answers are still waited out;
        `margin_s` is added to each spacing, up to a tenth of it (see the module docstring)."""
        if rate_per_s is not None and rate_per_s <= 0:
            raise ValueError("rate_per_s must be positive")
        if margin_s < 0:
            raise ValueError("margin_s must not be negative")
        # at most a tenth of the spacing: at 10 000/s a fixed 50 ms would be the limit itself
        self.margin_s = min(margin_s, MAX_MARGIN_SHARE / rate_per_s) if rate_per_s else 0.0
        self.interval = 1.0 / rate_per_s + self.margin_s if rate_per_s else 0.0
        self.max_wait_s = max_wait_s
        self.retries = retries
        self.name = name
        self.slots: SlotStore = slots if slots is not None else LocalSlots()

    async def reserve(self) -> float:
        """Claim the next free slot; returns seconds to wait for it."""
        _, wait = await self.slots.claim(self.name, self.interval)
        return wait

    async def defer(self, seconds: float) -> None:
        """The upstream asked for a pause: no slot starts before `seconds` from now."""
        await self.slots.defer(self.name, seconds)

    async def acquire(self) -> None:
        start, wait = await self.slots.claim(self.name, self.interval)
        if wait > 0:
            try:
                await asyncio.sleep(wait)
            except asyncio.CancelledError:
                # a caller that gave up (a tool timeout) must not keep its slot: later callers get it
                await asyncio.shield(self.slots.release(self.name, start))
                raise
        if self.interval and self.margin_s:
            while (late := await self.slots.depart(self.name, self.interval)) > 0:
                await asyncio.sleep(late)  # the previous request left late: keep the spacing from it

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
                await self.defer(wait)


class RateLimiters:
    """The limiters of one runtime, one per upstream, so every caller of an upstream shares its queue."""

    def __init__(self, slots: SlotStore | None = None, *, margin_s: float = 0.0) -> None:
        self.slots: SlotStore = slots if slots is not None else LocalSlots()
        self.margin_s = margin_s
        self._limiters: dict[tuple[str, float | None, float], RateLimiter] = {}

    def get(self, upstream: str, rate_per_s: float | None, *, max_wait_s: float) -> RateLimiter:
        """The limiter for one upstream (e.g. "brave https://api.search.brave.com")."""
        key = (upstream, rate_per_s, max_wait_s)
        limiter = self._limiters.get(key)
        if limiter is None:
            limiter = self._limiters[key] = RateLimiter(
                rate_per_s, max_wait_s=max_wait_s, slots=self.slots, name=upstream, margin_s=self.margin_s
            )
        return limiter
