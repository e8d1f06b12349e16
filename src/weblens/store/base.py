"""What each kind of shared state must do, so a `Runtime` can keep it in this process or in Redis.

Every method is async: a fleet backend answers over the network. The policy state's
protocol (`PolicyState`: daily counters, benched keys) lives with the policy it serves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["BreakerStore", "CacheStore", "Flight", "SlotStore"]

T = TypeVar("T")


@runtime_checkable
class CacheStore(Protocol):
    """JSON text by (namespace, key), forgotten after a time to live."""

    async def get(self, namespace: str, key: str) -> str | None: ...

    async def set(self, namespace: str, key: str, value: str, ttl_s: float) -> None: ...

    async def clear(self) -> None: ...

    async def purge_expired(self) -> int:
        """Delete what has expired (a store that expires by itself returns 0)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Flight(Protocol):
    """Identical concurrent calls share one run of the work and its outcome."""

    async def do(self, key: str, work: Callable[[], Awaitable[T]]) -> T: ...


@runtime_checkable
class SlotStore(Protocol):
    """Start times spaced `interval_s` apart per upstream: a token bucket of size one that a
    `Retry-After` answer empties for everyone sharing the store."""

    async def claim(self, name: str, interval_s: float) -> tuple[float, float]:
        """Take the next free slot: (its start on the store's clock, seconds to wait for it)."""
        ...

    async def release(self, name: str, start: float) -> None:
        """Give back a slot not used (its caller gave up while waiting)."""
        ...

    async def defer(self, name: str, seconds: float) -> None:
        """The upstream asked for a pause: no slot of `name` starts before `seconds` from now."""
        ...


@runtime_checkable
class BreakerStore(Protocol):
    """Failures in a row per provider, and the cool-down they earned."""

    async def open_for(self, name: str) -> float:
        """Seconds left in `name`'s cool-down; 0 when it may be tried."""
        ...

    async def last_failure(self, name: str) -> tuple[str, str]:
        """(code, message) of the last failure, empty when none is remembered."""
        ...

    async def succeeded(self, name: str) -> None: ...

    async def failed(self, name: str, code: str, message: str, *, threshold: int, cooldown_s: float) -> None:
        """Count a failure; the `threshold`-th in a row opens the breaker for `cooldown_s`."""
        ...

