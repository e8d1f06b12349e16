"""Replicas (one `Runtime` each) given one `WEBLENS_REDIS_URL` act as one client of a provider:
one upstream call per distinct query, one rate limit; and a lost Redis is survived, and said."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from weblens import Settings
from weblens.runtime import Runtime
from weblens.search.models import SearchRequest
from weblens.testing.providers import FakeBrave
from weblens.testing.redis import RedisServer

RATE = 2.0  # the fake refuses arrivals under half its interval apart: 0.25 s of slack on a loaded machine


def _settings(brave: FakeBrave, redis_url: str | None, tmp_path: Path, name: str) -> Settings:
    return Settings(
        brave={"base_url": brave.url(), "api_key": brave.api_key, "requests_per_second": RATE},
        search={"provider": ["brave"]},
        redis_url=redis_url,
        data_dir=tmp_path / name,  # each replica its own disk, as on separate machines
    )


@pytest.fixture
async def brave() -> AsyncIterator[FakeBrave]:
    async with FakeBrave(requests_per_second=RATE, latency_s=0.05) as fake:
        yield fake


async def test_replicas_sharing_redis_ask_once_per_query_and_never_too_fast(
    brave: FakeBrave, redis_server: RedisServer, tmp_path: Path
) -> None:
    redis_server.flush()
    replicas = [Runtime(_settings(brave, redis_server.url, tmp_path, f"r{i}")) for i in range(3)]
    try:
        queries = [f"query {i % 4}" for i in range(12)]  # 4 distinct, each asked 3 times
        answers = await asyncio.gather(
            *(replicas[i % 3].router.search(SearchRequest(query=q)) for i, q in enumerate(queries))
        )
    finally:
        for replica in replicas:
            await replica.aclose()
    assert all(answer.results for answer in answers)
    assert brave.count() == 4 and brave.rejected == 0


async def test_replicas_without_redis_each_keep_their_own_limit(brave: FakeBrave, tmp_path: Path) -> None:
    # the contrast that makes the test above mean something: per-process buckets earn 429s
    replicas = [Runtime(_settings(brave, None, tmp_path, f"r{i}")) for i in range(3)]
    try:
        await asyncio.gather(
            *(replicas[i % 3].router.search(SearchRequest(query=f"q{i}")) for i in range(6)),
            return_exceptions=True,
        )
    finally:
        for replica in replicas:
            await replica.aclose()
    assert brave.rejected > 0


async def test_a_lost_redis_is_reported_and_searches_still_answer(
    brave: FakeBrave, own_redis_server: RedisServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = own_redis_server
    runtime = Runtime(_settings(brave, server.url, tmp_path, "r"))
    try:
        await runtime.readiness_checks["redis"]()
        await runtime.router.search(SearchRequest(query="before"))
        server.stop()
        caplog.set_level(logging.WARNING)
        began = time.monotonic()
        answer = await runtime.router.search(SearchRequest(query="during"))
        second = await runtime.router.search(SearchRequest(query="during, again"))
        assert answer.results and second.results and time.monotonic() - began < 5  # no hang
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len([w for w in warnings if "unreachable" in w]) == 1  # said once, not per call
        assert "per process" in warnings[0] and server.url.split("//")[1] in warnings[0]
        with pytest.raises(Exception, match="unreachable"):
            await asyncio.wait_for(runtime.readiness_checks["redis"](), 5)
        server.start()  # same port
        await runtime.readiness_checks["redis"]()
    finally:
        await runtime.aclose()


async def test_a_local_runtime_has_no_redis_check(tmp_path: Path) -> None:
    async with Runtime(Settings(data_dir=tmp_path)) as runtime:
        assert list(runtime.readiness_checks) == ["sqlite"]  # the sessions file only: no Redis


async def test_redis_lost_and_back_in_the_middle_of_a_rate_limit_window_never_goes_too_fast(
    brave: FakeBrave, own_redis_server: RedisServer, tmp_path: Path
) -> None:
    """Killed right after a call, then back empty while this process still has slots queued:
    the calls around each change keep their distance, and every search answers."""
    server = own_redis_server
    runtime = Runtime(_settings(brave, server.url, tmp_path, "r"))
    queries = (f"query {n}" for n in range(100))

    async def ask() -> None:
        answer = await runtime.router.search(SearchRequest(query=next(queries)))
        assert answer.results

    try:
        await ask()
        server.stop()  # right after a call through Redis: its slot is fresh
        during = [asyncio.create_task(ask()) for _ in range(7)]  # queued here, 0.5 s apart: 3.5 s ahead
        server.start()  # same port, no memory of the window
        assert runtime.backends.redis is not None
        await asyncio.sleep(runtime.backends.redis.retry_s + 0.2)  # the next calls go to Redis again
        after = [asyncio.create_task(ask()) for _ in range(2)]
        await asyncio.gather(*during, *after)
    finally:
        await runtime.aclose()
    assert brave.rejected == 0 and brave.count() == 10
