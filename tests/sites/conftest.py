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
from weblens.testing.sites import DocsSite


@pytest.fixture
async def site() -> AsyncIterator[DocsSite]:
    async with DocsSite(pages=20) as server:
        yield server  # type: ignore[misc]


def fetcher_for(*hosts: str, **fetch: object) -> Fetcher:
    settings = Settings(fetch={"allowed_hosts": list(hosts), "workers": 1, **fetch})
    return Fetcher(settings, cache=Cache(None))


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
