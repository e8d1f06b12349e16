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


async def test_chinese_and_japanese_in_brave_spelling(brave: FakeBrave, make_settings: Make) -> None:
    """Brave takes `search_lang` from its own list (`zh-hans`, `zh-hant`, `jp`) and answers 422 to
    `zh` or `ja`, as the fake does: the common codes are sent in Brave's spelling."""
    asked = ["zh", "zh-CN", "zh-TW", "zh-hant-hk", "ja", "pt", "en-US"]
    for language in asked:
        response = await search("灯笼节", language=language, settings=make_settings(brave))
        assert response.provider == "brave" and response.results, language
        assert response.applied == {"language": {"brave": "native"}}
    sent = [r.query["search_lang"] for r in brave.requests]
    assert sent == ["zh-hans", "zh-hans", "zh-hant", "zh-hant", "jp", "pt-br", "en"]


async def test_a_code_brave_does_not_know_is_not_sent(brave: FakeBrave, make_settings: Make) -> None:
    """Brave's country list has 36 codes (no Vietnam, Singapore, Ireland...), and few languages:
    others would be a 422; the search goes to all regions and says the filter was not applied."""
    response = await search("phở", country="VN", language="yo", settings=make_settings(brave))
    assert response.provider == "brave" and response.results
    sent = brave.requests[0].query
    assert sent["country"] == "ALL" and "search_lang" not in sent
    assert response.applied == {"country": {"brave": "not_possible"}, "language": {"brave": "not_possible"}}


async def test_tavily_country_names_from_its_list(tavily: FakeTavily, make_settings: Make) -> None:
    """Tavily takes ~170 country names and answers 400 "Invalid country" to others: its own names
    where they differ from babel's (Czechia, Türkiye), and no country where it has none."""
    for code in ("CZ", "TR", "BA", "US"):
        response = await search("q", country=code, settings=make_settings(tavily))
        assert response.provider == "tavily" and response.applied == {"country": {"tavily": "native"}}
    hong_kong = await search("q", country="HK", settings=make_settings(tavily))
    sent = [r.json().get("country") for r in tavily.requests]
    assert sent == ["czech republic", "turkey", "bosnia and herzegovina", "united states", None]
    assert hong_kong.provider == "tavily" and hong_kong.applied == {"country": {"tavily": "not_possible"}}


async def test_searxng_gets_a_language_it_validates(searxng: FakeSearxng, make_settings: Make) -> None:
    """SearXNG refuses a `language` outside `xx` / `xx-YY` with a 400 (as the fake does)."""
    for language in ("zh-hans", "pt-br", "sr-latn-rs"):
        response = await search("q", language=language, settings=make_settings(searxng))
        assert response.provider == "searxng" and response.results
    assert [r.query["language"] for r in searxng.requests] == ["zh", "pt-br", "sr"]
