"""The SQLite TTL cache and single-flight that search and fetch share (one process)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from weblens.cache import Cache, SingleFlight, cache_key


async def test_values_survive_a_new_instance_until_they_expire(tmp_path: Path) -> None:
    path = tmp_path / "data" / "cache.sqlite3"
    await Cache(path).set("search", "k", {"results": [1, 2]}, ttl_s=60)
    await Cache(path).set("search", "short", "x", ttl_s=0.05)
    again = Cache(path)
    assert await again.get("search", "k") == {"results": [1, 2]}
    assert await again.get("fetch", "k") is None  # namespaces are separate
    time.sleep(0.06)
    assert await again.get("search", "short") is None
    assert await again.purge_expired() == 1


async def test_expired_entries_are_deleted_as_new_ones_are_written(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache.sqlite3")
    for i in range(20):  # e.g. pages read once long ago: never asked for again
        await cache.set("fetch", f"old{i}", "x" * 1000, ttl_s=0.01)
    time.sleep(0.05)
    for i in range(500):
        await cache.set("search", f"new{i}", i, ttl_s=3600)
    assert await cache.purge_expired() == 0  # the old rows went already, without anyone calling purge
    assert await cache.get("search", "new499") == 499


async def test_disabled_cache_stores_nothing() -> None:
    cache = Cache(enabled=False)
    await cache.set("n", "k", 1, ttl_s=60)
    assert await cache.get("n", "k") is None


def test_cache_key_ignores_dict_order() -> None:
    assert cache_key({"q": "a", "n": 5}) == cache_key({"n": 5, "q": "a"})
    assert cache_key({"q": "a"}) != cache_key({"q": "b"})


async def test_failures_are_shared_but_not_cached() -> None:
    flight = SingleFlight()
    cache = Cache()
    calls = 0

    async def boom() -> int:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.02)
        raise RuntimeError("upstream down")

    calls_at_once = (cache.get_or_compute("s", "k", 60, boom) for _ in range(5))
    results = await asyncio.gather(*calls_at_once, return_exceptions=True)
    assert calls == 1 and all(isinstance(r, RuntimeError) for r in results)
    assert await cache.get("s", "k") is None
    with pytest.raises(RuntimeError):
        await flight.do("k", boom)
    assert len(flight) == 0

