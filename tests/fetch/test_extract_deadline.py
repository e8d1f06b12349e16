"""The extraction deadline measures the page's own work — the CPU time of the worker that took
it — never the time a page waits for a free worker; a timeout says what was measured."""

from __future__ import annotations

import asyncio
import time

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import ToolTimeoutError
from weblens.fetch import Fetcher
from weblens.testing import Reply
from weblens.testing.hostile import slow_pdf
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(180)

_PAGES = 8


async def _one_page_seconds(pages: PageServer) -> float:
    """Wall-clock seconds one worker needs for one page, measured here (the machine may be busy)."""
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 60, "timeout": 120})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        times = []
        for n in range(2):
            start = time.monotonic()
            await fetcher.fetch(pages.url(f"/work.pdf?calibrate={n}"), use_cache=False)
            times.append(time.monotonic() - start)
    return min(times)


async def test_pages_waiting_for_a_busy_worker_do_not_time_out(pages: PageServer) -> None:
    pages.route("GET", "/work.pdf", Reply(body=slow_pdf(25_000), content_type="application/pdf"))
    one = await _one_page_seconds(pages)
    deadline = max(3 * one, 0.5)  # the work fits three times over; the wait for the last page is seven pages
    settings = Settings(
        fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": deadline, "timeout": 120}
    )
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        start = time.monotonic()
        results = await asyncio.gather(
            *(fetcher.fetch(pages.url(f"/work.pdf?n={n}"), use_cache=False) for n in range(_PAGES)),
            return_exceptions=True,
        )
        took = time.monotonic() - start
    assert took > deadline  # the later pages waited longer than the deadline for the one worker
    for result in results:
        assert not isinstance(result, BaseException), result
        assert "word" in result.content


async def test_a_timeout_says_it_measured_cpu_time(pages: PageServer) -> None:
    pages.route("GET", "/slow.pdf", Reply(body=slow_pdf(200_000), content_type="application/pdf"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 0.5, "timeout": 60})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        with pytest.raises(ToolTimeoutError) as caught:
            await fetcher.fetch(pages.url("/slow.pdf"))
    message = caught.value.message
    assert "CPU time" in message and "waiting for a free worker is not counted" in message, message
    assert caught.value.details["measured"] in ("cpu_time", "wall_since_taken")
