"""An answer one provider's parser cannot take is that provider's failure: the next one answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import UpstreamError
from weblens.search import search
from weblens.testing.providers import FakeBrave, FakeSerper, FakeTavily

Make = Callable[..., Settings]


@pytest.mark.parametrize("status", [200, 500])
async def test_deeply_nested_json_falls_through_to_the_next_provider(
    status: int, tavily: FakeTavily, brave: FakeBrave, make_settings: Make
) -> None:
    tavily.nested(status=status)

    response = await search("q", settings=make_settings(tavily, brave, search={"provider": "tavily,brave"}))

    assert response.provider == "brave" and response.results
    [failure] = response.failures
    assert (failure.provider, failure.code) == ("tavily", "upstream_error")


async def test_when_every_provider_sends_nesting_the_error_is_typed(
    tavily: FakeTavily, serper: FakeSerper, make_settings: Make
) -> None:
    tavily.nested()
    serper.nested()

    with pytest.raises(UpstreamError) as info:
        await search("q", settings=make_settings(tavily, serper, search={"provider": "tavily,serper"}))

    assert [(f["provider"], f["code"]) for f in info.value.details["failures"]] == [
        ("tavily", "upstream_error"),
        ("serper", "upstream_error"),
    ]
