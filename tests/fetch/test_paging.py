"""Paging: cuts on paragraph boundaries, and the next page comes from the copy the first came from."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.fetch.paging import page_bounds
from weblens.runtime import Runtime
from weblens.testing import Reply
from weblens.testing.pages import PageServer, article_html
from weblens.tools.fetch import FetchTool


def test_a_cut_falls_on_a_paragraph_boundary() -> None:
    text = "alpha beta gamma.\n\n" * 10
    end, next_start = page_bounds(text, 0, 50)
    assert text[:end].endswith("\n\n")
    assert next_start == end == 38


def test_without_a_boundary_the_cut_is_hard() -> None:
    text = "x" * 100
    assert page_bounds(text, 0, 30) == (30, 30)
    assert page_bounds(text, 90, 30) == (100, None)


def test_a_boundary_too_early_is_not_used() -> None:
    text = "ab\n\n" + "y" * 200
    end, _ = page_bounds(text, 0, 100)
    assert end == 100


async def test_pages_cover_the_document_exactly_once(pages: PageServer, settings: Settings, cache: Cache) -> None:
    first = await fetch(pages.url("/article"), settings=settings, cache=cache, max_length=500)
    assert first.truncated and first.next_start_index is not None
    assert first.content.endswith("\n\n")
    parts, page = [first.content], first
    while page.next_start_index is not None:
        page = await fetch(
            pages.url("/article"), settings=settings, cache=cache, max_length=500, start_index=page.next_start_index
        )
        assert page.cached
        parts.append(page.content)
    whole = await fetch(pages.url("/article"), settings=settings, cache=cache)
    assert "".join(parts) == whole.content
    assert page.truncated is False
    assert pages.count("/article") == 1  # every later page came from the cache


async def test_the_cache_outlives_the_call_but_not_its_ttl(pages: PageServer, cache: Cache) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "cache_ttl_s": 0})
    await fetch(pages.url("/plain.txt"), settings=settings, cache=cache)
    await fetch(pages.url("/plain.txt"), settings=settings, cache=cache)
    assert pages.count("/plain.txt") == 2


async def test_a_start_index_past_the_end_is_an_error(pages: PageServer, settings: Settings, cache: Cache) -> None:
    import pytest

    from weblens.errors import ToolValidationError

    with pytest.raises(ToolValidationError, match="past the end"):
        await fetch(pages.url("/plain.txt"), settings=settings, cache=cache, start_index=10_000)


@pytest.fixture
async def tool(settings: Settings) -> AsyncIterator[FetchTool]:
    """`web_fetch` as a model calls it, on a cache of its own."""
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        yield FetchTool(runtime)


def _bulletin(pages: PageServer, edition: str) -> None:
    """/bulletin.html: 40 numbered items of one edition."""
    items = [f"Item {i} ({edition}): the council met and decided the harbour wall needs repair." for i in range(40)]
    pages.route("GET", "/bulletin.html", Reply(body=article_html("Bulletin", items), content_type="text/html"))


async def test_reading_on_with_max_age_0_repeated_reads_the_copy_the_first_page_came_from(
    pages: PageServer, tool: FetchTool
) -> None:
    # a model repeats its arguments: page 2 comes with start_index=next_start_index and max_age=0 again
    _bulletin(pages, "first edition")
    url = pages.url("/bulletin.html")
    first = await tool.execute({"url": url, "max_length": 1000, "max_age": 0})
    whole = await tool.execute({"url": url, "max_length": 1_000_000})
    _bulletin(pages, "second edition")  # the site changed between the pages
    second = await tool.execute(
        {"url": url, "max_length": 1000, "max_age": 0, "start_index": first.data["next_start_index"]}
    )
    anew = await tool.execute({"url": url, "max_length": 1000, "max_age": 0})
    assert first.ok and second.ok and second.data["cached"] is True
    assert second.data["total_length"] == first.data["total_length"]
    assert first.data["content"] + second.data["content"] == whole.data["content"][: second.data["next_start_index"]]
    assert "Read on from the copy the earlier page came from" in second.text
    assert pages.count("/bulletin.html") == 2  # the first page, and starting again at 0
    assert "second edition" in anew.data["content"]


async def test_reading_on_after_the_copy_went_stale_still_reads_it(pages: PageServer, cache: Cache) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "cache_ttl_s": 0.2})
    _bulletin(pages, "first edition")
    first = await fetch(pages.url("/bulletin.html"), settings=settings, cache=cache, max_length=1000)
    _bulletin(pages, "second edition")
    await asyncio.sleep(0.3)  # past fetch.cache_ttl_s, within fetch.stale_ttl_s
    assert first.next_start_index is not None
    second = await fetch(
        pages.url("/bulletin.html"), settings=settings, cache=cache, start_index=first.next_start_index
    )
    assert second.cached and second.fetched_at == first.fetched_at and "first edition" in second.content
    assert second.note is not None and "Read on from the copy" in second.note
    assert pages.count("/bulletin.html") == 1


async def test_reading_on_with_no_copy_kept_says_the_text_may_have_changed(pages: PageServer) -> None:
    settings = Settings(fetch={"allowed_hosts": [pages.host], "cache_ttl_s": 0, "stale_ttl_s": 0})
    _bulletin(pages, "first edition")
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tool = FetchTool(runtime)
        first = await tool.execute({"url": pages.url("/bulletin.html"), "max_length": 1000})
        second = await tool.execute(
            {"url": pages.url("/bulletin.html"), "max_length": 1000, "start_index": first.data["next_start_index"]}
        )
    assert second.ok and second.data["cached"] is False and pages.count("/bulletin.html") == 2
    note = next(line for line in second.text.splitlines() if line.startswith("Note: "))
    assert "downloaded again" in note and "may have changed since the earlier page" in note
    assert "may have changed" not in first.text


async def test_reading_on_a_stale_copy_needs_no_stale_if_error_and_asks_the_site_nothing(
    pages: PageServer, tool: FetchTool
) -> None:
    _bulletin(pages, "first edition")
    url = pages.url("/bulletin.html")
    assert (await tool.execute({"url": url, "max_length": 1000})).ok
    pages.route("GET", "/bulletin.html", Reply(body="down", status=503, content_type="text/plain"))
    stale = await tool.execute({"url": url, "max_length": 1000, "max_age": 0, "stale_if_error": True})
    asked = pages.count("/bulletin.html")
    on = await tool.execute({"url": url, "max_length": 1000, "start_index": stale.data["next_start_index"]})
    assert stale.ok and stale.data["stale"] is True
    warning = next(line for line in stale.text.splitlines() if line.startswith("STALE COPY"))
    assert "Reading on with start_index reads this same copy" in warning
    assert on.ok and on.data["cached"] is True and on.data["fetched_at"] == stale.data["fetched_at"]
    assert pages.count("/bulletin.html") == asked  # no download: no wait for a failing site
