"""A page that needs more memory than a worker may use is `too_large`, naming the limit; the
server stays small, a fresh worker reads the next page, and workers are the kernel's first
choice under memory pressure."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import TooLargeError, WeblensError
from weblens.fetch import Fetcher
from weblens.testing import Reply
from weblens.testing.pages import ARTICLE_PARAGRAPHS, PageServer

pytestmark = pytest.mark.timeout(180)

_LIMIT_MB = 160


def _wide_table(rows: int = 20_000, columns: int = 40) -> bytes:
    """About 8 MB of HTML: one table, 40 x 20 000 cells (lxml builds ~400 MB of tree from it)."""
    row = "<tr>" + "<td>x</td>" * columns + "</tr>"
    return ("<html><body><table>" + row * rows + "</table></body></html>").encode()


def _rss_kib(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def test_wide_tables_four_at_once_stay_within_the_worker_limit(pages: PageServer) -> None:
    pages.route("GET", "/wide", Reply(body=_wide_table(), content_type="text/html"))
    settings = Settings(
        fetch={
            "allowed_hosts": [pages.host],
            "workers": 2,
            "worker_memory_mb": _LIMIT_MB,
            "extract_timeout": 60,
            "timeout": 90,
        }
    )
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        start = _rss_kib()
        peaks = {"server": start, "worker": 0}
        baseline = {pid: _rss_kib(pid) for pid in fetcher.workers.pids}

        async def watch() -> None:
            while True:
                peaks["server"] = max(peaks["server"], _rss_kib())
                for pid in fetcher.workers.pids:
                    try:
                        grown = _rss_kib(pid) - baseline.get(pid, _rss_kib(pid))
                    except FileNotFoundError:
                        continue
                    baseline.setdefault(pid, _rss_kib(pid))
                    peaks["worker"] = max(peaks["worker"], grown)
                await asyncio.sleep(0.02)

        watcher = asyncio.create_task(watch())
        try:
            results = await asyncio.gather(
                *(fetcher.fetch(pages.url(f"/wide?n={n}"), use_cache=False) for n in range(4)), return_exceptions=True
            )
        finally:
            watcher.cancel()
        for result in results:
            assert isinstance(result, TooLargeError), result
            assert result.code == "too_large" and f"{_LIMIT_MB} MB" in result.message
            assert "fetch.worker_memory_mb" in result.message
        assert peaks["worker"] < (_LIMIT_MB + 64) * 1024  # a worker's growth stops at its limit
        assert peaks["server"] - start < 200 * 1024  # four 8 MB bodies and their answers, no tree
        page = await fetcher.fetch(pages.url("/article"))  # a fresh worker reads the next page
        assert ARTICLE_PARAGRAPHS[0] in page.content


async def test_under_the_default_limit_the_wide_table_reads(pages: PageServer) -> None:
    pages.route("GET", "/wide", Reply(body=_wide_table(rows=5_000), content_type="text/html"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 60, "timeout": 90})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        assert fetcher.workers.memory_mb is not None and fetcher.workers.memory_mb >= 256
        page = await fetcher.fetch(pages.url("/wide"))
        assert page.total_length >= 5_000 * 40  # every cell read


async def test_workers_not_the_server_are_killed_first_under_memory_pressure(pages: PageServer) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 2})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        with open("/proc/self/oom_score_adj") as own:
            server = int(own.read())
        for pid in fetcher.workers.pids:
            with open(f"/proc/{pid}/oom_score_adj") as score:
                assert int(score.read()) == 1000 > server
        assert os.getpid() not in fetcher.workers.pids


@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGSEGV], ids=["killed", "segfault"])
async def test_a_worker_that_dies_on_a_page_is_an_error_for_that_page_and_the_next_reads(
    pages: PageServer, signal_number: int
) -> None:
    """What the kernel's OOM killer or a crash in a C library does to a worker mid-page."""
    pages.route("GET", "/wide", Reply(body=_wide_table(), content_type="text/html"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 60, "timeout": 90})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        (pid,) = fetcher.workers.pids
        reading = asyncio.create_task(fetcher.fetch(pages.url("/wide")))
        while _rss_kib(pid) < 150 * 1024:  # it is building the page's tree
            assert not reading.done()
            await asyncio.sleep(0.02)
        os.kill(pid, signal_number)
        with pytest.raises(WeblensError) as caught:
            await reading
        message = caught.value.message
        assert caught.value.code == "internal_error" and "worker process died" in message
        assert signal.Signals(signal_number).name in message and "Traceback" not in message
        page = await fetcher.fetch(pages.url("/article"))
        assert ARTICLE_PARAGRAPHS[0] in page.content
        os.kill(fetcher.workers.pids[0], signal.SIGKILL)  # dies while idle: the next page does not pay for it
        page = await fetcher.fetch(pages.url("/article"), use_cache=False)
        assert ARTICLE_PARAGRAPHS[0] in page.content
