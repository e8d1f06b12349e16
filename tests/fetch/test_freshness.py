"""A fetch's freshness bound: `max_age` takes a cached copy only that young (0 = download now),
`stale_if_error` serves the cached copy, marked stale, when the origin fails, and every page
says how old its text is — through `weblens.fetch`, `web_fetch` and `weblens fetch`."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from weblens.cache import Cache
from weblens.cli import app
from weblens.config import Settings
from weblens.errors import BlockedError, ToolValidationError, UpstreamError, UrlNotAllowedError, WeblensError
from weblens.fetch import Fetcher, fetch
from weblens.runtime import Runtime
from weblens.testing import Reply
from weblens.testing.chromium import INSTALL_HINT as CHROMIUM_HINT
from weblens.testing.chromium import chromium_path
from weblens.testing.dns import MappedResolver
from weblens.testing.hostile import slow_pdf
from weblens.testing.pages import PageServer, article_html, make_pdf
from weblens.tools.fetch import FetchTool

pytestmark = pytest.mark.timeout(60)


def _text(words: str) -> Reply:
    return Reply(body=words, content_type="text/plain")


async def test_max_age_decides_whether_the_cached_copy_will_do(pages: PageServer, settings: Settings) -> None:
    pages.route("GET", "/news.txt", _text("first edition"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        first = await fetcher.fetch(pages.url("/news.txt"))
        assert not first.cached and first.age_s == 0 and first.fetched_at is not None
        pages.route("GET", "/news.txt", _text("second edition"))
        await asyncio.sleep(1.1)
        cached = await fetcher.fetch(pages.url("/news.txt"), max_age=60)
        assert cached.cached and cached.content == "first edition" and cached.age_s >= 1.0
        too_old = await fetcher.fetch(pages.url("/news.txt"), max_age=1)
        assert not too_old.cached and too_old.content == "second edition"
        pages.route("GET", "/news.txt", _text("third edition"))
        now = await fetcher.fetch(pages.url("/news.txt"), max_age=0)
    assert now.content == "third edition" and not now.cached and now.age_s == 0
    assert pages.count("/news.txt") == 3


async def test_stale_if_error_serves_the_last_copy_marked_stale(pages: PageServer) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "cache_ttl_s": 1})
    pages.route("GET", "/status.txt", _text("all systems normal"))
    cache = Cache(None)
    await fetch(pages.url("/status.txt"), settings=settings, cache=cache)
    pages.route("GET", "/status.txt", Reply(body="down", status=503, content_type="text/plain"))
    await asyncio.sleep(1.2)  # past fetch.cache_ttl_s: only a stale copy is left
    with pytest.raises(UpstreamError):
        await fetch(pages.url("/status.txt"), settings=settings, cache=cache)
    page = await fetch(pages.url("/status.txt"), settings=settings, cache=cache, stale_if_error=True)
    assert page.stale and page.cached and page.content == "all systems normal"
    assert page.stale_reason is not None and "503" in page.stale_reason
    assert page.age_s >= 1.2
    # with nothing cached there is nothing to fall back on: the error stands
    with pytest.raises(UpstreamError):
        await fetch(pages.url("/status.txt?other"), settings=settings, cache=cache, stale_if_error=True)


async def test_web_fetch_tells_the_model_how_old_and_whether_stale(pages: PageServer, settings: Settings) -> None:
    pages.route("GET", "/prices.txt", _text("tea 3 coins"))
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        assert (await tool.execute({"url": pages.url("/prices.txt")})).ok
        pages.route("GET", "/prices.txt", Reply(body="oops", status=500, content_type="text/plain"))
        failed = await tool.execute({"url": pages.url("/prices.txt"), "max_age": 0})
        assert not failed.ok and failed.error is not None and failed.error.code == "upstream_error"
        stale = await tool.execute({"url": pages.url("/prices.txt"), "max_age": 0, "stale_if_error": True})
        cached = await tool.execute({"url": pages.url("/prices.txt")})
    assert stale.ok and stale.data["stale"] is True and "STALE COPY" in stale.text and "tea 3 coins" in stale.text
    assert cached.ok and "From the cache: downloaded" in cached.text and cached.data["age_s"] >= 0


def test_the_cli_takes_max_age_and_stale_if_error(pages: PageServer, tmp_path: Path) -> None:
    env = {"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host, "WEBLENS_DATA_DIR": str(tmp_path)}
    runner = CliRunner()
    pages.route("GET", "/menu.txt", _text("soup of the day: leek"))
    assert runner.invoke(app, ["fetch", pages.url("/menu.txt")], env=env).exit_code == 0
    pages.route("GET", "/menu.txt", Reply(body="down", status=502, content_type="text/plain"))
    refused = runner.invoke(app, ["fetch", pages.url("/menu.txt"), "--max-age", "0"], env=env)
    assert refused.exit_code != 0 and "leek" not in refused.stdout
    stale = runner.invoke(app, ["fetch", pages.url("/menu.txt"), "--max-age", "0", "--stale-if-error"], env=env)
    assert stale.exit_code == 0, stale.output
    assert "soup of the day: leek" in stale.stdout and "stale copy" in stale.stderr and "502" in stale.stderr


@pytest.mark.parametrize("bad", [-1, float("nan"), "60", True])
async def test_a_max_age_that_is_not_a_number_of_seconds_is_refused(
    pages: PageServer, settings: Settings, bad: object
) -> None:
    pages.route("GET", "/news.txt", _text("first edition"))
    with pytest.raises(ToolValidationError, match="max_age must be 0 \\(fetch now\\) or more seconds"):
        await fetch(pages.url("/news.txt"), settings=settings, cache=Cache(None), max_age=bad)  # type: ignore[arg-type]
    assert pages.count("/news.txt") == 0


async def test_an_infinite_max_age_takes_any_cached_copy(pages: PageServer, settings: Settings) -> None:
    pages.route("GET", "/news.txt", _text("first edition"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.fetch(pages.url("/news.txt"))
        again = await fetcher.fetch(pages.url("/news.txt"), max_age=float("inf"))
        huge = await fetcher.fetch(pages.url("/news.txt"), max_age=10**400)  # past a float: was an OverflowError
    assert again.cached and huge.cached and pages.count("/news.txt") == 1


@pytest.mark.parametrize("status", [404, 410, 401, 403])
async def test_an_answer_from_the_origin_is_not_hidden_behind_a_stale_copy(
    pages: PageServer, settings: Settings, status: int
) -> None:
    # RFC 5861: stale-if-error covers 5xx answers and an unreachable origin; a page that is gone
    # (404, 410) or now refused (401, 403) is what the site says, not a failure to serve it
    pages.route("GET", "/offer.txt", _text("two for one"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.fetch(pages.url("/offer.txt"))
        pages.route("GET", "/offer.txt", Reply(body="no", status=status, content_type="text/plain"))
        with pytest.raises(WeblensError, match=f"HTTP {status}"):
            await fetcher.fetch(pages.url("/offer.txt"), max_age=0, stale_if_error=True)


async def test_the_stale_reason_masks_a_key_in_the_url(pages: PageServer, settings: Settings) -> None:
    url = pages.url("/report.txt?api_key=k3y-f0r-the-feed&day=monday")
    pages.route("GET", "/report.txt", _text("sales up"))
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        assert (await tool.execute({"url": url})).ok
        pages.route("GET", "/report.txt", Reply(body="down", status=503, content_type="text/plain"))
        stale = await tool.execute({"url": url, "max_age": 0, "stale_if_error": True})
    assert stale.ok and stale.data["stale"] is True
    reason = stale.data["stale_reason"]
    assert "503" in reason and "day=monday" in reason and "k3y-f0r-the-feed" not in reason
    warning = next(line for line in stale.text.splitlines() if line.startswith("STALE COPY"))
    assert "k3y-f0r-the-feed" not in warning


async def test_the_age_counts_from_the_download_not_from_the_end_of_reading(pages: PageServer) -> None:
    # a long page takes its reader far longer than its download: the text is as old as the download
    paragraphs = [f"Entry {i} of the harbour ledger, with words enough to be read as text." for i in range(8000)]
    pages.route("GET", "/ledger.html", Reply(body=article_html(paragraphs=paragraphs), content_type="text/html"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 0})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        started = time.time()
        page = await fetcher.fetch(pages.url("/ledger.html"))
        read = time.time()
        assert page.fetched_at is not None
        assert page.fetched_at - started < (read - started) / 2  # downloaded early, read for the rest
        again = await fetcher.fetch(pages.url("/ledger.html"), max_age=60)
    assert again.cached and again.age_s >= read - page.fetched_at - 0.01


async def test_a_page_the_site_says_not_to_store_is_not_cached(pages: PageServer, settings: Settings) -> None:
    private = Reply(body="balance: 12 coins", content_type="text/plain", headers={"Cache-Control": "private, No-Store"})
    pages.route("GET", "/account.txt", private)
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        first = await tool.execute({"url": pages.url("/account.txt")})
        again = await tool.execute({"url": pages.url("/account.txt"), "start_index": 9})
        pages.route("GET", "/account.txt", Reply(body="down", status=503, content_type="text/plain"))
        failed = await tool.execute({"url": pages.url("/account.txt"), "stale_if_error": True})
    assert first.ok and first.data["no_store"] is True and first.data["cached"] is False
    assert "Cache-Control: no-store" in first.text
    assert again.ok and again.data["cached"] is False and again.data["content"] == "12 coins"
    assert pages.count("/account.txt") == 4  # each call downloaded it (the failed one retried once)
    assert not failed.ok and failed.error is not None and failed.error.code == "upstream_error"


def _named(pages: PageServer, *addresses: str, **settings: object) -> tuple[str, Settings, MappedResolver]:
    """The page server as news.example, resolving to `addresses` (default 127.0.0.1)."""
    allowed = Settings(fetch={"allowed_hosts": [f"news.example:{pages.port}"]}, **settings)  # type: ignore[arg-type]
    return f"http://news.example:{pages.port}/front.txt", allowed, MappedResolver({"news.example": list(addresses)})


async def _cached_front_page(pages: PageServer, cache: Cache) -> str:
    url, settings, names = _named(pages, "127.0.0.1")
    pages.route("GET", "/front.txt", _text("harbour opens at dawn"))
    async with Fetcher(settings, cache=cache, resolver=names) as fetcher:
        assert not (await fetcher.fetch(url)).cached
    return url


async def test_a_stale_copy_stands_in_when_the_site_cannot_be_reached(pages: PageServer) -> None:
    cache = Cache(None)
    url = await _cached_front_page(pages, cache)
    _, settings, unresolved = _named(pages)  # the name no longer resolves
    pages.route("GET", "/front.txt", Reply(body="late", delay_s=2.0, content_type="text/plain"))
    _, _, slow = _named(pages, "127.0.0.1")
    async with Fetcher(settings, cache=cache, resolver=unresolved) as fetcher:
        dns = await fetcher.fetch(url, max_age=0, stale_if_error=True)
    async with Fetcher(settings, cache=cache, resolver=slow) as fetcher:
        timed_out = await fetcher.fetch(url, max_age=0, stale_if_error=True, timeout=0.3)
    pages.stop()  # nothing listens on the port any more
    async with Fetcher(settings, cache=cache, resolver=slow) as fetcher:
        refused = await fetcher.fetch(url, max_age=0, stale_if_error=True)
    for page, why in ((dns, "could not resolve news.example"), (timed_out, "timeout"), (refused, "could not connect")):
        assert page.stale and page.content == "harbour opens at dawn", why
        assert page.stale_reason is not None and why in page.stale_reason


async def test_a_refusal_is_never_covered_by_a_stale_copy(pages: PageServer) -> None:
    cache = Cache(None)
    url = await _cached_front_page(pages, cache)
    _, settings, metadata = _named(pages, "169.254.169.254")  # the name now points at a cloud metadata endpoint
    async with Fetcher(settings, cache=cache, resolver=metadata) as fetcher:
        with pytest.raises(BlockedError, match="metadata"):
            await fetcher.fetch(url, max_age=0, stale_if_error=True)
    _, settings, names = _named(pages, "127.0.0.1")
    pages.route("GET", "/front.txt", Reply(status=302, headers={"Location": "http://169.254.169.254/latest/"}))
    async with Fetcher(settings, cache=cache, resolver=names) as fetcher:
        with pytest.raises(BlockedError, match="metadata"):
            await fetcher.fetch(url, max_age=0, stale_if_error=True)
    pages.route("GET", "/front.txt", Reply(body="down", status=503, content_type="text/plain"))
    pages.route("GET", "/robots.txt", _text("User-agent: *\nDisallow: /front.txt\n"))
    async with Fetcher(settings, cache=cache, resolver=names) as fetcher:
        with pytest.raises(BlockedError, match=r"robots\.txt"):
            await fetcher.fetch(url, max_age=0, stale_if_error=True, respect_robots=True)
    _, blocking, _ = _named(pages, policy={"block_domains": ["news.example"]})
    async with Fetcher(blocking, cache=cache, resolver=names) as fetcher:
        with pytest.raises(UrlNotAllowedError):
            await fetcher.fetch(url, stale_if_error=True)  # not even the fresh copy
    async with Fetcher(Settings(), cache=cache, resolver=names) as fetcher:  # news.example not allowed here
        with pytest.raises(BlockedError, match="loopback address"):
            await fetcher.fetch(url, stale_if_error=True)
    assert pages.count("/front.txt") == 2  # the first download, and the redirect


async def test_the_copy_and_its_age_are_shared_through_the_cache_backend(
    pages: PageServer, redis_url: str | None, tmp_path: Path
) -> None:
    # two processes: on one machine they share the SQLite file, in a fleet the Redis cache
    def replica(name: str) -> Runtime:
        where = tmp_path / ("machine" if redis_url is None else name)
        return Runtime(Settings(fetch={"allowed_hosts": [pages.host]}, redis_url=redis_url, data_dir=where))

    pages.route("GET", "/tides.txt", _text("high water 06:12"))
    first, second = replica("a"), replica("b")
    try:
        downloaded = await fetch(pages.url("/tides.txt"), fetcher=first.fetcher)
        pages.route("GET", "/tides.txt", Reply(body="down", status=502, content_type="text/plain"))
        shared = await fetch(pages.url("/tides.txt"), fetcher=second.fetcher, max_age=60)
        stale = await fetch(pages.url("/tides.txt"), fetcher=second.fetcher, max_age=0, stale_if_error=True)
        since = time.time() - downloaded.fetched_at  # type: ignore[operator]
    finally:
        await first.aclose()
        await second.aclose()
    assert shared.cached and not shared.stale and shared.fetched_at == downloaded.fetched_at
    assert stale.stale and stale.content == "high water 06:12" and stale.fetched_at == downloaded.fetched_at
    assert 0 <= shared.age_s <= stale.age_s <= since + 0.001  # age_s is rounded to the millisecond
    assert pages.count("/tides.txt") == 2  # the first download and the failed one


def _berths(pages: PageServer, count: int) -> None:
    """/berths.html: an article of `count` paragraphs."""
    paragraphs = [f"Berth {i}: the ferry from the north quay leaves on the hour." for i in range(count)]
    pages.route("GET", "/berths.html", Reply(body=article_html(paragraphs=paragraphs), content_type="text/html"))


async def test_a_cached_copy_serves_its_own_pages_and_not_another_readings(
    pages: PageServer, settings: Settings
) -> None:
    _berths(pages, 60)
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        first = await fetcher.fetch(pages.url("/berths.html"), max_length=500)
        assert first.next_start_index is not None
        second = await fetcher.fetch(pages.url("/berths.html"), start_index=first.next_start_index, max_age=60)
        whole = await fetcher.fetch(pages.url("/berths.html"), max_length=1_000_000, max_age=60)
        raw = await fetcher.fetch(pages.url("/berths.html"), raw=True, max_age=60)
        raw_again = await fetcher.fetch(pages.url("/berths.html"), raw=True, max_length=50)
    assert second.cached and second.start_index == first.next_start_index and second.fetched_at == first.fetched_at
    assert whole.cached and second.content == whole.content[second.start_index :][: len(second.content)]
    assert not raw.cached and raw.content.startswith("<") and raw.extractor == "raw"
    assert raw_again.cached and raw_again.fetched_at == raw.fetched_at
    assert pages.count("/berths.html") == 2  # the text once and the source once


async def test_one_web_fetch_call_downloads_once_whatever_its_token_budget(
    pages: PageServer, settings: Settings
) -> None:
    # fitting the framing into max_tokens cuts the page again: from the document in hand, not a new download
    _berths(pages, 300)
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        now = await tool.execute({"url": pages.url("/berths.html"), "max_age": 0, "max_tokens": 500})
        assert now.ok and pages.count("/berths.html") == 1
        asked = {"url": pages.url("/berths.html"), "max_age": 0, "max_tokens": 400, "query": "north quay ferry"}
        passages = await tool.execute(asked)
        assert passages.ok and pages.count("/berths.html") == 2
        pages.route("GET", "/berths.html", Reply(body="down", status=503, content_type="text/plain"))
        stale = await tool.execute({**asked, "stale_if_error": True})
        counter = await runtime.fetcher.tokenizer()
    assert stale.ok and stale.data["stale"] is True and "STALE COPY" in stale.text
    assert pages.count("/berths.html") == 3
    assert all(counter.count(result.text) <= budget for result, budget in ((now, 500), (passages, 400), (stale, 400)))


@pytest.mark.skipif(chromium_path() is None, reason=CHROMIUM_HINT)
async def test_render_modes_keep_their_own_copies_and_a_rendered_no_store_page_is_not_kept(
    pages: PageServer, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path, fetch={"allowed_hosts": [pages.host], "workers": 0}, browser={"path": chromium_path()}
    )
    pages.route("GET", "/harbour.html", Reply(body=article_html("Harbour"), content_type="text/html"))
    secret = Reply(body=article_html("Ledger"), content_type="text/html", headers={"Cache-Control": "no-store"})
    pages.route("GET", "/ledger.html", secret)
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        plain = await fetcher.fetch(pages.url("/harbour.html"), render="never")
        rendered = await fetcher.fetch(pages.url("/harbour.html"), render="always", max_age=60)
        again = await fetcher.fetch(pages.url("/harbour.html"), render="always", max_age=60)
        plain_again = await fetcher.fetch(pages.url("/harbour.html"), render="never", max_age=60)
        kept = [await fetcher.fetch(pages.url("/ledger.html"), render="always") for _ in range(2)]
    assert not plain.rendered and rendered.rendered and not rendered.cached  # the plain copy is not a rendering
    assert again.cached and again.rendered and plain_again.cached and not plain_again.rendered
    assert pages.count("/harbour.html") == 2
    assert all(page.rendered and page.no_store and not page.cached for page in kept)
    assert pages.count("/ledger.html") == 2


async def test_a_robots_txt_the_site_fails_to_serve_is_its_failure_and_a_stale_copy_stands_in(
    pages: PageServer, settings: Settings
) -> None:
    # RFC 9309: an unreadable robots.txt (5xx, unreachable) forbids a download, but the site failed:
    # a copy already held may stand in when asked; a robots.txt that disallows the page never lets it
    pages.route("GET", "/notice.txt", _text("the pier is closed for repairs"))
    pages.route("GET", "/robots.txt", Reply(body="busy", status=503, content_type="text/plain"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.fetch(pages.url("/notice.txt"))
        with pytest.raises(BlockedError, match="could not be read"):
            await fetcher.fetch(pages.url("/notice.txt"), respect_robots=True, max_age=0)
        stale = await fetcher.fetch(pages.url("/notice.txt"), respect_robots=True, max_age=0, stale_if_error=True)
    assert stale.stale and stale.content == "the pier is closed for repairs"
    assert stale.stale_reason is not None and "robots.txt" in stale.stale_reason
    assert pages.count("/notice.txt") == 1


async def test_a_page_that_turns_no_store_takes_its_older_copy_with_it(
    pages: PageServer, redis_url: str | None, tmp_path: Path
) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host]}, redis_url=redis_url, data_dir=tmp_path)
    pages.route("GET", "/balance.txt", _text("balance: 12 coins"))
    async with Runtime(settings) as runtime:
        await fetch(pages.url("/balance.txt"), fetcher=runtime.fetcher)
        private = Reply(body="balance: 9 coins", content_type="text/plain", headers={"Cache-Control": "no-store"})
        pages.route("GET", "/balance.txt", private)
        now = await fetch(pages.url("/balance.txt"), fetcher=runtime.fetcher, max_age=0)
        later = await fetch(pages.url("/balance.txt"), fetcher=runtime.fetcher)
        pages.route("GET", "/balance.txt", Reply(body="down", status=503, content_type="text/plain"))
        with pytest.raises(UpstreamError):
            await fetch(pages.url("/balance.txt"), fetcher=runtime.fetcher, stale_if_error=True)
    assert now.no_store and now.content == "balance: 9 coins"
    assert not later.cached and later.content == "balance: 9 coins"  # never the older 12 coins again
    assert pages.count("/balance.txt") == 4


async def test_weblens_own_reading_running_out_of_time_is_no_site_failure(pages: PageServer) -> None:
    # the site answered at once; only the extraction deadline passed: that timeout stands, no stale copy
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 0.5})
    pages.route("GET", "/report.pdf", Reply(body=make_pdf(["Quarterly figures"]), content_type="application/pdf"))
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        assert (await tool.execute({"url": pages.url("/report.pdf")})).ok
        pages.route("GET", "/report.pdf", Reply(body=slow_pdf(200_000), content_type="application/pdf"))
        result = await tool.execute({"url": pages.url("/report.pdf"), "max_age": 0, "stale_if_error": True})
    assert not result.ok and result.error is not None and result.error.code == "timeout"
    assert "extracting its text was stopped" in result.error.message and "STALE" not in result.text
    assert result.error.details["measured"] in ("cpu_time", "wall_since_taken")


async def test_a_fragment_names_a_place_in_the_same_page_and_its_cached_copy(
    pages: PageServer, settings: Settings
) -> None:
    # the #fragment is never sent to the server: one download, one copy, each shown as asked
    pages.route("GET", "/guide.txt", _text("install it with pip"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.fetch(pages.url("/guide.txt"))
        section = await fetcher.fetch(pages.url("/guide.txt#install"))
        pages.route("GET", "/guide.txt", Reply(body="down", status=503, content_type="text/plain"))
        quoted = pages.url("/guide.txt#:~:text=pip")
        stale = await fetcher.fetch(quoted, max_age=0, stale_if_error=True)
    assert section.cached and section.url == section.final_url == pages.url("/guide.txt#install")
    assert stale.stale and stale.content == "install it with pip" and stale.url == quoted
    assert pages.count("/guide.txt") == 2  # the first download and the failed one


async def test_a_zero_cache_time_always_downloads_but_keeps_a_copy_for_stale_if_error(pages: PageServer) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "cache_ttl_s": 0, "stale_ttl_s": 86_400})
    pages.route("GET", "/rates.txt", _text("mooring 12 coins a night"))
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.fetch(pages.url("/rates.txt"))
        again = await fetcher.fetch(pages.url("/rates.txt"))
        pages.route("GET", "/rates.txt", Reply(body="down", status=503, content_type="text/plain"))
        with pytest.raises(UpstreamError):
            await fetcher.fetch(pages.url("/rates.txt"))
        stale = await fetcher.fetch(pages.url("/rates.txt"), stale_if_error=True)
    assert not again.cached  # never served as fresh
    assert stale.stale and stale.content == "mooring 12 coins a night" and stale.fetched_at == again.fetched_at
    assert pages.count("/rates.txt") == 4
