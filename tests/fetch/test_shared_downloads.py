"""Concurrent fetches of one URL share one download only when they would make it alike: each
call keeps its own timeout and its own robots.txt rule."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError, ToolTimeoutError
from weblens.fetch import Fetcher
from weblens.testing import Reply
from weblens.testing.pages import PageServer
from weblens.testing.server import RecordedRequest

pytestmark = pytest.mark.timeout(60)

_HOLD_S = 30.0
"""Longest a held answer waits for the test to let it go."""


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Holds the page's answer until set (and always lets it go when the test ends)."""
    released = threading.Event()
    yield released
    released.set()


def _held(gate: threading.Event, words: str) -> Callable[[RecordedRequest], Awaitable[Reply]]:
    """The page, answered only once `gate` is set: a download that stays under way as long as a test needs."""

    async def answer(request: RecordedRequest) -> Reply:
        await asyncio.to_thread(gate.wait, _HOLD_S)
        return Reply(body=words, content_type="text/plain")

    return answer


async def _until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("short_first", [True, False], ids=["short-timeout-first", "short-timeout-second"])
async def test_each_call_keeps_its_own_timeout(
    pages: PageServer, settings: Settings, gate: threading.Event, short_first: bool
) -> None:
    pages.route("GET", "/tide.txt", _held(gate, "high water at noon"))
    url = pages.url("/tide.txt")
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        first = asyncio.create_task(fetcher.fetch(url, timeout=0.3) if short_first else fetcher.fetch(url))
        await _until(lambda: pages.count("/tide.txt") == 1)  # its download is under way
        second = asyncio.create_task(fetcher.fetch(url) if short_first else fetcher.fetch(url, timeout=0.3))
        short, default = (first, second) if short_first else (second, first)
        with pytest.raises(ToolTimeoutError, match=r"longer than 0\.3 s") as caught:
            async with asyncio.timeout(10):  # joined to the other's download, it would wait for the gate
                await short
        gate.set()
        page = await default
    assert page.content == "high water at noon"  # the longer timeout was not cut short by the other's
    assert caught.value.details["measured"] == "wall_clock"
    assert pages.count("/tide.txt") == 2


async def test_a_call_that_joined_a_download_times_out_at_its_own_deadline(
    pages: PageServer, settings: Settings, gate: threading.Event
) -> None:
    # same timeout, started later: the first call's deadline passes first, and is not the second's
    pages.route("GET", "/tide.txt", _held(gate, "high water at noon"))
    url = pages.url("/tide.txt")
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        first = asyncio.create_task(fetcher.fetch(url, timeout=0.5))
        await _until(lambda: pages.count("/tide.txt") == 1)
        await asyncio.sleep(0.2)
        started = time.monotonic()
        with pytest.raises(ToolTimeoutError):
            await fetcher.fetch(url, timeout=0.5)
        waited = time.monotonic() - started
        with pytest.raises(ToolTimeoutError):
            await first
    assert waited >= 0.45  # its own 0.5 s, not what was left of the first call's


async def test_a_call_that_respects_robots_txt_never_joins_a_download_that_did_not(
    pages: PageServer, settings: Settings, gate: threading.Event
) -> None:
    # RFC 9309: robots.txt the site fails to serve forbids a download for a call that respects it
    pages.route("GET", "/robots.txt", Reply(body="busy", status=503, content_type="text/plain"))
    pages.route("GET", "/notice.txt", _held(gate, "the pier is closed"))
    url = pages.url("/notice.txt")
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        plain = asyncio.create_task(fetcher.fetch(url))
        await _until(lambda: pages.count("/notice.txt") == 1)
        with pytest.raises(BlockedError, match="could not be read"):
            async with asyncio.timeout(10):
                await fetcher.fetch(url, respect_robots=True)
        gate.set()
        assert (await plain).content == "the pier is closed"
    assert pages.count("/notice.txt") == 1
