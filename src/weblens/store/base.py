"""What each kind of shared state must do, so a `Runtime` can keep it in this process or in Redis.

Every method is async: a fleet backend answers over the network. The policy state's
protocol (`PolicyState`: daily counters, benched keys) lives with the policy it serves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["AnswerRelay", "BreakerStore", "CacheStore", "Flight", "SlotStore"]

T = TypeVar("T")


@runtime_checkable
class CacheStore(Protocol):
    """JSON text by (namespace, key), forgotten after a time to live."""

    async def get(self, namespace: str, key: str) -> str | None: ...

    async def set(self, namespace: str, key: str, value: str, ttl_s: float) -> None: ...

    async def delete(self, namespace: str, key: str) -> None: ...

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

    async def depart(self, name: str, interval_s: float) -> float:
        """A request is leaving now: 0 when the last one left `interval_s` ago or more (this
        one's departure is recorded), else the seconds still to wait (nothing is recorded)."""
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


@runtime_checkable
class AnswerRelay(Protocol):
    """Answers being written, seen by every replica: claimed per session, their events
    readable anywhere, stoppable from anywhere. Without one, a server's own runs are all there is."""

    renew_every_s: float
    """How often a writer renews its claim (`publish` with no events) while nothing happens."""

    async def claim(self, session_id: str) -> str | None:
        """A token when no replica writes an answer in `session_id` (now the caller does), else None."""
        ...

    async def publish(self, session_id: str, token: str, events: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Add the answer's next events and renew the claim (no events: only renew it)."""
        ...

    async def finish(self, session_id: str, token: str, *, stopped: bool) -> None: ...

    async def running(self, session_ids: Sequence[str]) -> set[str]: ...

    async def follow(self, session_id: str, start: int = 0) -> AsyncIterator[tuple[str, dict[str, Any]]] | None:
        """The answer's events from the `start`-th on, as they come; None when none is being written."""
        ...

    async def stop(self, session_id: str, wait_s: float) -> bool | None:
        """Whether the answer ended stopped within `wait_s`; None when none is being written."""
        ...

    async def listen(self, stop: Callable[[str], None]) -> None:
        """Call `stop(session_id)` for each Stop asked of any replica, until cancelled."""
        ...
