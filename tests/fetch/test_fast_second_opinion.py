"""weblens' stand-in that starts trafilatura's full cascade from its fast pass's main extraction
(`weblens.fetch.fast_second_opinion`): the cascade reads every page as trafilatura's own does, and the fast pass's
result is kept only when it is the cascade's too (tests/fetch/test_swap.py: not used on a trafilatura whose code
changed)."""

from __future__ import annotations

import pytest
import trafilatura
from trafilatura.deduplication import LRUCache

from weblens.fetch import fast_second_opinion, wild_text
from weblens.fetch.extract import extract
from weblens.testing.pages import article_html, page_fixture

_OPTIONS = {"include_comments": False, "include_tables": True, "output_format": "markdown"}
# where trafilatura finds an article block, and where it falls back to the page's loose paragraphs (which reads
# `fast`: the fast pass's result is not the cascade's)
_BLOCK = {"article": article_html(), **{n: page_fixture(n).decode() for n in ("page_docs.html", "page_listing.html")}}
_LOOSE = {n: page_fixture(n).decode() for n in ("page_forum_thread.html", "page_service_features.html")}


@pytest.fixture
def installed() -> None:
    # what reading the first HTML page does; the fallback's counter tells when the fast pass is not the cascade's
    if not (wild_text.install() and fast_second_opinion.install()):
        pytest.skip("this trafilatura orders its cascade with other code: the stand-in is not used")


@pytest.mark.parametrize("html", [*_BLOCK.values(), *_LOOSE.values()], ids=[*_BLOCK, *_LOOSE])
@pytest.mark.usefixtures("installed")
def test_the_cascade_after_a_fast_pass_reads_as_trafilatura_does(html: str) -> None:
    with fast_second_opinion.stock():
        assert not fast_second_opinion.installed()
        stock = trafilatura.extract(html, fast=False, **_OPTIONS)  # type: ignore[arg-type]
    assert stock
    with fast_second_opinion.remembered() as first:
        fast = trafilatura.extract(html, fast=True, **_OPTIONS)  # type: ignore[arg-type]
    with fast_second_opinion.reused(first):
        assert trafilatura.extract(html, fast=False, **_OPTIONS) == stock  # type: ignore[arg-type]
    assert fast  # the fast pass itself is untouched: its result is copied, not handed on
    with fast_second_opinion.remembered():
        assert trafilatura.extract(html, fast=True, **_OPTIONS) == fast  # type: ignore[arg-type]


@pytest.mark.usefixtures("installed")
def test_the_fast_pass_is_kept_only_where_the_cascade_would_find_the_same() -> None:
    for name, html in {**_BLOCK, **_LOOSE}.items():
        with fast_second_opinion.remembered() as first:
            trafilatura.extract(html, fast=True, **_OPTIONS)  # type: ignore[arg-type]
        assert (first.result is not None) == (name in _BLOCK), name


@pytest.mark.usefixtures("installed")
def test_nothing_is_kept_or_handed_back_outside_the_two_passes() -> None:
    html = _BLOCK["article"]
    with fast_second_opinion.remembered() as first:
        pass
    trafilatura.extract(html, fast=True, **_OPTIONS)  # type: ignore[arg-type]
    assert first.result is None
    with fast_second_opinion.remembered() as first:
        trafilatura.extract(html, fast=True, **_OPTIONS)  # type: ignore[arg-type]
    other = page_fixture("page_docs.html").decode()
    with fast_second_opinion.stock():
        stock = trafilatura.extract(other, fast=False, **_OPTIONS)  # type: ignore[arg-type]
    assert trafilatura.extract(other, fast=False, **_OPTIONS) == stock  # type: ignore[arg-type]


@pytest.mark.parametrize("html", [*_BLOCK.values(), *_LOOSE.values()], ids=[*_BLOCK, *_LOOSE])
@pytest.mark.usefixtures("installed")
def test_weblens_reads_the_same(html: str) -> None:
    with fast_second_opinion.stock():
        stock = extract(html.encode(), "text/html; charset=utf-8", "https://example.com/")
    assert extract(html.encode(), "text/html; charset=utf-8", "https://example.com/") == stock


@pytest.mark.usefixtures("installed")
def test_a_deduplicating_pass_is_read_as_trafilatura_reads_it() -> None:
    """Asked to deduplicate, trafilatura's main extraction counts the texts it has seen in a record shared across
    calls: skipping the cascade's would skip its counting, so such a pass is neither kept nor reused."""
    repeated = "A long paragraph of article text that runs well past one hundred characters, so that it is counted."
    between = (
        "Another paragraph sits between the two copies so that the filter of adjacent repeats does not merge them."
    )
    page = f"<html><body><article><h1>T</h1><p>{repeated}</p><p>{between}</p><p>{repeated}</p></article></body></html>"
    stock_seen, seen = LRUCache(maxsize=64), LRUCache(maxsize=64)
    with fast_second_opinion.stock():
        trafilatura.extract(page, fast=True, deduplicate=stock_seen, **_OPTIONS)  # type: ignore[arg-type]
        stock = trafilatura.extract(page, fast=False, deduplicate=stock_seen, **_OPTIONS)  # type: ignore[arg-type]
    with fast_second_opinion.remembered() as first:
        trafilatura.extract(page, fast=True, deduplicate=seen, **_OPTIONS)  # type: ignore[arg-type]
    assert first.result is None
    with fast_second_opinion.reused(first):
        assert trafilatura.extract(page, fast=False, deduplicate=seen, **_OPTIONS) == stock  # type: ignore[arg-type]
    assert dict(seen.cache) == dict(stock_seen.cache)


@pytest.mark.usefixtures("installed")
def test_a_kept_result_is_handed_once_and_only_to_the_same_page() -> None:
    html = _BLOCK["article"]
    with fast_second_opinion.stock():
        stock = trafilatura.extract(html, fast=False, url="https://b.example/", **_OPTIONS)  # type: ignore[arg-type]
    with fast_second_opinion.remembered() as first:
        trafilatura.extract(html, fast=True, url="https://a.example/", **_OPTIONS)  # type: ignore[arg-type]
    assert first.result is not None
    with fast_second_opinion.reused(first):  # another address: read whole, and the result is spent
        assert trafilatura.extract(html, fast=False, url="https://b.example/", **_OPTIONS) == stock  # type: ignore[arg-type]
    assert first.result is None
