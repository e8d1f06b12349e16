"""robots.txt: off by default, on per call or by config, fetched through the same guard."""

from __future__ import annotations

import time

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError, ToolTimeoutError
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


async def test_a_slow_robots_txt_counts_against_the_fetch_timeout(pages: PageServer, cache: Cache) -> None:
    pages.route("GET", "/robots.txt", Reply(body="User-agent: *\n" + "#" * 200, drip=(1, 0.05)))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "timeout": 0.5})
    started = time.monotonic()
    with pytest.raises(ToolTimeoutError, match=r"longer than 0\.5 s"):
        await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)
    assert time.monotonic() - started < 3


async def test_a_huge_robots_txt_is_cut_not_read_to_the_end(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    rules = "User-agent: *\nDisallow: /article\n"
    body = rules + ("#" * 1023 + "\n") * 10 * 1024  # 10 MiB, in 256 KiB steps 0.3 s apart: 12 s to read it all
    pages.route("GET", "/robots.txt", Reply(body=body, drip=(256 * 1024, 0.3)))
    started = time.monotonic()
    with pytest.raises(BlockedError, match=r"robots\.txt"):
        await fetch(pages.url("/article"), settings=settings, cache=cache, respect_robots=True)
    assert time.monotonic() - started < 4  # stopped after the first 512 KiB


async def test_rfc_9309_wildcards_and_end_anchors(pages: PageServer, settings: Settings, cache: Cache) -> None:
    pages.route("GET", "/robots.txt", Reply(body="User-agent: *\nDisallow: /*.pdf$\nDisallow: /*/private/\n"))
    pages.route("GET", "/docs/a.pdf", Reply(body="%PDF", content_type="text/plain"))
    pages.route("GET", "/docs/a.pdfx", Reply(body="not a pdf"))
    with pytest.raises(BlockedError, match=r"disallows fetching /docs/a\.pdf"):
        await fetch(pages.url("/docs/a.pdf"), settings=settings, cache=cache, respect_robots=True)
    page = await fetch(pages.url("/docs/a.pdfx"), settings=settings, cache=cache, respect_robots=True)
    assert page.content == "not a pdf"  # `$` anchors the end: .pdfx is not .pdf
    with pytest.raises(BlockedError):
        await fetch(pages.url("/team/private/plan.txt"), settings=settings, cache=cache, respect_robots=True)
    assert pages.count("/docs/a.pdf") == 0


async def test_the_group_for_weblens_wins_over_the_star_group(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    pages.route("GET", "/robots.txt", Reply(body="User-agent: *\nDisallow: /\n\nUser-agent: weblens\nAllow: /\n"))
    assert (await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)).content


async def test_a_redirected_robots_txt_is_followed_and_obeyed(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    # RFC 9309 2.3.1.2: follow at least five redirects; sites move robots.txt (http -> https, a CDN path)
    pages.route("GET", "/robots.txt", Reply(status=301, headers={"Location": "/moved/robots.txt"}))
    pages.route("GET", "/moved/robots.txt", Reply(status=302, headers={"Location": "/final/robots.txt"}))
    pages.route("GET", "/final/robots.txt", Reply(body=ROBOTS))
    with pytest.raises(BlockedError, match=r"disallows fetching /article"):
        await fetch(pages.url("/article"), settings=settings, cache=cache, respect_robots=True)
    assert pages.count("/article") == 0 and pages.count("/final/robots.txt") == 1


async def test_a_robots_txt_redirected_to_a_private_address_is_refused_not_read(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    pages.route("GET", "/robots.txt", Reply(status=302, headers={"Location": "http://169.254.169.254/robots.txt"}))
    with pytest.raises(BlockedError, match="SSRF guard"):
        await fetch(pages.url("/article"), settings=settings, cache=cache, respect_robots=True)
    assert pages.count("/article") == 0


async def test_a_robots_txt_redirecting_for_ever_counts_as_missing(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    pages.route("GET", "/robots.txt", Reply(status=302, headers={"Location": "/robots.txt"}))
    page = await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)
    assert "line one" in page.content
    assert pages.count("/robots.txt") == 6  # the first request and five redirects, then unavailable


@pytest.mark.parametrize("group", ["github", "https", "com"])
async def test_only_the_product_token_of_the_user_agent_picks_a_group(
    pages: PageServer, settings: Settings, cache: Cache, group: str
) -> None:
    # weblens' user agent names its home page (+https://github.com/...): a group for that site or
    # scheme is not a group for weblens (RFC 9309 2.2.1 matches the product token)
    pages.route("GET", "/robots.txt", Reply(body=f"User-agent: {group}\nDisallow: /\n"))
    assert (await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, respect_robots=True)).content
    pages.route("GET", "/robots.txt", Reply(body="User-agent: WebLens\nDisallow: /\n"))
    with pytest.raises(BlockedError, match=r"robots\.txt"):
        await fetch(pages.url("/readme.md"), settings=settings, cache=Cache(None), respect_robots=True)
