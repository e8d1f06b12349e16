"""Crawl jobs shared by replicas on a real redis-server: each page read once, at one polite rate,
and a job that outlives the replica working it."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from weblens.app.server import create_app
from weblens.config import Settings
from weblens.sites.jobs.local import READING
from weblens.testing import ServedApp
from weblens.testing.redis import RedisServer
from weblens.testing.sites import DocsSite, LinkFarm

from .conftest import all_results, finished, finished_job, until


def replica_settings(site: DocsSite | LinkFarm, redis: RedisServer, data: Path, **crawl: Any) -> Settings:
    return Settings(
        data_dir=data, redis_url=redis.url, cache={"enabled": False},
        fetch={"allowed_hosts": [site.host], "workers": 1}, crawl=crawl,
    )  # fmt: skip


@pytest.fixture
def fleet(redis_server: RedisServer, tmp_path: Path) -> Iterator[Callable[..., list[ServedApp]]]:
    redis_server.flush()
    started: list[ServedApp] = []

    def start(site: DocsSite | LinkFarm, count: int, **crawl: Any) -> list[ServedApp]:
        for n in range(count):
            settings = replica_settings(site, redis_server, tmp_path / f"replica{n}", **crawl)
            started.append(ServedApp(create_app(settings)))
        return started[-count:]

    yield start
    for server in started:
        server.stop()


BODY = {"max_pages": 200, "include_paths": ["/docs/*"]}


async def test_three_replicas_read_each_page_once_at_one_polite_rate(fleet: Callable[..., list[ServedApp]]) -> None:
    async with DocsSite(pages=40, latency_s=0.05, crawl_delay=0.05, traps=False) as site:
        replicas = fleet(site, 3)
        async with httpx.AsyncClient(base_url=replicas[0].url(), timeout=10) as first:
            job_id = (await first.post("/api/crawls", json={"url": site.url("/"), **BODY})).json()["id"]
        async with httpx.AsyncClient(base_url=replicas[2].url(), timeout=10) as other:
            job = await until(other, job_id, finished)
            pages = await all_results(other, job_id, limit=15)
        gaps = site.gaps()
    assert job["state"] == "done" and job["pages"] == 40 == len({p["url"] for p in pages}) == len(pages)
    fetched = Counter(site.page_paths())
    assert max(fetched.values()) == 1, [path for path, n in fetched.items() if n > 1]
    assert site.max_in_flight <= 2
    # Crawl-delay 0.05 s across the fleet. The server sees arrivals, and a request that sat in a busy
    # event loop arrives late, shortening one gap and lengthening the next: so every run of ten
    # requests must span nine delays, less one request's lateness (0.1 s). A fleet pacing each
    # replica on its own would span about 0.15 s.
    spans = [sum(gaps[i : i + 9]) for i in range(len(gaps) - 8)]
    assert sorted(gaps)[len(gaps) // 2] >= 0.045 and min(spans) >= 0.35, (sorted(gaps)[:5], min(spans))


async def test_a_job_outlives_the_replica_reading_it(fleet: Callable[..., list[ServedApp]]) -> None:
    async with DocsSite(pages=40, latency_s=0.05, traps=False) as site:
        replicas = fleet(site, 3, job_lease_s=1.5)
        async with httpx.AsyncClient(base_url=replicas[0].url(), timeout=10) as first:
            job_id = (await first.post("/api/crawls", json={"url": site.url("/"), **BODY})).json()["id"]
            await until(first, job_id, lambda job: job["pages"] >= 10)
        replicas[0].stop()  # its pages in flight are never acknowledged
        async with httpx.AsyncClient(base_url=replicas[1].url(), timeout=10) as other:
            job = await until(other, job_id, finished)
            pages = await all_results(other, job_id, limit=15)
    assert job["state"] == "done" and job["pages"] == 40 == len({p["url"] for p in pages}) == len(pages)
    fetched = Counter(site.page_paths())
    twice = [path for path, n in fetched.items() if n > 1]
    assert max(fetched.values()) <= 2 and len(twice) <= READING, twice  # only what the stopped replica was reading
    # a replica stopped mid-request abandons its requests (2 at most) and frees their slots: the site
    # may still be answering them when the other replicas start theirs
    assert site.max_in_flight <= 4


async def test_a_job_cancelled_on_one_replica_stops_on_all(fleet: Callable[..., list[ServedApp]]) -> None:
    async with DocsSite(pages=120, latency_s=0.1, traps=False) as site:
        replicas = fleet(site, 2)
        async with httpx.AsyncClient(base_url=replicas[0].url(), timeout=10) as first:
            job_id = (await first.post("/api/crawls", json={"url": site.url("/"), **BODY})).json()["id"]
            await until(first, job_id, lambda job: job["pages"] >= 3)
        async with httpx.AsyncClient(base_url=replicas[1].url(), timeout=10) as other:
            cancelled = await other.delete(f"/api/crawls/{job_id}")
            requested = len(site.page_requests())
            await asyncio.sleep(1.5)  # a running job reads ~20 pages a second here
            job = (await other.get(f"/api/crawls/{job_id}")).json()
        later = len(site.page_requests())
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert job["state"] == "cancelled" and job["pages"] < 60
    assert later - requested <= READING * 2  # only pages already taken when it was cancelled


async def test_a_job_that_ended_expires_from_redis_and_delete_removes_it(
    fleet: Callable[..., list[ServedApp]], redis_server: RedisServer
) -> None:
    from redis.asyncio import Redis

    week = 7 * 86_400_000
    async with DocsSite(pages=5, traps=False) as site, Redis.from_url(redis_server.url) as redis:
        (replica,) = fleet(site, 1)
        async with httpx.AsyncClient(base_url=replica.url(), timeout=10) as http:
            ids = [(await http.post("/api/crawls", json={"url": site.url("/"), **BODY})).json()["id"] for _ in range(2)]
            for job_id in ids:
                await until(http, job_id, finished)
            expiring, deleted = ids
            keys = [key async for key in redis.scan_iter(f"weblens:crawl:{expiring}*")]
            ttls = [await redis.pttl(key) for key in keys]
            for key in keys:  # its week passes
                await redis.pexpire(key, 1)
            while await redis.exists(*keys):  # Redis removes them (when asked, if not before)
                await asyncio.sleep(0.01)
            expired = await http.get(f"/api/crawls/{expiring}")
            removed = await http.delete(f"/api/crawls/{deleted}")
            gone = await http.get(f"/api/crawls/{deleted}")
            listed = (await http.get("/api/crawls")).json()["crawls"]
            left = [key async for key in redis.scan_iter(f"weblens:crawl:{deleted}*")]
            indexed = await redis.zrange("weblens:crawl:jobs", 0, -1)
    ttl = dict(zip(keys, ttls, strict=True))
    assert len(keys) >= 5 and all(0 < n <= week for n in ttls), ttl  # every key expires (`seeding` within a lease)
    assert ttl[f"weblens:crawl:{expiring}".encode()] > week - 60_000 and ttl[f"weblens:crawl:{expiring}:pages".encode()]
    assert expired.status_code == 404 and removed.status_code == 204 and gone.status_code == 404
    assert listed == [] and left == [] and indexed == []


async def test_a_replica_stopped_mid_job_logs_no_error(
    fleet: Callable[..., list[ServedApp]], caplog: pytest.LogCaptureFixture
) -> None:
    async with DocsSite(pages=60, latency_s=0.2, traps=False) as site:
        replicas = fleet(site, 2, job_lease_s=1.5)
        async with httpx.AsyncClient(base_url=replicas[0].url(), timeout=10) as first:
            job_id = (await first.post("/api/crawls", json={"url": site.url("/"), **BODY})).json()["id"]
            await until(first, job_id, lambda job: job["pages"] >= 3 and job["in_flight"] > 0)
        with caplog.at_level(logging.INFO):
            await asyncio.to_thread(replicas[0].stop)  # what Ctrl-C on `weblens serve` does, with pages in flight
        async with httpx.AsyncClient(base_url=replicas[1].url(), timeout=10) as other:
            job = await until(other, job_id, finished)
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING]
    assert not errors, errors
    assert job["state"] == "done" and job["pages"] == 60


async def test_a_site_linking_new_pages_without_end_does_not_fill_redis_without_end(
    fleet: Callable[..., list[ServedApp]],
) -> None:
    async with LinkFarm(links=300) as farm:
        replicas = fleet(farm, 2)
        job = await finished_job(replicas[0].url(), {"url": farm.url("/"), "max_pages": 5, "max_depth": 3})
    assert job["state"] == "done" and job["pages"] == 5
    assert 0 < job["queued"] <= 5 * 20  # left unread: at most 20 URLs per page asked for are admitted
    assert job["skipped"]["queue_full"] > 0
