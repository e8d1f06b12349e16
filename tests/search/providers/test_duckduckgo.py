from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import RateLimitedError, UpstreamError
from weblens.search import search
from weblens.search.providers.duckduckgo import unwrap_link
from weblens.testing import Reply
from weblens.testing.providers import FakeDuckDuckGo, FakeSearxng, fixture


async def test_parses_results_and_drops_ads(ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]) -> None:
    response = await search("lantern festival", provider="duckduckgo", settings=make_settings(ddg))
    assert [r.url for r in response.results] == [
        "https://example.com/guides/lantern-festival-planning",
        "https://example.org/blog/paper-lanterns-101",
        "https://docs.example.net/community/festival-budget",
    ]
    assert response.results[0].snippet.endswith("permits, volunteers and safety.")
    assert ddg.requests[0].method == "POST" and b"q=lantern+festival" in ddg.requests[0].body


def test_redirect_links_are_unwrapped() -> None:
    href = "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=abc"
    assert unwrap_link(href) == "https://example.com/a?b=1"
    assert unwrap_link("https://example.org/x") == "https://example.org/x"


@pytest.mark.parametrize("misbehave", ["anomaly", "empty_202"])
async def test_202_pages_are_rate_limits_not_no_results(
    misbehave: str, ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    getattr(ddg, misbehave)()
    with pytest.raises(RateLimitedError) as info:
        await search("lantern", provider="duckduckgo", settings=make_settings(ddg))
    assert "not 'no results'" in info.value.message


async def test_anomaly_page_with_200_is_a_rate_limit(
    ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    from weblens.testing.providers import fixture

    ddg.fail(200, fixture("duckduckgo_html_anomaly.html"))
    with pytest.raises(RateLimitedError):
        await search("lantern", provider="duckduckgo", settings=make_settings(ddg))


async def test_results_that_mention_the_bot_check_are_results(
    ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    """A search for DuckDuckGo's own `anomaly.js` finds pages that name it: a page of results is
    results, not the bot check (which has none)."""
    ddg.answer_with([
        {"title": "anomaly.js - detector", "url": "https://github.com/example/detect/blob/main/anomaly.js",
         "snippet": "Why bots use DuckDuckGo's anomaly-modal and challenge-form"},
    ])  # fmt: skip
    response = await search("anomaly.js", provider="duckduckgo", settings=make_settings(ddg))
    assert [r.url for r in response.results] == ["https://github.com/example/detect/blob/main/anomaly.js"]


async def test_explicit_no_results_page_is_empty(ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]) -> None:
    ddg.no_results()
    response = await search("zzqxv", provider="duckduckgo", settings=make_settings(ddg))
    assert response.results == [] and response.provider == "duckduckgo"


async def test_unrecognised_page_is_an_upstream_error(
    ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    ddg.fail(200, "<html><body>Service moved</body></html>")
    with pytest.raises(UpstreamError):
        await search("lantern", provider="duckduckgo", settings=make_settings(ddg))


@pytest.mark.parametrize(
    "page",
    ['<?xml version="1.0" encoding="utf-8"?><html><body>Portal</body></html>', "<!-- maintenance -->"],
    ids=["xml-declaration", "comment-only"],
)
async def test_a_page_lxml_cannot_parse_is_an_upstream_error_and_falls_back(
    page: str, ddg: FakeDuckDuckGo, searxng: FakeSearxng, make_settings: Callable[..., Settings]
) -> None:
    ddg.fail(200, page)
    settings = make_settings(ddg, searxng)
    with pytest.raises(UpstreamError, match="not a results page"):
        await search("lantern", provider="duckduckgo", settings=settings)
    ddg.fail(200, page)
    response = await search("lantern", provider="duckduckgo,searxng", settings=settings)
    assert response.provider == "searxng" and response.failures[0].code == "upstream_error"


async def test_an_unknown_charset_label_is_read_as_utf8(
    ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    ddg.misbehave(Reply(body=fixture("duckduckgo_html_ok.html"), content_type="text/html; charset=bogus-label"))
    response = await search("lantern", provider="duckduckgo", settings=make_settings(ddg))
    assert response.provider == "duckduckgo" and response.results


async def test_403_is_bot_protection_not_a_key(ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]) -> None:
    ddg.fail(403, "<html>Forbidden</html>")
    with pytest.raises(RateLimitedError) as info:
        await search("lantern", provider="duckduckgo", settings=make_settings(ddg))
    assert "HTTP 403" in info.value.message and "api_key" not in info.value.message


@pytest.mark.parametrize("query", ["!w lantern festival", "lantern festival w!", "! lantern festival", "\\lantern"])
async def test_a_bang_in_the_query_still_gets_results(
    query: str, ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]
) -> None:
    """DuckDuckGo answers a !bang (or `!`, or a leading backslash) with a 303 to another site, as the
    fake does: that was an upstream error for a model that wrote `!w`; the query goes without them."""
    response = await search(query, provider="duckduckgo", settings=make_settings(ddg))
    assert response.provider == "duckduckgo" and response.results
    assert "!" not in ddg.last_received["query"] and "\\" not in ddg.last_received["query"]


async def test_a_redirect_from_duckduckgo_says_why(ddg: FakeDuckDuckGo, make_settings: Callable[..., Settings]) -> None:
    ddg.fail(303, "", headers={"Location": "https://www.google.com/search?q=x"})
    with pytest.raises(UpstreamError, match="instead of results") as info:
        await search("lantern", provider="duckduckgo", settings=make_settings(ddg))
    assert "BASE_URL" not in info.value.message
