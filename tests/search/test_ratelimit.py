"""Brave's free tier: requests are queued and spaced, not answered with 429."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import RateLimitedError, UpstreamError
from weblens.net.ratelimit import RateLimiter
from weblens.search import SearchRouter, search
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo

Make = Callable[..., Settings]
RATE = 20.0


def shared(settings: Settings) -> SearchRouter:
    """One router for several searches: what a Runtime gives its tools (one queue per upstream)."""
    return SearchRouter.from_settings(settings)


async def test_parallel_searches_are_spaced_without_429(make_settings: Make) -> None:
    settings_of = {"brave": {"requests_per_second": RATE}}
    async with FakeBrave(requests_per_second=RATE) as brave, shared(make_settings(brave, **settings_of)) as router:
        await search("warm-up: the first request of a process pays one-off setup", provider="brave", router=router)
        brave.reset()
        searches = (search(f"query {i}", provider="brave", router=router) for i in range(10))
        responses = await asyncio.gather(*searches)
    assert all(r.provider == "brave" and r.results for r in responses)
    assert brave.rejected == 0 and brave.count() == 10
    arrivals = sorted(r.received_at for r in brave.requests)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert min(gaps) >= 0.5 / RATE
    assert arrivals[-1] - arrivals[0] >= 9 * (1 / RATE) * 0.9


async def test_default_free_tier_rate_spaces_requests_a_second_apart() -> None:
    async with FakeBrave(requests_per_second=1.0) as brave:
        settings = Settings(brave=brave.settings()["brave"], cache={"enabled": False})
        assert settings.brave.requests_per_second == 1.0
        async with shared(settings) as router:
            responses = await asyncio.gather(*(search(f"q{i}", provider="brave", router=router) for i in range(3)))
    assert all(r.results for r in responses) and brave.count() == 3
    arrivals = sorted(r.received_at for r in brave.requests)
    assert arrivals[-1] - arrivals[0] >= 1.8


async def test_without_the_queue_the_fake_would_refuse(make_settings: Make) -> None:
    """The check above can fail: unspaced requests to the same fake get 429s."""
    async with FakeBrave(requests_per_second=RATE, latency_s=0.05) as brave:
        settings = make_settings(brave, brave={"requests_per_second": 10_000})
        async with shared(settings) as router:
            results = await asyncio.gather(
                *(search(f"q{i}", provider="brave", router=router) for i in range(10)), return_exceptions=True
            )
    assert brave.rejected > 0
    assert any(isinstance(r, Exception) for r in results)


async def test_retry_after_is_waited_out(make_settings: Make) -> None:
    async with FakeBrave() as brave:
        brave.rate_limit(retry_after=0.3)
        started = time.monotonic()
        response = await search("q", provider="brave", settings=make_settings(brave))
        elapsed = time.monotonic() - started
    assert response.provider == "brave" and response.failures == []
    assert brave.count() == 2 and elapsed >= 0.3


async def test_retry_after_beyond_the_bound_fails_at_once(make_settings: Make) -> None:
    async with FakeBrave() as brave:
        brave.rate_limit(retry_after=60)
        settings = make_settings(brave, search={"max_retry_after_s": 1})
        try:
            await search("q", provider="brave", settings=settings)
        except Exception as exc:
            assert getattr(exc, "retry_after_s", None) == 60
        else:
            raise AssertionError("expected a rate limit")
    assert brave.count() == 1


async def test_limiter_spaces_slots_and_defers() -> None:
    limiter = RateLimiter(10.0)
    waits = [await limiter.reserve() for _ in range(3)]
    assert waits[0] == 0 and 0.09 < waits[1] < 0.11 and 0.19 < waits[2] < 0.21
    await limiter.defer(1.0)
    assert await limiter.reserve() >= 0.99


async def test_slots_of_cancelled_searches_go_to_the_next_callers(make_settings: Make) -> None:
    # the fake allows a little more than the client's 4/s: slots are start times, and on a busy
    # machine two requests a slot apart can arrive a few milliseconds closer than that
    async with FakeBrave(requests_per_second=5.0) as brave:
        router = shared(make_settings(brave, brave={"requests_per_second": 4.0}))
        await search("warm-up", provider="brave", router=router)
        asks = (search(f"given up {i}", provider="brave", router=router) for i in range(8))
        waiting = [asyncio.ensure_future(ask) for ask in asks]
        await asyncio.sleep(0.1)
        for task in waiting:  # e.g. their tool timeouts fired while they queued
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        started = time.monotonic()
        response = await search("asked later", provider="brave", router=router)
        assert response.results and time.monotonic() - started < 1.5  # not behind eight abandoned slots (2 s)
        assert brave.rejected == 0
        await router.aclose()


async def test_ratelimit_reset_header_is_waited_out(make_settings: Make) -> None:
    async with FakeBrave() as brave:
        body = {"type": "ErrorResponse", "error": {"detail": "slow down"}}
        brave.fail(429, body, headers={"X-RateLimit-Reset": "0.3, 9000"})
        started = time.monotonic()
        response = await search("q", provider="brave", settings=make_settings(brave))
        elapsed = time.monotonic() - started
    assert response.results and brave.count() == 2 and elapsed >= 0.3


@pytest.mark.parametrize("value", ["soon", "Wed, 99 Foo 2026 25:61:00 GMT", "inf", "nan", "1e400"])
async def test_a_garbled_retry_after_is_still_a_rate_limit(make_settings: Make, value: str) -> None:
    """A 429 whose `Retry-After` is not a number or a date stays a rate limit with no wait named
    (not "an answer weblens could not read", not an endless wait), and the next provider answers."""
    error = {"status": 429, "code": "RATE_LIMITED", "detail": "Request rate limit exceeded"}
    body = {"type": "ErrorResponse", "error": error}
    async with FakeBrave() as brave, FakeDuckDuckGo() as ddg:
        brave.fail(429, body, headers={"Retry-After": value})
        response = await search("q", settings=make_settings(brave, ddg))
        brave.fail(429, body, headers={"Retry-After": value})
        with pytest.raises(RateLimitedError, match="rate limit exceeded") as caught:
            await search("q", provider="brave", settings=make_settings(brave))
    assert response.provider == "duckduckgo"
    assert [(f.provider, f.code, f.status) for f in response.failures] == [("brave", "rate_limited", 429)]
    assert caught.value.retry_after_s is None


async def test_a_garbled_http_date_on_a_503_is_still_the_503(make_settings: Make) -> None:
    async with FakeBrave() as brave:
        brave.fail(503, "down for maintenance", headers={"Retry-After": "Wed, 99 Foo 2026 25:61:00 GMT"})
        with pytest.raises(UpstreamError, match="HTTP 503: down for maintenance") as caught:
            await search("q", provider="brave", settings=make_settings(brave))
    assert caught.value.retry_after_s is None
