"""The cache and its single-flight, on each backend: local (SQLite, this process) and Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from weblens.cache import Cache
from weblens.errors import RateLimitedError
from weblens.store import Backends, backends_for
from weblens.testing.redis import RedisServer


@pytest.fixture
async def backends(redis_url: str | None) -> AsyncIterator[Backends]:
    built = backends_for(redis_url)
    yield built
    if built.redis is not None:
        await built.redis.aclose()


def _cache(backends: Backends) -> Cache:
    return Cache(None, store=backends.cache, flight=backends.flight)


async def test_entries_expire_and_namespaces_are_apart(backends: Backends) -> None:
    cache = _cache(backends)
    await cache.set("search", "k", {"results": [1, 2]}, ttl_s=60)
    await cache.set("search", "short", "x", ttl_s=0.05)
    assert await cache.get("search", "k") == {"results": [1, 2]}
    assert await cache.get("fetch", "k") is None
    await asyncio.sleep(0.1)
    assert await cache.get("search", "short") is None
    await cache.clear()
    assert await cache.get("search", "k") is None


async def test_identical_concurrent_misses_share_one_computation(backends: Backends) -> None:
    cache = _cache(backends)
    calls = 0

    async def compute() -> dict[str, int]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.05)
        return {"n": calls}

    outcomes = await asyncio.gather(*(cache.get_or_compute("s", "k", 60, compute) for _ in range(20)))
    assert calls == 1 and all(value == {"n": 1} for value, _ in outcomes)
    value, cached = await cache.get_or_compute("s", "k", 60, compute)
    assert cached and value == {"n": 1} and calls == 1
    _, cached = await cache.get_or_compute("s", "k", 60, compute, use_cache=False)
    assert not cached and calls == 2


async def test_a_failure_is_shared_and_not_cached(backends: Backends) -> None:
    cache = _cache(backends)
    calls = 0

    async def limited() -> int:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.05)
        raise RateLimitedError("slow down", retry_after_s=3)

    results = await asyncio.gather(*(cache.get_or_compute("s", "k", 60, limited) for _ in range(5)),
                                   return_exceptions=True)
    assert calls == 1 and all(isinstance(r, RateLimitedError) for r in results)
    assert await cache.get("s", "k") is None


# -- across replicas: only a shared backend can do these ------------------------------------


@pytest.fixture
async def two_replicas(redis_server: RedisServer) -> AsyncIterator[tuple[Cache, Cache]]:
    redis_server.flush()
    first, second = backends_for(redis_server.url), backends_for(redis_server.url)
    yield _cache(first), _cache(second)
    for built in (first, second):
        assert built.redis is not None
        await built.redis.aclose()


async def test_replicas_share_one_computation_and_its_result(two_replicas: tuple[Cache, Cache]) -> None:
    calls = 0

    async def compute() -> list[str]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.3)
        return ["answer"]

    # use_cache=False: the waiter must get the leader's result itself, not read it from the cache
    outcomes = await asyncio.gather(
        *(replica.get_or_compute("s", "q", 60, compute, use_cache=False) for replica in two_replicas for _ in range(3))
    )
    assert calls == 1 and [value for value, _ in outcomes] == [["answer"]] * 6


async def test_a_leaders_error_reaches_the_other_replica_typed(two_replicas: tuple[Cache, Cache]) -> None:
    first, second = two_replicas
    calls = 0

    async def limited() -> int:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.3)
        raise RateLimitedError("provider says slow down", retry_after_s=7)

    leader = asyncio.ensure_future(first.get_or_compute("s", "q", 60, limited))
    await asyncio.sleep(0.1)
    with pytest.raises(RateLimitedError) as waited:
        await second.get_or_compute("s", "q", 60, limited)
    with pytest.raises(RateLimitedError):
        await leader
    assert calls == 1 and waited.value.retry_after_s == 7 and waited.value.message == "provider says slow down"


async def test_a_waiter_takes_over_when_the_leader_gives_up(two_replicas: tuple[Cache, Cache]) -> None:
    first, second = two_replicas
    started = asyncio.Event()

    async def slow() -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    async def quick() -> str:
        return "taken over"

    leader = asyncio.ensure_future(first.get_or_compute("s", "q", 60, slow))
    await asyncio.wait_for(started.wait(), 5)
    waiter = asyncio.ensure_future(second.get_or_compute("s", "q", 60, quick))
    await asyncio.sleep(0.3)
    assert not waiter.done()  # it waits for the leader's result
    leader.cancel()
    value, _ = await asyncio.wait_for(waiter, 5)
    assert value == "taken over"
