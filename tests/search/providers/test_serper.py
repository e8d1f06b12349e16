from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, RateLimitedError
from weblens.search import search
from weblens.testing.providers import FakeSerper, fixture_json


async def test_organic_with_knowledge_graph(serper: FakeSerper, make_settings: Callable[..., Settings]) -> None:
    response = await search("example tower", 10, provider="serper", country="cn", locale="zh-cn",
                            settings=make_settings(serper))
    request = serper.requests[0]
    assert request.headers["x-api-key"] == serper.api_key
    assert request.json() == {"q": "example tower", "num": 10, "gl": "cn", "hl": "zh-cn"}
    assert response.results[0].url == "https://tower.example.org/visit"
    assert response.extras["knowledge_graph"]["title"] == "Example Tower"
    assert response.extras["answer_box"]["answer"] == "212 m"


@pytest.mark.parametrize(("kind", "path"), [("news", "/news"), ("images", "/images")])
async def test_news_and_images(
    kind: str, path: str, serper: FakeSerper, make_settings: Callable[..., Settings]
) -> None:
    response = await search("tower", kind=kind, provider="serper", settings=make_settings(serper))  # type: ignore[arg-type]
    assert serper.requests[0].path == path
    assert response.results[0].url.startswith("https://")


async def test_403_is_a_refused_key(serper: FakeSerper, make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(serper, serper={"api_key": "nope"})
    with pytest.raises(NotConfiguredError) as info:
        await search("q", provider="serper", settings=settings)
    assert "HTTP 403" in info.value.message and "Unauthorized." in info.value.message
    assert "SERPER_API_KEY" in info.value.message


async def test_out_of_credits_is_the_keys_quota(serper: FakeSerper, make_settings: Callable[..., Settings]) -> None:
    serper.fail(400, fixture_json("serper_error_400.json"))
    with pytest.raises(RateLimitedError) as info:
        await search("q", provider="serper", settings=make_settings(serper))
    assert info.value.details["status"] == 400 and "Not enough credits" in info.value.message
    assert not info.value.retryable  # the key is spent: retrying it now cannot help
