"""`fetch.in_process_bytes`: a small page is read in this process (what a one-shot
`weblens fetch` does), a larger one still in a worker process under its hard deadline."""

from __future__ import annotations

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import Fetcher
from weblens.testing.pages import PageServer


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
