"""A generated docs site per test, a fetcher allowed to reach it (and only it), and crawl-job API helpers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch.fetcher import Fetcher
from weblens.testing import FakeServer, Reply
from weblens.testing.sites import DocsSite


@pytest.fixture
async def site() -> AsyncIterator[DocsSite]:
    async with DocsSite(pages=20) as server:
        yield server  # type: ignore[misc]


def fetcher_for(*hosts: str, **fetch: object) -> Fetcher:
    settings = Settings(fetch={"allowed_hosts": list(hosts), "workers": 1, **fetch})
    return Fetcher(settings, cache=Cache(None))


def slow_sitemaps(server: FakeServer, count: int, delay_s: float) -> None:
    """/sitemap.xml: an index of `count` sitemaps, each answering after `delay_s` with one page (/page-N)."""
    index = "".join(f"<sitemap><loc>{server.url(f'/sitemap-{i}.xml')}</loc></sitemap>" for i in range(count))
    server.route(
        "GET", "/sitemap.xml", Reply(body=f"<sitemapindex>{index}</sitemapindex>", content_type="application/xml")
    )
    for i in range(count):
        urlset = f"<urlset><url><loc>{server.url(f'/page-{i}')}</loc></url></urlset>"
        server.route("GET", f"/sitemap-{i}.xml", Reply(body=urlset, content_type="application/xml", delay_s=delay_s))
        server.route("GET", f"/page-{i}", Reply(body=f"<html><title>Page {i}</title><p>text {i}</p></html>",
                                                content_type="text/html"))  # fmt: skip


@pytest.fixture
async def fetcher(site: DocsSite) -> AsyncIterator[Fetcher]:
    async with fetcher_for(site.host) as own:
        yield own


# -- crawl jobs over the HTTP API ---------------------------------------------------------

WAIT_S = 30.0


async def until(http: httpx.AsyncClient, job_id: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Poll the job until `done(job)` (the job as the API shows it), within WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while True:
        job = (await http.get(f"/api/crawls/{job_id}")).json()
        if done(job):
            return job
        assert time.monotonic() < deadline, f"the job did not get there: {job}"
        await asyncio.sleep(0.05)


def finished(job: dict[str, Any]) -> bool:
    return job["state"] != "running"


async def finished_job(base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    """Start a job on the server at `base_url` and wait for it to end; the job as the API shows it then."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        response = await http.post("/api/crawls", json=body)
        assert response.status_code == 201, response.text
        return await until(http, response.json()["id"], finished)


async def all_results(
    http: httpx.AsyncClient, job_id: str, kind: str = "pages", limit: int = 7
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        response = await http.get(f"/api/crawls/{job_id}", params={"offset": offset, "limit": limit, "kind": kind})
        assert response.status_code == 200, response.text
        page = response.json()["results"]
        assert len(page["items"]) <= limit
        items += page["items"]
        offset = page["next_offset"]
    return items
