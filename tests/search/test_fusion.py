"""Several providers at once: one list, each page once, fused by rank, failures typed."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from weblens.config import Settings
from weblens.errors import ToolValidationError, UpstreamError
from weblens.search import SearchRouter, search
from weblens.search.models import make_request
from weblens.testing import RecordedRequest, Reply
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo, FakeSerper, FakeTavily, fixture

Make = Callable[..., Settings]


def hit(url: str, title: str = "t") -> dict[str, str]:
    return {"title": title, "url": url, "snippet": f"about {url}"}


async def test_the_same_page_from_several_providers_is_one_result_naming_each_rank(
    tavily: FakeTavily, brave: FakeBrave, serper: FakeSerper, make_settings: Make
) -> None:
    tavily.answer_with([hit("https://a.example/x", "A from tavily"), hit("https://b.example/")])
    brave.answer_with([hit("https://b.example"), hit("HTTP://www.A.example/x/?utm_source=brave&gclid=1#top")])
    serper.answer_with([hit("https://c.example/only-serper")])
    response = await search("q", providers="tavily,brave,serper", settings=make_settings(tavily, brave, serper))
    assert response.providers == ["tavily", "brave", "serper"] and not response.partial
    found = {r.url: [(rank.provider, rank.rank) for rank in r.found_by] for r in response.results}
    assert found == {
        "https://a.example/x": [("tavily", 1), ("brave", 2)],
        "https://b.example": [("tavily", 2), ("brave", 1)],  # as brave, who ranked it first, wrote it
        "https://c.example/only-serper": [("serper", 1)],
    }
    first = response.results[0]
    assert first.title == "A from tavily" and first.position == 1  # the best-ranked provider's title
    assert first.score == pytest.approx(1 / 61 + 1 / 62, abs=1e-6)
    assert response.results[-1].url == "https://c.example/only-serper"  # found once ranks below found twice


async def test_a_chinese_page_written_in_unicode_or_in_escapes_is_one_result(
    brave: FakeBrave, serper: FakeSerper, make_settings: Make
) -> None:
    """Brave writes a Wikipedia path in Chinese, Google (Serper) in its UTF-8 escapes: the same page,
    sent the same way, so one result found by both (it was two results, each found by one)."""
    brave.answer_with([hit("https://zh.wikipedia.org/wiki/元宵节", "元宵节 - 维基百科")])
    serper.answer_with([hit("https://zh.wikipedia.org/wiki/%E5%85%83%E5%AE%B5%E8%8A%82", "元宵节")])
    response = await search("元宵节", providers="brave,serper", settings=make_settings(brave, serper))
    [page] = response.results
    assert [(rank.provider, rank.rank) for rank in page.found_by] == [("brave", 1), ("serper", 1)]


async def test_providers_are_asked_at_the_same_time(make_settings: Make) -> None:
    both_waiting = threading.Barrier(2, timeout=10)  # each answers only once the other was asked too

    def answer_when_both_arrived(fixture_name: str) -> Callable[[RecordedRequest], Reply]:
        def handle(request: RecordedRequest) -> Reply:
            both_waiting.wait()  # asked one after the other, the barrier breaks and the search fails
            return Reply(body=fixture(fixture_name), content_type="application/json")

        return handle

    async with FakeTavily() as tavily, FakeSerper() as serper:
        tavily.route("POST", "/search", answer_when_both_arrived("tavily_search_ok.json"))
        serper.route("POST", "/search", answer_when_both_arrived("serper_search_ok.json"))
        response = await search("q", providers=["tavily", "serper"], settings=make_settings(tavily, serper))
    assert response.providers == ["tavily", "serper"] and not response.partial


async def test_one_failing_provider_makes_a_partial_answer_that_is_not_cached(
    tavily: FakeTavily, ddg: FakeDuckDuckGo, make_settings: Make, tmp_path: Path
) -> None:
    settings = make_settings(tavily, ddg, cache={"enabled": True, "path": tmp_path / "c.sqlite3"})
    tavily.fail(503, {"detail": {"error": "down"}})
    async with SearchRouter.from_settings(settings) as router:
        partial = await router.search(make_request(query="q"), providers=["tavily", "duckduckgo"])
        complete = await router.search(make_request(query="q"), providers=["tavily", "duckduckgo"])
        cached = await router.search(make_request(query="q"), providers=["tavily", "duckduckgo"])
    assert partial.partial and partial.providers == ["duckduckgo"] and partial.results
    assert [(f.provider, f.code, f.status) for f in partial.failures] == [("tavily", "upstream_error", 503)]
    assert not complete.cached and not complete.partial and complete.providers == ["tavily", "duckduckgo"]
    assert cached.cached and tavily.count() == 2


async def test_when_every_fused_provider_fails_the_error_is_typed(
    tavily: FakeTavily, ddg: FakeDuckDuckGo, make_settings: Make
) -> None:
    tavily.fail(500, {"detail": {"error": "down"}})
    ddg.fail(500, "down")
    with pytest.raises(UpstreamError) as info:
        await search("q", providers=["tavily", "duckduckgo"], settings=make_settings(tavily, ddg))
    assert [f["provider"] for f in info.value.details["failures"]] == ["tavily", "duckduckgo"]


async def test_all_means_the_configured_providers_that_can_search_this_kind(
    brave: FakeBrave, ddg: FakeDuckDuckGo, make_settings: Make
) -> None:
    news = await search("q", kind="news", providers="all", settings=make_settings(brave, ddg))
    assert news.providers == ["brave"] and not news.partial and ddg.count() == 0
    with pytest.raises(ToolValidationError, match="unknown search provider 'bing'"):
        await search("q", providers=["brave", "bing"], settings=make_settings(brave, ddg))
