"""Domain filters on search results: the operator's policy, and a caller's narrower one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from weblens.config import Settings
from weblens.errors import UrlNotAllowedError
from weblens.policy import DomainPolicy
from weblens.search import SearchRouter, search
from weblens.search.models import make_request
from weblens.testing.providers import FakeBrave, FakeTavily

Make = Callable[..., Settings]
HITS = [
    {"title": "In", "url": "https://docs.example.com/a", "snippet": "s"},
    {"title": "Out", "url": "https://example.org/b", "snippet": "s"},
    {"title": "Ad", "url": "https://ads.example.com/c", "snippet": "s"},
    {"title": "In too", "url": "https://example.com/d", "snippet": "s"},
]


async def test_an_operator_allow_list_filters_a_provider_without_domain_parameters(
    brave: FakeBrave, make_settings: Make
) -> None:
    brave.answer_with(HITS)
    settings = make_settings(brave, policy={"allow_domains": ["example.com"], "block_domains": ["ads.example.com"]})
    response = await search("q", settings=settings)
    assert [r.url for r in response.results] == ["https://docs.example.com/a", "https://example.com/d"]
    assert [r.position for r in response.results] == [1, 2]
    assert response.filtered_out == 2
    assert response.applied["include_domains"] == {"brave": "local"}
    assert brave.last_received["count"] == 20  # asked for more, since some are dropped here


async def test_a_provider_with_domain_parameters_gets_the_policy_natively(
    tavily: FakeTavily, make_settings: Make
) -> None:
    tavily.answer_with(HITS)
    settings = make_settings(tavily, policy={"block_domains": ["ads.example.com"]})
    response = await search("q", include_domains=["example.com"], settings=settings)
    assert tavily.last_received["include_domains"] == ["example.com"]
    assert tavily.last_received["exclude_domains"] == ["ads.example.com"]
    assert response.applied == {"include_domains": {"tavily": "native"}, "exclude_domains": {"tavily": "native"}}
    assert {r.url for r in response.results} == {"https://docs.example.com/a", "https://example.com/d"}


async def test_a_caller_cannot_widen_the_operator_allow_list(brave: FakeBrave, make_settings: Make) -> None:
    brave.answer_with(HITS)
    settings = make_settings(brave, policy={"allow_domains": ["docs.example.com"]})
    response = await search("q", include_domains=["example.com"], settings=settings)
    assert [r.url for r in response.results] == ["https://docs.example.com/a"]
    with pytest.raises(UrlNotAllowedError, match=r"example\.org is outside what this search may return"):
        await search("q", include_domains=["example.org"], settings=settings)
    assert brave.count() == 1  # the impossible search was refused before any request


async def test_a_policy_argument_narrows_for_one_call(brave: FakeBrave, make_settings: Make) -> None:
    brave.answer_with(HITS)
    async with SearchRouter.from_settings(make_settings(brave)) as router:
        narrow = await router.search(make_request(query="q"), policy=DomainPolicy.of(block=["example.com"]))
        wide = await router.search(make_request(query="q"))
    assert [r.url for r in narrow.results] == ["https://example.org/b"]
    assert len(wide.results) == 4 and wide.applied == {}


async def test_the_same_page_twice_from_one_provider_is_shown_once(brave: FakeBrave, make_settings: Make) -> None:
    brave.answer_with([*HITS[:1], {"title": "Again", "url": "https://www.docs.example.com/a/?utm_source=x"}])
    response = await search("q", settings=make_settings(brave))
    assert [r.title for r in response.results] == ["In"]
