"""Property-based: generated hostile input at every tool, every provider parser and extraction.

No exception escapes, every error code is in the closed set, bad input is never an
`internal_error`, and every case ends within a generous bound. Derandomized, with no example
database, so CI runs the same cases every time; `bench/fuzz.py` runs the long version.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given

from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.search.models import make_request
from weblens.testing.fuzz import (
    BAD_OUTCOMES,
    PAGE_BOUND_S,
    TOOL_BOUND_S,
    Fakes,
    arguments,
    field_names,
    fuzz_settings,
    page_outcome,
    pages,
    provider_replies,
    required_names,
    search_outcome,
    tool_outcome,
)
from weblens.tools import default_toolset

TOOLS = [
    "think",
    "set_todo_list",
    "get_weather",
    "web_search",
    "brave_web_search",
    "tavily_web_search",
    "WebSearch",
    "serper_search",
    "search_web",
    "web_fetch",
    "WebFetch",
    "web_map",
    "web_crawl",
    "web_screenshot",
    "web_extract",
]
PROVIDERS = ["tavily", "brave", "serper", "searxng", "duckduckgo"]


class World:
    def __init__(self, fakes: Fakes, runner: asyncio.Runner, runtime: Runtime) -> None:
        self.fakes, self.runner, self.runtime = fakes, runner, runtime
        self.tools = default_toolset(runtime)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with Fakes() as fakes, asyncio.Runner() as runner:
        values = fakes.settings_values(tmp_path_factory.mktemp("fuzz"))
        runtime = Runtime(Settings(**values), resolver=fakes.resolve)
        yield World(fakes, runner, runtime)
        runner.run(runtime.aclose())


def test_the_fuzzed_tools_are_every_built_in_tool(world: World) -> None:
    assert sorted(world.tools.names) == sorted(TOOLS)


@pytest.mark.parametrize("name", TOOLS)
def test_hostile_arguments_through_execute(world: World, name: str) -> None:
    tool = world.tools.get(name)
    assert tool is not None

    @fuzz_settings(40)
    @given(args=arguments(field_names(tool), required_names(tool)))
    def check(args: Any) -> None:
        outcome = world.runner.run(tool_outcome(tool, args, bound_s=TOOL_BOUND_S))
        assert outcome not in BAD_OUTCOMES, (outcome, args)

    check()


@pytest.mark.parametrize("name", PROVIDERS)
def test_hostile_answers_at_every_provider_parser(world: World, name: str) -> None:
    fake = world.fakes.providers[name]
    request = make_request(query="rain barrels", max_results=5)

    @fuzz_settings(60)
    @given(reply=provider_replies(name))
    def check(reply: Any) -> None:
        outcome = world.runner.run(search_outcome(world.runtime.router, fake, reply, request, bound_s=TOOL_BOUND_S))
        assert outcome not in BAD_OUTCOMES, (outcome, reply)

    check()


@fuzz_settings(150)
@given(page=pages())
def test_hostile_pages_at_extraction(page: tuple[bytes, str]) -> None:
    body, content_type = page
    outcome = page_outcome(body, content_type, bound_s=PAGE_BOUND_S)
    assert outcome not in BAD_OUTCOMES, (outcome, body[:200], content_type)

