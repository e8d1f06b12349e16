"""Where operator-policy state lives: daily request counters and benched API keys.

The `Runtime` owns one `PolicyState`. `LocalPolicyState` keeps it in this process; a
fleet of workers needs a shared one (Redis: `INCR` + `EXPIREAT` for counters, `SET … PXAT`
for benches), which only has to implement the three methods of `PolicyState`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Bench", "LocalPolicyState", "PolicyState"]


@dataclass(frozen=True)
class Bench:
    """A key kept out of use until `until` (epoch seconds), and why."""

    until: float
    reason: str


@runtime_checkable
class PolicyState(Protocol):
    """Counters that expire and names that are benched for a while; times are epoch seconds."""

    async def increment(self, key: str, *, expires_at: float) -> int:
        """Add one to counter `key` (forgotten at `expires_at`) and return its new value."""
        ...

    async def bench(self, key: str, *, until: float, reason: str) -> None:
        """Keep `key` out of use until `until`."""
        ...

    async def benched(self, key: str) -> Bench | None:
        """The bench `key` is on, or None when it may be used."""
        ...


class LocalPolicyState:
    """`PolicyState` in this process's memory: right for one process, lost on restart."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._counters: dict[str, tuple[int, float]] = {}
        self._benches: dict[str, Bench] = {}

    async def increment(self, key: str, *, expires_at: float) -> int:
        now = self._clock()
        self._forget_expired(now)
        value, _ = self._counters.get(key, (0, expires_at))
        self._counters[key] = (value + 1, expires_at)
        return value + 1

    async def bench(self, key: str, *, until: float, reason: str) -> None:
        current = self._benches.get(key)
        if current is None or current.until < until:
            self._benches[key] = Bench(until, reason)

    async def benched(self, key: str) -> Bench | None:
        bench = self._benches.get(key)
        if bench is not None and bench.until <= self._clock():
            del self._benches[key]
            return None
        return bench

    def _forget_expired(self, now: float) -> None:
        expired = [key for key, (_, expires_at) in self._counters.items() if expires_at <= now]
        for key in expired:
            del self._counters[key]
