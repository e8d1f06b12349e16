"""`fetch.in_process_bytes`: a small page is read in this process (what a one-shot
`weblens fetch` does), one at a time, a larger one still in a worker process under its hard deadline."""

from __future__ import annotations

import asyncio

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import Fetcher
from weblens.testing import Reply
from weblens.testing.pages import PageServer, article_html


async def test_a_small_page_starts_no_worker_and_a_large_one_does() -> None:
    with PageServer() as pages:
        settings = Settings(fetch={"allowed_hosts": [pages.host], "in_process_bytes": 10_000, "workers": 1})
        async with Fetcher(settings, cache=Cache(None, enabled=False)) as fetcher:
            small = await fetcher.fetch(pages.url("/article"))
            assert small.title == "The Skerryvore Ledger"
            assert fetcher.workers.pids == []  # read here: no worker process was started
            large = await fetcher.fetch(pages.url("/docs/guide"))
            assert large.total_length > 10_000  # its page is larger still in bytes
            assert len(fetcher.workers.pids) == 1


async def test_by_default_every_page_is_read_in_a_worker() -> None:
    with PageServer() as pages:
        settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1})
        async with Fetcher(settings, cache=Cache(None, enabled=False)) as fetcher:
            await fetcher.fetch(pages.url("/article"))
            assert len(fetcher.workers.pids) == 1


async def test_one_page_at_a_time_is_read_in_process_and_the_others_by_a_worker() -> None:
    # in a thread, a second page would wait for the first one's GIL, and its wall-clock deadline count that
    entries = [f"Entry {i} of the harbour ledger, with words enough to be read as text." for i in range(8000)]
    with PageServer() as pages:
        pages.route("GET", "/ledger.html", Reply(body=article_html("Ledger", entries), content_type="text/html"))
        settings = Settings(fetch={"allowed_hosts": [pages.host], "in_process_bytes": 1_000_000, "workers": 1})
        async with Fetcher(settings, cache=Cache(None, enabled=False)) as fetcher:
            read = await asyncio.gather(*(fetcher.fetch(pages.url(f"/ledger.html?copy={n}")) for n in range(4)))
            assert all(page.title == "Ledger" and "Entry 0 of the harbour ledger" in page.content for page in read)
            assert len(fetcher.workers.pids) == 1  # the pages that came while one was read here
