from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError, ToolValidationError, WeblensError
from weblens.search import SearchRouter, search
from weblens.search.models import make_request
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo, FakeSearxng, FakeSerper, FakeTavily

Make = Callable[..., Settings]


def test_automatic_order_keeps_configured_providers_only() -> None:
    assert SearchRouter.from_settings(Settings()).order() == ["duckduckgo"]
    settings = Settings(tavily={"api_key": "k"}, brave={"api_key": "k"}, searxng={"base_url": "http://x"})
    assert SearchRouter.from_settings(settings).order() == ["tavily", "brave", "searxng", "duckduckgo"]
    assert SearchRouter.from_settings(Settings(serper={"api_key": "k"})).order() == ["serper", "duckduckgo"]


def test_config_order_and_argument_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_SEARCH_PROVIDER", "duckduckgo, brave")
    router = SearchRouter.from_settings(Settings(tavily={"api_key": "k"}))
    assert router.order() == ["duckduckgo", "brave"]
    assert router.order("tavily") == ["tavily"]


def test_unknown_provider_names() -> None:
    with pytest.raises(ToolValidationError, match="choose from brave"):
        SearchRouter.from_settings(Settings()).order("bing")
    with pytest.raises(NotConfiguredError, match="WEBLENS_SEARCH_PROVIDER"):
        SearchRouter.from_settings(Settings(search={"provider": ["bing"]})).order()


async def test_tavily_first_when_configured(tavily: FakeTavily, brave: FakeBrave, make_settings: Make) -> None:
    response = await search("q", settings=make_settings(tavily, brave))
    assert response.provider == "tavily" and response.failures == []
    assert brave.requests == []


@pytest.mark.parametrize(
    ("break_tavily", "code"),
    [
        (lambda t: t.rate_limit(), "rate_limited"),
        (lambda t: t.fail(401, {"detail": {"error": "Unauthorized"}}), "not_configured"),
        (lambda t: t.fail(503, {"detail": {"error": "down"}}), "upstream_error"),
        (lambda t: t.slow(3.0), "timeout"),
    ],
    ids=["429", "401", "503", "timeout"],
)
async def test_falls_back_and_says_why(
    break_tavily: Callable[[FakeTavily], None], code: str, tavily: FakeTavily, brave: FakeBrave, make_settings: Make
) -> None:
    break_tavily(tavily)
    response = await search("q", settings=make_settings(tavily, brave, tavily={"timeout": 1.0}))
    assert response.provider == "brave"
    assert [(f.provider, f.code) for f in response.failures] == [("tavily", code)]
    assert response.results


async def test_all_failing_reports_every_reason(brave: FakeBrave, ddg: FakeDuckDuckGo, make_settings: Make) -> None:
    brave.fail(500, {"error": {"detail": "boom"}})
    ddg.anomaly()
    with pytest.raises(RateLimitedError) as info:
        await search("q", settings=make_settings(brave, ddg))
    message = info.value.message
    assert "brave: brave answered HTTP 500: boom" in message and "duckduckgo" in message
    assert [f["provider"] for f in info.value.details["failures"]] == ["brave", "duckduckgo"]


async def test_unsupported_kind_is_skipped(serper: FakeSerper, ddg: FakeDuckDuckGo, make_settings: Make) -> None:
    response = await search("q", kind="images", provider="duckduckgo,serper", settings=make_settings(serper, ddg))
    assert response.provider == "serper"
    assert response.failures[0].provider == "duckduckgo" and "images" in response.failures[0].message
    assert ddg.requests == []


async def test_breaker_skips_a_failing_provider_then_tries_again(
    searxng: FakeSearxng, ddg: FakeDuckDuckGo, make_settings: Make
) -> None:
    settings = make_settings(searxng, ddg, search={"breaker_failures": 2, "breaker_cooldown_s": 0.3})
    router = SearchRouter.from_settings(settings)
    searxng.fail(500, {"error": "search error"}, times=2)
    for _ in range(2):
        assert (await router.search(make_request(query="q"))).provider == "duckduckgo"
    assert searxng.count() == 2
    skipped = await router.search(make_request(query="q"))
    assert skipped.provider == "duckduckgo" and searxng.count() == 2
    assert "skipped" in skipped.failures[0].message and skipped.failures[0].code == "upstream_error"
    await asyncio.sleep(0.35)  # the cool-down is over: one trial request goes through
    recovered = await router.search(make_request(query="q"))
    assert recovered.provider == "searxng" and searxng.count() == 3


async def test_requests_the_provider_refuses_do_not_trip_its_breaker(
    brave: FakeBrave, ddg: FakeDuckDuckGo, make_settings: Make
) -> None:
    """Three searches Brave refuses as invalid (422 VALIDATION, e.g. a model's odd parameter) say
    nothing about Brave's health: the next valid search is still answered by Brave, not skipped."""
    settings = make_settings(brave, ddg, search={"breaker_failures": 2, "breaker_cooldown_s": 60})
    invalid = {"type": "ErrorResponse", "error": {"code": "VALIDATION", "detail": "Unable to validate request"}}
    brave.fail(422, invalid, times=3)
    async with SearchRouter.from_settings(settings) as router:
        for query in ("a", "b", "c"):
            refused = await router.search(make_request(query=query))
            assert refused.provider == "duckduckgo" and refused.failures[0].status == 422
        answered = await router.search(make_request(query="d"))
    assert answered.provider == "brave" and brave.count() == 4


async def test_missing_key_does_not_trip_the_breaker(ddg: FakeDuckDuckGo, make_settings: Make) -> None:
    router = SearchRouter.from_settings(make_settings(ddg, search={"breaker_failures": 1}))
    for _ in range(3):
        with pytest.raises(NotConfiguredError, match="BRAVE_API_KEY"):
            await router.search(make_request(query="q"), provider="brave")


async def test_a_key_the_provider_echoes_back_never_reaches_failures_or_errors(
    tavily: FakeTavily, brave: FakeBrave, make_settings: Make
) -> None:
    key = "tvly-echoed-back-by-upstream-5d1c"
    tavily.fail(401, {"detail": {"error": f"Invalid API key: {key}"}}, times=2)
    settings = make_settings(tavily, brave, tavily={"api_key": key})
    response = await search("q", settings=settings)
    assert response.provider == "brave"
    assert key not in response.failures[0].message and "Invalid API key: ***" in response.failures[0].message
    brave.fail(500, {"error": {"detail": "boom"}})
    with pytest.raises(WeblensError) as info:
        await search("other q", settings=settings)
    assert key not in info.value.message and key not in json.dumps(info.value.details)
