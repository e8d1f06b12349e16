"""`weblens.fetch(url, query=..., max_tokens=...)` against long local pages of four kinds."""

from __future__ import annotations

import pytest

import weblens
from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import ToolValidationError
from weblens.fetch.tokens import o200k
from weblens.testing.long_pages import LONG_PAGES, LongPage
from weblens.testing.pages import PageServer


@pytest.mark.parametrize("long_page", LONG_PAGES, ids=lambda p: p.kind)
@pytest.mark.parametrize("budget", [400, 1000])
async def test_the_answer_comes_back_with_its_heading_path_and_offsets(
    pages: PageServer, settings: Settings, cache: Cache, long_page: LongPage, budget: int
) -> None:
    url = pages.url(long_page.path)
    page = await weblens.fetch(url, query=long_page.question, max_tokens=budget, settings=settings, cache=cache)
    whole = await weblens.fetch(url, max_length=1_000_000, settings=settings, cache=cache)
    document = whole.content
    assert o200k().count(page.content) == page.tokens <= budget
    assert page.tokenizer == "o200k_base" and page.query == long_page.question
    answering = [p for p in page.passages if long_page.answer in document[p.start : p.end]]
    assert len(answering) == 1, page.content
    # the answer sits under its heading; a heading that repeats the page's title is the title given beside the text
    assert long_page.heading in answering[0].heading_path or page.title.startswith(long_page.heading)
    assert answering[0].score == max(p.score for p in page.passages)
    for passage in page.passages:  # each passage is shown exactly as the document has it
        assert f"[{passage.start}–{passage.end}]" in page.content
        assert document[passage.start : passage.end] in page.content
    assert page.left_out == page.total_length - sum(p.end - p.start for p in page.passages) > 0
    assert "characters left out]" in page.content and page.truncated
    assert len(page.content) < len(document) / 2


async def test_a_second_query_and_a_next_page_cost_no_request(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    forum = LONG_PAGES[0]
    url = pages.url(forum.path)
    first = await weblens.fetch(url, query=forum.question, max_tokens=500, settings=settings, cache=cache)
    other = await weblens.fetch(url, query="member12 reply", max_tokens=500, settings=settings, cache=cache)
    gap = first.passages[0].end
    reading_on = await weblens.fetch(url, start_index=gap, max_tokens=300, settings=settings, cache=cache)
    assert pages.count(forum.path) == 1
    assert not first.cached and other.cached and reading_on.cached
    assert "member12" in other.content and other.passages != first.passages
    assert reading_on.start_index == gap and reading_on.tokens is not None and reading_on.tokens <= 300


async def test_max_tokens_without_a_query_cuts_on_a_paragraph_boundary(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    url = pages.url(LONG_PAGES[1].path)
    page = await weblens.fetch(url, max_tokens=300, settings=settings, cache=cache)
    assert page.tokens is not None and 150 <= page.tokens <= 300
    assert page.content.endswith("\n\n") and page.next_start_index == len(page.content)
    assert page.passages == [] and page.query is None
    rest = await weblens.fetch(url, start_index=page.next_start_index, max_tokens=300, settings=settings, cache=cache)
    assert rest.start_index == page.next_start_index and rest.cached


async def test_a_query_nothing_matches_says_so_and_shows_the_start(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    page = await weblens.fetch(
        pages.url("/article"), query="zeppelin quantum marmalade", max_tokens=200, settings=settings, cache=cache
    )
    assert page.note is not None and "No passage matches the query" in page.note
    assert page.passages == [] and page.start_index == 0 and page.tokens is not None and page.tokens <= 200


async def test_start_index_with_a_query_searches_from_there_on(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    docs = LONG_PAGES[1]
    url = pages.url(docs.path)
    found = await weblens.fetch(url, query=docs.question, max_tokens=600, settings=settings, cache=cache)
    later = await weblens.fetch(
        url, query=docs.question, start_index=found.passages[-1].end, max_tokens=600, settings=settings, cache=cache
    )
    assert all(p.start >= found.passages[-1].end for p in later.passages)
    assert docs.answer not in later.content


async def test_max_length_still_holds_with_a_query(pages: PageServer, settings: Settings, cache: Cache) -> None:
    product = LONG_PAGES[2]
    page = await weblens.fetch(
        pages.url(product.path), query=product.question, max_length=700, settings=settings, cache=cache
    )
    assert len(page.content) <= 700 and product.answer in page.content
    assert page.tokens is not None and page.tokens <= 2000  # fetch.query_max_tokens


@pytest.mark.parametrize(
    ("options", "message"),
    [({"max_tokens": 0}, "max_tokens must be a positive"), ({"query": "x" * 1001}, "query must be at most")],
)
async def test_bad_budgets_and_queries_are_clear_errors(
    pages: PageServer, settings: Settings, cache: Cache, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ToolValidationError, match=message):
        await weblens.fetch(pages.url("/article"), settings=settings, cache=cache, **options)  # type: ignore[arg-type]
    assert pages.count("/article") == 0
