from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError, UpstreamError
from weblens.search import search
from weblens.testing.providers import FakeDuckDuckGo, FakeSearxng, fixture_json


async def test_json_format_is_asked(searxng: FakeSearxng, make_settings: Callable[..., Settings]) -> None:
    response = await search("rain barrel", provider="searxng", settings=make_settings(searxng))
    assert searxng.requests[0].query["format"] == "json"
    assert response.results[0].url == "https://example.com/diy/rain-barrel"


async def test_json_disabled_says_how_to_enable(searxng: FakeSearxng, make_settings: Callable[..., Settings]) -> None:
    searxng.fail(403, "<h1>403 Forbidden</h1>")
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="searxng", settings=make_settings(searxng))
    assert "formats" in info.value.message


@pytest.mark.parametrize(("status", "name", "said"), [(400, "searxng_error_400.json", "No query"),
                                                      (500, "searxng_error_500.json", "search error")])
async def test_error_shape(status: int, name: str, said: str, searxng: FakeSearxng,
                           make_settings: Callable[..., Settings]) -> None:
    searxng.fail(status, fixture_json(name))
    with pytest.raises(UpstreamError) as info:
        await search("q", provider="searxng", settings=make_settings(searxng))
    assert info.value.status == status and said in info.value.message


async def test_no_base_url_names_the_variable() -> None:
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="searxng", settings=Settings())
    assert "WEBLENS_SEARXNG_BASE_URL" in info.value.message


async def test_engines_that_blocked_the_instance_are_not_no_results(
    searxng: FakeSearxng, make_settings: Callable[..., Settings]
) -> None:
    """An instance whose engines all refused it answers 200 with no results: a rate limit, and the
    next provider answers (here DuckDuckGo), rather than "nothing found" for the query."""
    blocked = (("google", "Suspended: too many requests"), ("duckduckgo", "Suspended: CAPTCHA"))
    searxng.engines_fail(*blocked)
    with pytest.raises(RateLimitedError) as info:
        await search("rain barrel", provider="searxng", settings=make_settings(searxng))
    assert "google: Suspended: too many requests" in info.value.message and "not 'no results'" in info.value.message
    async with FakeDuckDuckGo() as ddg:
        searxng.engines_fail(*blocked)
        response = await search("rain barrel", settings=make_settings(searxng, ddg))
    assert response.provider == "duckduckgo" and response.results
    assert [(f.provider, f.code) for f in response.failures] == [("searxng", "rate_limited")]


async def test_engines_that_timed_out_are_an_upstream_error(
    searxng: FakeSearxng, make_settings: Callable[..., Settings]
) -> None:
    searxng.engines_fail(("google", "timeout"), ("bing", "HTTP error"))
    with pytest.raises(UpstreamError, match=r"google: timeout; bing: HTTP error") as info:
        await search("rain barrel", provider="searxng", settings=make_settings(searxng))
    assert info.value.retryable


async def test_results_with_one_engine_down_are_an_answer(
    searxng: FakeSearxng, make_settings: Callable[..., Settings]
) -> None:
    assert fixture_json("searxng_ok.json")["unresponsive_engines"]  # the recorded answer has one: google, timeout
    response = await search("rain barrel", provider="searxng", settings=make_settings(searxng))
    assert response.provider == "searxng" and response.results and response.failures == []


async def test_a_redirect_says_where_to_point_the_base_url(
    searxng: FakeSearxng, make_settings: Callable[..., Settings]
) -> None:
    """An instance behind a proxy that redirects `http://` to `https://` answered 301: that was "a
    malformed answer (not JSON)"; now it names the new address and the variable to change."""
    moved = "https://searx.example/search?q=q&format=json&token=s3cret-instance-token"
    searxng.fail(301, "", headers={"Location": moved})
    with pytest.raises(UpstreamError) as info:
        await search("q", provider="searxng", settings=make_settings(searxng))
    message = info.value.message
    assert info.value.status == 301 and "https://searx.example/search" in message
    assert "WEBLENS_SEARXNG_BASE_URL" in message and "s3cret-instance-token" not in message
