"""A provider wrapped in its upstream's rate limiter: same interface, requests queued."""

from __future__ import annotations

from weblens.net.ratelimit import RateLimiter
from weblens.search.models import ProviderAnswer, SearchKind, SearchRequest
from weblens.search.providers.base import SearchProvider

__all__ = ["RateLimitedProvider"]


class RateLimitedProvider:
    """Waits for a slot before each search; waits out a bounded `Retry-After` and tries once more."""

    def __init__(self, inner: SearchProvider, limiter: RateLimiter) -> None:
        self.inner = inner
        self.limiter = limiter
        self.name: str = inner.name
        self.requires: str | None = inner.requires
        self.kinds: frozenset[SearchKind] = inner.kinds

    def __repr__(self) -> str:
        return f"<RateLimitedProvider {self.inner!r} every {self.limiter.interval:g} s>"

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        return self.inner.native_params(request)

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        return await self.limiter.run(lambda: self.inner.search(request))
