from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError, UpstreamError
from weblens.search import search
from weblens.testing.providers import FakeSearxng, fixture_json


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
