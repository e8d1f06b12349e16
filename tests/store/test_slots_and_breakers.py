"""Rate-limit slots, circuit breakers and policy state, on each backend (local and Redis)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from weblens import Settings
from weblens.net.ratelimit import RateLimiter
from weblens.runtime import Runtime
from weblens.search.breaker import CircuitBreaker
from weblens.store import Backends, backends_for
from weblens.testing.redis import RedisServer


@pytest.fixture
async def backends(redis_url: str | None) -> AsyncIterator[Backends]:
    built = backends_for(redis_url)
    yield built
    if built.redis is not None:
        await built.redis.aclose()


async def test_slots_are_spaced_and_a_retry_after_moves_them_all(backends: Backends) -> None:
    slots = backends.slots
    starts = [(await slots.claim("brave", 0.1))[0] for _ in range(3)]
    assert [b - a for a, b in itertools.pairwise(starts)] == pytest.approx([0.1, 0.1], abs=1e-4)
    await RateLimiter(10.0, slots=slots, name="brave").defer(5.0)
    assert (await slots.claim("brave", 0.1))[1] > 4  # everyone waits out the upstream's Retry-After
    assert (await slots.claim("tavily", 0.1))[1] < 1  # upstreams are apart


async def test_slots_are_spaced_by_the_rate_plus_the_margin_set(
    redis_url: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # at exactly 1/rate, a request leaving a little late makes the next arrive under the limit
    monkeypatch.setenv("WEBLENS_SEARCH_RATE_MARGIN_MS", "40")
    async with Runtime(Settings(redis_url=redis_url, data_dir=tmp_path)) as runtime:
        limiter = runtime.limiters.get("brave https://api.search.brave.com", 2.0, max_wait_s=10.0)
        starts = [(await limiter.slots.claim(limiter.name, limiter.interval))[0] for _ in range(4)]
        fast = runtime.limiters.get("serper https://google.serper.dev", 100.0, max_wait_s=10.0)
    assert [b - a for a, b in itertools.pairwise(starts)] == pytest.approx([0.54] * 3, abs=1e-4)
    assert fast.interval == pytest.approx(0.011)  # at most a tenth of the spacing: 10 ms, not 40


async def test_a_departure_keeps_the_next_one_a_spacing_behind_it(backends: Backends) -> None:
    # a request whose slot came late (a stalled process) pushes the next back, on any replica
    slots = backends.slots
    assert await slots.depart("brave", 0.2) == 0
    assert await slots.depart("brave", 0.2) == pytest.approx(0.2, abs=0.05)  # not recorded: wait, then ask again
    await asyncio.sleep(0.1)
    assert await slots.depart("brave", 0.2) == pytest.approx(0.1, abs=0.05)
    await asyncio.sleep(0.12)
    assert await slots.depart("brave", 0.2) == 0
    assert await slots.depart("tavily", 0.2) == 0  # upstreams are apart


async def test_a_slot_given_up_goes_to_the_next_caller(backends: Backends) -> None:
    first, _ = await backends.slots.claim("brave", 2.0)
    limiter = RateLimiter(0.5, slots=backends.slots, name="brave")
    gave_up = asyncio.ensure_future(limiter.acquire())  # its slot is 2 s ahead
    await asyncio.sleep(0.05)
    gave_up.cancel()
    await asyncio.gather(gave_up, return_exceptions=True)
    start, _ = await backends.slots.claim("brave", 2.0)
    assert start == pytest.approx(first + 2.0, abs=1e-4)  # the freed slot, not one 4 s ahead


async def test_breaker_opens_after_failures_in_a_row_and_closes_after_cooldown(backends: Backends) -> None:
    breaker = CircuitBreaker(2, 0.3, store=backends.breakers)
    await breaker.failed("brave", "upstream_error", "HTTP 500")
    assert await breaker.open_for("brave") == 0
    await breaker.failed("brave", "upstream_error", "HTTP 502")
    assert 0.1 < await breaker.open_for("brave") <= 0.3
    assert await breaker.last_failure("brave") == ("upstream_error", "HTTP 502")
    await asyncio.sleep(0.35)
    assert await breaker.open_for("brave") == 0  # half-open: one trial
    await breaker.succeeded("brave")
    assert await breaker.last_failure("brave") == ("", "")


async def test_policy_counters_expire_and_benches_keep_the_longest(backends: Backends) -> None:
    state = backends.policy_state
    now = time.time()
    assert [await state.increment("brave:day", expires_at=now + 60) for _ in range(3)] == [1, 2, 3]
    assert await state.increment("short", expires_at=now + 0.1) == 1
    await asyncio.sleep(0.2)
    assert await state.increment("short", expires_at=now + 60) == 1
    await state.bench("key-a", until=now + 60, reason="quota")
    await state.bench("key-a", until=now + 5, reason="refused")  # shorter: kept as it was
    bench = await state.benched("key-a")
    assert bench is not None and bench.reason == "quota" and abs(bench.until - (now + 60)) < 0.01
    assert await state.benched("key-b") is None


# -- across replicas ----------------------------------------------------------------------------


async def test_replicas_share_one_spacing_and_one_breaker(redis_server: RedisServer) -> None:
    redis_server.flush()
    first, second = backends_for(redis_server.url), backends_for(redis_server.url)
    try:
        starts = [(await (first, second)[i % 2].slots.claim("brave", 0.5))[0] for i in range(4)]
        assert all(b - a == pytest.approx(0.5, abs=1e-4) for a, b in itertools.pairwise(starts))
        await CircuitBreaker(1, 30, store=first.breakers).failed("brave", "not_configured", "HTTP 401")
        assert await CircuitBreaker(1, 30, store=second.breakers).open_for("brave") > 29
    finally:
        for built in (first, second):
            assert built.redis is not None
            await built.redis.aclose()
