from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError, UpstreamError
from weblens.search import search
from weblens.testing import Reply
from weblens.testing.providers import FakeBrave, fixture_json


async def test_results_are_cleaned_and_key_is_sent(brave: FakeBrave, make_settings: Callable[..., Settings]) -> None:
    response = await search("sourdough  starter", 2, provider="brave", settings=make_settings(brave))
    assert response.provider == "brave"
    assert [r.position for r in response.results] == [1, 2]
    first = response.results[0]
    assert first.url == "https://example.com/baking/starter-not-rising"
    assert "<strong>" not in first.snippet and "sluggish starter" in first.snippet
    assert first.published_at == "2026-02-11T08:15:00"
    request = brave.requests[0]
    assert request.headers["x-subscription-token"] == brave.api_key
    assert request.query == {"q": "sourdough starter", "count": "2"}


async def test_news(brave: FakeBrave, make_settings: Callable[..., Settings]) -> None:
    response = await search("tower", kind="news", provider="brave", settings=make_settings(brave))
    assert brave.requests[0].path == "/res/v1/news/search"
    assert response.results and response.results[0].provider == "brave"


@pytest.mark.parametrize("status", [401, 422])
async def test_refused_key_names_the_variable(
    status: int, brave: FakeBrave, make_settings: Callable[..., Settings]
) -> None:
    brave.fail(status, fixture_json("brave_error_422_token_invalid.json"))
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="brave", settings=make_settings(brave))
    assert "BRAVE_API_KEY" in info.value.message
    assert "subscription token is invalid" in info.value.message


async def test_429_carries_the_reset_wait(brave: FakeBrave, make_settings: Callable[..., Settings]) -> None:
    too_many = Reply(status=429, body=fixture_json("brave_error_429_rate_limited.json"),
                     headers={"X-RateLimit-Reset": "30, 1000"})
    brave.misbehave(too_many, times=2)
    with pytest.raises(RateLimitedError) as info:
        await search("q", provider="brave", settings=make_settings(brave))
    assert info.value.retry_after_s == 30
    assert "Request rate limit exceeded" in info.value.message


async def test_errors_list_shape_gives_status_and_description(
    brave: FakeBrave, make_settings: Callable[..., Settings]
) -> None:
    brave.fail(500, {"type": "ErrorResponse", "errors": [{"detail": "Backend unavailable."}]})
    with pytest.raises(UpstreamError) as info:
        await search("q", provider="brave", settings=make_settings(brave))
    assert info.value.status == 500
    assert "HTTP 500" in info.value.message and "Backend unavailable." in info.value.message


async def test_missing_key_is_not_configured(brave: FakeBrave) -> None:
    settings = Settings(brave={"base_url": brave.url()})
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="brave", settings=settings)
    assert "BRAVE_API_KEY" in info.value.message and "[brave]" in info.value.message
    assert brave.requests == []


async def test_422_about_the_request_is_not_a_key_problem(
    brave: FakeBrave, make_settings: Callable[..., Settings]
) -> None:
    brave.fail(422, {"type": "ErrorResponse", "error": {"code": "VALIDATION", "detail": "Unable to validate request"}})
    with pytest.raises(UpstreamError) as info:
        await search("q", provider="brave", settings=make_settings(brave))
    assert info.value.status == 422 and "Unable to validate request" in info.value.message


async def test_long_queries_are_cut_to_what_brave_accepts(
    brave: FakeBrave, make_settings: Callable[..., Settings]
) -> None:
    """Brave takes 400 characters and 50 words (the fake answers 422 VALIDATION past either)."""
    words = await search("word " * 200, provider="brave", settings=make_settings(brave))
    chars = await search("长" * 600, provider="brave", settings=make_settings(brave))
    assert words.results and chars.results
    assert [r.query["q"] for r in brave.requests] == [" ".join(["word"] * 50), "长" * 400]


async def test_an_unexpected_web_section_is_no_results_not_a_crash(
    brave: FakeBrave, make_settings: Callable[..., Settings]
) -> None:
    brave.misbehave(Reply(body={"type": "search", "web": ["not", "an", "object"]}))
    response = await search("lantern", provider="brave", settings=make_settings(brave))
    assert response.provider == "brave" and response.results == []
