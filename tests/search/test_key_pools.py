"""Several API keys per provider: refused or spent keys leave the pool; logs name keys by fingerprint."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError
from weblens.search import SearchRouter
from weblens.search.keys import fingerprint
from weblens.search.models import make_request
from weblens.testing.providers import FakeBrave, FakeSerper, FakeTavily

KEYS = ["brave-key-one-1111", "brave-key-two-2222", "brave-key-three-3333"]


@pytest.fixture
async def pooled() -> AsyncIterator[FakeBrave]:
    async with FakeBrave(api_keys=KEYS) as fake:
        yield fake


def router_for(fake: FakeBrave | FakeTavily | FakeSerper, **search: object) -> SearchRouter:
    values = {**fake.settings(), "cache": {"enabled": False}, "search": {**search, "provider": [fake.provider]}}
    values.setdefault("brave", {})["requests_per_second"] = 1000
    return SearchRouter.from_settings(Settings(**values))


def keys_sent(fake: FakeBrave) -> list[str]:
    return [fake.presented_key(request) or "" for request in fake.requests]


def test_a_pool_comes_from_a_comma_list_or_a_toml_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", " k1-aaaa, k2-bbbb ,")
    assert Settings().brave.keys() == ["k1-aaaa", "k2-bbbb"]
    assert Settings(tavily={"api_key": ["t1-aaaa", "t2-bbbb"]}).tavily.keys() == ["t1-aaaa", "t2-bbbb"]


async def test_keys_take_turns(pooled: FakeBrave) -> None:
    async with router_for(pooled) as router:
        for query in "abc":
            await router.search(make_request(query=query))
    assert keys_sent(pooled) == KEYS


async def test_a_refused_key_leaves_the_pool_and_the_search_still_answers(
    pooled: FakeBrave, caplog: pytest.LogCaptureFixture
) -> None:
    pooled.revoke(KEYS[0])
    caplog.set_level(logging.INFO, logger="weblens.search")
    async with router_for(pooled, key_cooldown_s=300) as router:
        for query in "abcd":
            response = await router.search(make_request(query=query))
            assert response.results
    sent = keys_sent(pooled)
    assert sent.count(KEYS[0]) == 1 and len(sent) == 5  # tried once, then benched
    logged = caplog.text
    assert f"brave key {fingerprint(KEYS[0])} refused (HTTP 401)" in logged
    assert f"brave answered with key {fingerprint(KEYS[1])}" in logged
    assert not any(key in logged for key in KEYS)


async def test_a_refused_key_comes_back_after_its_cool_down(pooled: FakeBrave) -> None:
    pooled.revoke(KEYS[0])
    async with router_for(pooled, key_cooldown_s=0) as router:
        for query in "abcd":
            await router.search(make_request(query=query))
    assert keys_sent(pooled).count(KEYS[0]) > 1


async def test_a_spent_key_is_benched_until_the_reset_the_provider_names(pooled: FakeBrave) -> None:
    pooled.exhaust(KEYS[1])  # Brave: 429 QUOTA_LIMITED, X-RateLimit-Reset: 1, 86400
    async with router_for(pooled) as router:
        for query in "abcdef":
            await router.search(make_request(query=query))
        bench = await router.state.benched(f"key:brave:{fingerprint(KEYS[1])}")
    assert keys_sent(pooled).count(KEYS[1]) == 1
    assert bench is not None and "at its quota (HTTP 429)" in bench.reason
    assert bench.until - time.time() > 86000


async def test_when_every_key_is_out_no_request_is_sent_and_the_error_says_why() -> None:
    async with FakeTavily(api_keys=["tvly-one-1111", "tvly-two-2222"]) as tavily:
        for key in tavily.api_keys:
            tavily.exhaust(key)
        async with router_for(tavily) as router:
            with pytest.raises(RateLimitedError, match=r"out of the pool.*last answer: tavily plan limit reached"):
                await router.search(make_request(query="a"))
            assert tavily.count() == 2
            with pytest.raises(RateLimitedError, match="all 2 keys are out of the pool") as info:
                await router.search(make_request(query="b"))
            assert tavily.count() == 2 and not info.value.retryable and info.value.retry_after_s
    assert fingerprint("tvly-one-1111") in info.value.message and "tvly-one-1111" not in info.value.message


async def test_a_pool_of_refused_keys_says_which_variable_to_fix() -> None:
    async with FakeSerper(api_keys=["serper-one-1111", "serper-two-2222"]) as serper:
        for key in serper.api_keys:
            serper.revoke(key)
        async with router_for(serper) as router:
            with pytest.raises(NotConfiguredError, match="SERPER_API_KEY"):
                await router.search(make_request(query="a"))
            with pytest.raises(NotConfiguredError, match=r"all 2 keys are out of the pool.*refused"):
                await router.search(make_request(query="b"))
        assert serper.count() == 2


async def test_a_quota_reset_that_is_not_a_number_benches_for_the_configured_cool_down(pooled: FakeBrave) -> None:
    quota = {"type": "ErrorResponse", "error": {"status": 429, "code": "QUOTA_LIMITED", "detail": "Quota exceeded"}}
    pooled.fail(429, quota, headers={"X-RateLimit-Reset": "1, inf"})
    async with router_for(pooled, key_quota_cooldown_s=600) as router:
        response = await router.search(make_request(query="a"))
        bench = await router.state.benched(f"key:brave:{fingerprint(KEYS[0])}")
    assert response.results and keys_sent(pooled) == KEYS[:2]
    assert bench is not None and 590 < bench.until - time.time() <= 600


async def test_a_key_pasted_with_a_character_headers_cannot_carry_is_named_not_blamed_on_the_provider() -> None:
    """A key copied with curly quotes or a zero-width space failed as "tavily sent an answer weblens
    could not read (UnicodeEncodeError)": an upstream error, counted against Tavily's breaker. It is
    the key's problem, said without the key; the other keys in the pool still answer."""
    pasted = "\u201ctvly-pasted-key-1111\u201d"
    async with FakeTavily(api_keys=["tvly-good-key-2222"]) as tavily:
        values = {**tavily.settings(), "cache": {"enabled": False}, "search": {"provider": ["tavily"]}}
        alone = Settings(**{**values, "tavily": {"base_url": tavily.url(), "api_key": pasted}})
        async with SearchRouter.from_settings(alone) as router:
            for query in "abc":  # never the breaker's doing: the same clear error each time
                with pytest.raises(NotConfiguredError, match=r"LEFT DOUBLE QUOTATION MARK \(U\+201C\).*TAVILY_API_KEY"):
                    await router.search(make_request(query=query))
        assert tavily.count() == 0
        pooled = Settings(**{**values, "tavily": {"base_url": tavily.url(), "api_key": [pasted, "tvly-good-key-2222"]}})
        async with SearchRouter.from_settings(pooled) as router:
            for query in "ab":
                assert (await router.search(make_request(query=query))).results
        assert [r.headers["authorization"] for r in tavily.requests] == ["Bearer tvly-good-key-2222"] * 2
