"""A provider under a daily request cap: same interface, and a typed refusal once it is spent.

`policy.daily_requests = {brave = 100}` lets this process send Brave at most 100 searches
per UTC day. The next one is refused before any request with `MaxUsesExceededError`
(code `max_uses_exceeded`), which says when the cap resets; the router then asks the next
provider, and the model reads the refusal like any other failure. The counters live in
the runtime's `PolicyState`, so a shared state gives a fleet one cap.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from weblens.errors import MaxUsesExceededError
from weblens.policy.state import PolicyState
from weblens.search.models import ProviderAnswer, SearchKind, SearchRequest
from weblens.search.providers.base import SearchProvider

__all__ = ["DailyLimitedProvider", "next_utc_midnight"]


def next_utc_midnight(now: float) -> float:
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    return dt.datetime.combine(today + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp()


def _in(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{max(1, rest // 60)} min"


class DailyLimitedProvider:
    """Counts each search sent to `inner` in the UTC day; past `limit` it refuses, typed."""

    def __init__(
        self, inner: SearchProvider, limit: int, state: PolicyState, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.inner = inner
        self.limit = limit
        self._state = state
        self._clock = clock
        self.name: str = inner.name
        self.requires: str | None = inner.requires
        self.kinds: frozenset[SearchKind] = inner.kinds

    def __repr__(self) -> str:
        return f"<DailyLimitedProvider {self.inner!r} {self.limit}/day>"

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        return self.inner.native_params(request)

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        now = self._clock()
        resets = next_utc_midnight(now)
        day = dt.datetime.fromtimestamp(now, dt.UTC).date().isoformat()
        used = await self._state.increment(f"daily:{self.name}:{day}", expires_at=resets)
        if used > self.limit:
            raise MaxUsesExceededError(
                f"{self.name}'s daily limit of {self.limit} requests (policy.daily_requests) is spent; "
                f"it resets at 00:00 UTC, in {_in(resets - now)}",
                retryable=False,
                retry_after_s=resets - now,
                details={"provider": self.name, "limit": self.limit, "period": "day"},
            )
        return await self.inner.search(request)
