"""Paging: cuts on paragraph boundaries, and the next page comes from the cache."""

from __future__ import annotations

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.fetch.paging import page_bounds
from weblens.testing.pages import PageServer


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
