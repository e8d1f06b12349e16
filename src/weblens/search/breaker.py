"""A circuit breaker per provider: after N failures in a row, skip it for a cool-down.

A provider that is down or refusing our key would otherwise cost every search its
full timeout before the fallback answers. The counts live in a `BreakerStore`, so a
fleet of replicas can share them.
"""

from __future__ import annotations

from weblens.store.base import BreakerStore
from weblens.store.local import LocalBreakers

__all__ = ["CircuitBreaker"]


class CircuitBreaker:
    """Closed → open after `failures` in a row → one trial after `cooldown_s` (half-open)."""

    def __init__(self, failures: int, cooldown_s: float, *, store: BreakerStore | None = None) -> None:
        self.threshold = failures
        self.cooldown_s = cooldown_s
        self.store: BreakerStore = store if store is not None else LocalBreakers()

    async def open_for(self, name: str) -> float:
        """Seconds left in `name`'s cool-down; 0 when it may be tried."""
        return await self.store.open_for(name)

    async def last_failure(self, name: str) -> tuple[str, str]:
        return await self.store.last_failure(name)

    async def succeeded(self, name: str) -> None:
        await self.store.succeeded(name)

    async def failed(self, name: str, code: str, message: str) -> None:
        await self.store.failed(name, code, message, threshold=self.threshold, cooldown_s=self.cooldown_s)
