from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from weblens.config import Settings
from weblens.search import SearchRouter, search
from weblens.testing.providers import FakeDuckDuckGo, FakeSearxng

Make = Callable[..., Settings]


def _cached(make: Make, *fakes: object, tmp: Path) -> Settings:
    return make(*fakes, cache={"enabled": True, "path": tmp / "cache.sqlite3"})


async def test_second_search_is_a_cache_hit(ddg: FakeDuckDuckGo, make_settings: Make, tmp_path: Path) -> None:
    settings = _cached(make_settings, ddg, tmp=tmp_path)
    first = await search("Lantern  Festival", settings=settings)
    second = await search("lantern festival", settings=settings)
    assert not first.cached and second.cached
    assert second.results == first.results and ddg.count() == 1


async def test_cache_survives_the_process_via_sqlite(ddg: FakeDuckDuckGo, make_settings: Make, tmp_path: Path) -> None:
    await search("q", settings=_cached(make_settings, ddg, tmp=tmp_path))
    again = await search("q", settings=_cached(make_settings, ddg, tmp=tmp_path))  # new settings: new router
    assert again.cached and ddg.count() == 1
    assert (tmp_path / "cache.sqlite3").is_file()


async def test_no_cache_asks_upstream(ddg: FakeDuckDuckGo, make_settings: Make, tmp_path: Path) -> None:
    settings = _cached(make_settings, ddg, tmp=tmp_path)
    await search("q", settings=settings)
    fresh = await search("q", settings=settings, cache=False)
    assert not fresh.cached and ddg.count() == 2


async def test_key_ignores_which_provider_answered(
    ddg: FakeDuckDuckGo, searxng: FakeSearxng, make_settings: Make, tmp_path: Path
) -> None:
    settings = _cached(make_settings, ddg, searxng, tmp=tmp_path)
    searxng.fail(500, {"error": "search error"})
    assert (await search("q", settings=settings)).provider == "duckduckgo"
    hit = await search("q", settings=settings)
    assert hit.cached and searxng.count() == 1


async def test_identical_concurrent_searches_share_one_upstream_call(make_settings: Make, tmp_path: Path) -> None:
    async with FakeDuckDuckGo(latency_s=0.2) as ddg:
        settings = _cached(make_settings, ddg, tmp=tmp_path)
        async with SearchRouter.from_settings(settings) as router:
            responses = await asyncio.gather(*(search("same", router=router) for _ in range(10)))
    assert ddg.count() == 1
    assert all(r.results == responses[0].results for r in responses)


async def test_failures_are_not_cached(ddg: FakeDuckDuckGo, make_settings: Make, tmp_path: Path) -> None:
    settings = _cached(make_settings, ddg, tmp=tmp_path)
    ddg.anomaly()
    try:
        await search("q", settings=settings)
    except Exception as exc:
        assert type(exc).__name__ == "RateLimitedError"
    else:
        raise AssertionError("the anomaly page should be a rate limit")
    assert (await search("q", settings=settings)).results


async def test_a_cancelled_caller_does_not_cancel_the_others(make_settings: Make, tmp_path: Path) -> None:
    async with FakeDuckDuckGo(latency_s=0.3) as ddg:
        settings = _cached(make_settings, ddg, tmp=tmp_path)
        first = asyncio.create_task(search("shared", settings=settings))
        await asyncio.sleep(0.1)  # `first` is waiting on the upstream; the next one joins it
        second = asyncio.create_task(search("shared", settings=settings))
        await asyncio.sleep(0.05)
        first.cancel()
        response = await second
    assert first.cancelled()
    assert response.results and response.provider == "duckduckgo"
