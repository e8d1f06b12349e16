"""Per-day request caps per provider: a typed refusal the model can read, never a crash."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import MaxUsesExceededError, NotConfiguredError
from weblens.net import LazyClient
from weblens.policy import LocalPolicyState
from weblens.runtime import Runtime
from weblens.search import SearchRouter
from weblens.search.budget import DailyLimitedProvider
from weblens.search.models import make_request
from weblens.search.providers.brave import BraveProvider
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo
from weblens.tools.search import SearchTool

Make = Callable[..., Settings]


async def test_past_the_cap_the_next_provider_answers_and_says_why(
    brave: FakeBrave, ddg: FakeDuckDuckGo, make_settings: Make
) -> None:
    settings = make_settings(brave, ddg, policy={"daily_requests": "brave=2"})
    async with SearchRouter.from_settings(settings) as router:
        answers = [await router.search(make_request(query=q)) for q in ("a", "b", "c")]
    assert [a.provider for a in answers] == ["brave", "brave", "duckduckgo"] and brave.count() == 2
    failure = answers[2].failures[0]
    assert (failure.provider, failure.code) == ("brave", "max_uses_exceeded")
    assert "daily limit of 2 requests" in failure.message and "resets at 00:00 UTC" in failure.message


async def test_the_model_reads_a_spent_cap_as_a_typed_result(brave: FakeBrave, make_settings: Make) -> None:
    settings = make_settings(brave, policy={"daily_requests": {"brave": 1}}, search={"provider": ["brave"]})
    tool = SearchTool(Runtime(settings, cache=Cache(None)))
    assert (await tool.execute({"query": "a"})).ok
    result = await tool.execute({"query": "b"})
    assert not result.ok and result.error is not None
    assert result.error.code == "max_uses_exceeded" and not result.error.retryable
    assert result.error.retry_after_s is not None and 0 < result.error.retry_after_s <= 86400
    assert "max_uses_exceeded" in result.text and brave.count() == 1


async def test_a_cap_of_zero_sends_nothing(brave: FakeBrave, make_settings: Make) -> None:
    settings = make_settings(brave, policy={"daily_requests": "brave=0"}, search={"provider": ["brave"]})
    async with SearchRouter.from_settings(settings) as router:
        with pytest.raises(MaxUsesExceededError):
            await router.search(make_request(query="a"))
    assert brave.count() == 0


async def test_the_cap_starts_again_on_the_next_utc_day(brave: FakeBrave, make_settings: Make) -> None:
    now = [1_767_225_599.0]  # 2025-12-31 23:59:59 UTC
    client = LazyClient()
    brave_provider = BraveProvider(make_settings(brave), client)
    capped = DailyLimitedProvider(brave_provider, 1, LocalPolicyState(clock=lambda: now[0]), clock=lambda: now[0])
    await capped.search(make_request(query="a"))
    with pytest.raises(MaxUsesExceededError, match="in 1 min") as info:
        await capped.search(make_request(query="b"))
    assert info.value.retry_after_s == pytest.approx(1.0)
    now[0] += 2  # 2026-01-01 00:00:01 UTC
    assert (await capped.search(make_request(query="c"))).results
    assert brave.count() == 2
    await client.aclose()


def test_an_unknown_provider_in_the_caps_is_a_clear_start_up_error() -> None:
    with pytest.raises(NotConfiguredError, match=r"unknown search provider .bing. in policy\.daily_requests"):
        Runtime(Settings(policy={"daily_requests": "bing=5"}), cache=Cache(None))
