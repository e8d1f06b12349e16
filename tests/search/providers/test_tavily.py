from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError, UpstreamError
from weblens.search import search
from weblens.testing.providers import FakeTavily, fixture_json


async def test_lean_body_with_bearer_key(tavily: FakeTavily, make_settings: Callable[..., Settings]) -> None:
    response = await search("tool library", 3, provider="tavily", settings=make_settings(tavily))
    request = tavily.requests[0]
    assert request.headers["authorization"] == f"Bearer {tavily.api_key}"
    assert request.json() == {
        "query": "tool library",
        "search_depth": "basic",
        "topic": "general",
        "max_results": 3,
        "include_answer": False,
        "include_raw_content": False,
        "include_images": False,
    }
    assert response.results[0].snippet.startswith("Members borrow drills")
    assert response.extras["answer"].startswith("Community tool libraries")


async def test_bad_key(tavily: FakeTavily, make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(tavily, tavily={"api_key": "wrong"})
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="tavily", settings=settings)
    assert "HTTP 401" in info.value.message and "TAVILY_API_KEY" in info.value.message
    assert "wrong" not in info.value.message


@pytest.mark.parametrize("status", [432, 433])
async def test_plan_limits_are_rate_limits(
    status: int, tavily: FakeTavily, make_settings: Callable[..., Settings]
) -> None:
    tavily.fail(status, fixture_json(f"tavily_error_{status}.json"))
    with pytest.raises(RateLimitedError) as info:
        await search("q", provider="tavily", settings=make_settings(tavily))
    assert f"HTTP {status}" in info.value.message and "limit" in info.value.message


async def test_server_error_detail(tavily: FakeTavily, make_settings: Callable[..., Settings]) -> None:
    tavily.fail(500, fixture_json("tavily_error_500.json"))
    with pytest.raises(UpstreamError) as info:
        await search("q", provider="tavily", settings=make_settings(tavily))
    assert info.value.status == 500 and "Internal Server Error" in info.value.message


async def test_missing_results_key_is_zero_results(tavily: FakeTavily, make_settings: Callable[..., Settings]) -> None:
    tavily.fail(200, {"query": "q", "response_time": 0.1})
    response = await search("q", provider="tavily", settings=make_settings(tavily))
    assert response.results == [] and response.provider == "tavily"


async def test_long_queries_are_cut_to_what_tavily_accepts(
    tavily: FakeTavily, make_settings: Callable[..., Settings]
) -> None:
    """Tavily answers 400 "Query is too long" past 400 characters (the fake does too): a long
    question from a model is cut, not a failed request that counts against the provider."""
    response = await search("灯笼节的历史 " * 100, provider="tavily", settings=make_settings(tavily))
    assert response.provider == "tavily" and response.results
    assert tavily.last_received["query"] == ("灯笼节的历史 " * 100)[:400]
