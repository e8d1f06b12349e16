"""`weblens.search(...)` is both the function and the package."""

from __future__ import annotations

import importlib

import pytest

import weblens
from weblens.config import Settings
from weblens.errors import ToolValidationError
from weblens.search.models import SearchResult, clean_text, make_request
from weblens.testing.providers import FakeDuckDuckGo


async def test_weblens_search_is_callable_and_a_package(ddg: FakeDuckDuckGo) -> None:
    settings = Settings(duckduckgo={"base_url": ddg.url(), "requests_per_second": 1000}, cache={"enabled": False})
    response = await weblens.search("lantern festival", max_results=2, settings=settings)
    assert response.provider == "duckduckgo" and len(response.results) == 2
    brave = importlib.import_module("weblens.search.providers.brave")
    assert weblens.search.providers.brave is brave  # type: ignore[attr-defined]
    assert "search" in weblens.__all__


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"query": ""}, "query"), ({"query": "q", "max_results": 0}, "max_results"),
     ({"query": "q", "max_results": 11}, "max_results")],
)
def test_bad_requests(fields: dict[str, object], field: str) -> None:
    with pytest.raises(ToolValidationError) as info:
        make_request(**fields)
    assert info.value.issues[0]["field"] == field


def test_cache_key_is_normalised() -> None:
    messy = make_request(query="  Lantern   FESTIVAL ")
    assert messy.cache_parts() == make_request(query="lantern festival").cache_parts()


def test_tags_and_entities_are_stripped() -> None:
    assert clean_text("A <strong>bold</strong> &amp; <em>true</em>&nbsp;claim") == "A bold & true claim"
    result = SearchResult(title="Tom &amp; Jerry <b>2</b>", url="https://e.com", position=1, provider="x")
    assert result.title == "Tom & Jerry 2"
