"""robots.txt: off by default, on per call or by config, fetched through the same guard."""

from __future__ import annotations

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError
from weblens.fetch import fetch
from weblens.testing import Reply
from weblens.testing.pages import PageServer

ROBOTS = "User-agent: *\nDisallow: /article\n"


async def test_robots_is_ignored_by_default(pages: PageServer, settings: Settings, cache: Cache) -> None:
    pages.route("GET", "/robots.txt", Reply(body=ROBOTS))
    await fetch(pages.url("/article"), settings=settings, cache=cache)
    assert pages.count("/robots.txt") == 0


async def test_robots_disallow_blocks_when_asked(pages: PageServer, settings: Settings, cache: Cache) -> None:
    pages.route("GET", "/robots.txt", Reply(body=ROBOTS))
    with pytest.raises(BlockedError, match=r"robots\.txt"):
        await fetch(pages.url("/article"), settings=settings, cache=cache, respect_robots=True)
    assert pages.count("/article") == 0
    await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)
    assert pages.count("/robots.txt") == 1  # cached per site


async def test_robots_from_config_and_redirect_hops(pages: PageServer, cache: Cache) -> None:
    pages.route("GET", "/robots.txt", Reply(body=ROBOTS))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "respect_robots": True})
    with pytest.raises(BlockedError, match=r"robots\.txt"):
        await fetch(pages.url("/redirect?n=1"), settings=settings, cache=cache)


async def test_missing_robots_allows_and_a_5xx_disallows(pages: PageServer, settings: Settings, cache: Cache) -> None:
    await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)
    other = Cache(None)
    pages.route("GET", "/robots.txt", Reply(status=503, body="down"))
    with pytest.raises(BlockedError, match="HTTP 503"):
        await fetch(pages.url("/readme.md"), settings=settings, cache=other, respect_robots=True)
