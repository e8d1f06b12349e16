"""The optional search parameters in each provider's own words, exactly as its API documents them."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from weblens.config import Settings
from weblens.search import search
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo, FakeSearxng, FakeSerper, FakeTavily

Make = Callable[..., Settings]
ALL = {"time_range": "week", "country": "de", "language": "DE", "safesearch": "strict"}


async def test_brave(brave: FakeBrave, make_settings: Make) -> None:
    response = await search("q", settings=make_settings(brave), **ALL)  # type: ignore[arg-type]
    sent = brave.requests[0].query
    assert (sent["freshness"], sent["country"], sent["search_lang"], sent["safesearch"]) == ("pw", "DE", "de", "strict")
    assert response.applied == {param: {"brave": "native"} for param in ALL}


async def test_tavily(tavily: FakeTavily, make_settings: Make) -> None:
    response = await search("q", settings=make_settings(tavily), **ALL)  # type: ignore[arg-type]
    body = tavily.requests[0].json()
    assert (body["time_range"], body["country"]) == ("week", "germany")
    assert "language" not in body and "safesearch" not in body and "safe_search" not in body
    assert response.applied["language"] == {"tavily": "not_possible"}
    news = await search("q", kind="news", country="US", settings=make_settings(tavily))
    assert "country" not in tavily.requests[1].json()  # Tavily applies country to general search only
    assert news.applied == {"country": {"tavily": "not_possible"}, "topic": {"tavily": "native"}}


async def test_serper(serper: FakeSerper, make_settings: Make) -> None:
    response = await search(
        "tower", settings=make_settings(serper), include_domains=["a.example", "b.example"],
        exclude_domains=["c.example"], **ALL,  # type: ignore[arg-type]
    )
    body = serper.requests[0].json()
    assert body["q"] == "tower site:a.example OR site:b.example -site:c.example"
    assert (body["tbs"], body["gl"], body["hl"]) == ("qdr:w", "de", "de")
    assert response.applied["safesearch"] == {"serper": "not_possible"}


async def test_searxng(searxng: FakeSearxng, make_settings: Make) -> None:
    await search("q", kind="news", settings=make_settings(searxng), **ALL)  # type: ignore[arg-type]
    sent = searxng.requests[0].query
    picked = (sent["language"], sent["time_range"], sent["safesearch"], sent["categories"])
    assert picked == ("de-DE", "week", "2", "news")
    only_country = await search("q", country="DE", settings=make_settings(searxng))
    assert "language" not in searxng.requests[1].query
    assert only_country.applied == {"country": {"searxng": "not_possible"}}


async def test_duckduckgo(ddg: FakeDuckDuckGo, make_settings: Make) -> None:
    response = await search("q", settings=make_settings(ddg), **ALL)  # type: ignore[arg-type]
    form = dict(parse_qsl(ddg.requests[0].body.decode()))
    assert (form["df"], form["kp"], form["kl"]) == ("w", "1", "wt-wt")
    assert response.applied["country"] == response.applied["language"] == {"duckduckgo": "not_possible"}
    assert response.applied["time_range"] == {"duckduckgo": "native"}


async def test_without_parameters_nothing_extra_is_sent(brave: FakeBrave, make_settings: Make) -> None:
    response = await search("q", settings=make_settings(brave))
    assert set(brave.requests[0].query) == {"q", "count"} and response.applied == {}
