"""Seed 001's acceptance, with scripted model turns and the real tools against local fakes.

web_search runs against a fake Brave, get_weather against a fake Open-Meteo; the model is
the scripted OpenAI-compatible server. Everything crosses real HTTP on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from weblens import Runtime, Settings
from weblens.agent import Agent, AgentEvent, ChatModel, Done, ToolResultEvent
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.providers import FakeBrave
from weblens.tools.catalog import default_toolset

FIRST_BRAVE_URL = "https://example.com/baking/starter-not-rising"
FAST = 1000.0


@pytest.fixture
async def brave() -> AsyncIterator[FakeBrave]:
    async with FakeBrave() as fake:
        yield fake


@pytest.fixture
async def meteo() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo() as fake:
        yield fake


@pytest.fixture
def settings(brave: FakeBrave, meteo: FakeOpenMeteo, llm: ScriptedLLM) -> Settings:
    brave_section = {**brave.settings()["brave"], "requests_per_second": FAST}
    return Settings(
        brave=brave_section,
        duckduckgo={"base_url": "http://127.0.0.1:9"},
        search={"provider": ["brave"]},
        weather=meteo.weather_settings(),
        cache={"enabled": False},
        llm={"base_url": llm.base_url, "model": "scripted-model"},
    )


@pytest.fixture
async def agent(settings: Settings) -> AsyncIterator[Agent]:
    model = ChatModel.from_settings(settings)
    async with Runtime.from_settings(settings) as runtime:
        yield Agent(model, default_toolset(runtime), enabled=settings.llm.tools, max_steps=settings.llm.max_steps)
    await model.aclose()


async def run(agent: Agent, message: str) -> list[AgentEvent]:
    return [event async for event in agent.run(message)]


def done_of(events: list[AgentEvent]) -> Done:
    return next(e for e in events if isinstance(e, Done))


def results_of(events: list[AgentEvent]) -> list[ToolResultEvent]:
    return [e for e in events if isinstance(e, ToolResultEvent)]


def tool_contents(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_the_model_sees_the_enabled_real_tools(agent: Agent, llm: ScriptedLLM) -> None:
    llm.add(Turn(text="hi"))
    await run(agent, "hi")
    names = sorted(t["function"]["name"] for t in llm.sent[0]["tools"])
    assert "web_search" in names and "get_weather" in names
    assert "think" not in names and "set_todo_list" not in names


async def test_a_news_question_searches_and_cites_sources(agent: Agent, llm: ScriptedLLM, brave: FakeBrave) -> None:
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news today"})]),
        Turn(text="Today's top story is about sourdough starters [1]."),
    )

    events = await run(agent, "今天 AI 领域有什么新闻？")

    assert brave.count() == 1 and brave.requests[0].query["q"] == "AI news today"
    assert results_of(events)[0].ok
    assert "[1] " in tool_contents(llm.sent[1])[0] and FIRST_BRAVE_URL in tool_contents(llm.sent[1])[0]
    done = done_of(events)
    assert [s.url for s in done.sources] == [FIRST_BRAVE_URL]
    assert done.message.endswith(FIRST_BRAVE_URL)
    assert "Sources:" in done.message


async def test_beijing_temperature_calls_get_weather(agent: Agent, llm: ScriptedLLM, meteo: FakeOpenMeteo) -> None:
    llm.add(
        Turn(tool_calls=[call("get_weather", {"location": "北京"})]),
        Turn(text="北京现在的气温见上 [1]。"),
    )

    events = await run(agent, "北京今天温度？")

    assert meteo.count() >= 2  # geocoding, then the forecast
    result = results_of(events)[0]
    assert result.name == "get_weather" and result.ok
    assert "Beijing" in result.brief or "北京" in result.brief
    weather_text = tool_contents(llm.sent[1])[0]
    assert "°C" in weather_text
    done = done_of(events)
    assert done.sources and all(s.url.startswith("https://") or s.url.startswith("http://") for s in done.sources)


async def test_a_plain_question_uses_no_tool(
    agent: Agent, llm: ScriptedLLM, brave: FakeBrave, meteo: FakeOpenMeteo
) -> None:
    llm.add(Turn(text="1 + 1 = 2."))

    events = await run(agent, "1 加 1 等于几？")

    assert brave.count() == 0 and meteo.count() == 0
    assert results_of(events) == []
    assert done_of(events).message == "1 + 1 = 2." and done_of(events).sources == []


async def test_a_failing_search_ends_in_an_answer_that_says_so(
    agent: Agent, llm: ScriptedLLM, brave: FakeBrave
) -> None:
    brave.fail(401, {"error": {"detail": "invalid token"}}, times=5)
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news today"})]),
        Turn(text="I couldn't reach the search service, so I can't list today's news."),
    )

    events = await run(agent, "今天 AI 领域有什么新闻？")

    result = results_of(events)[0]
    assert not result.ok and result.outcome != "ok"
    assert tool_contents(llm.sent[1])[0].startswith("Error (")
    done = done_of(events)
    assert "couldn't reach" in done.answer and done.sources == []


async def test_the_step_limit_still_gives_a_final_answer(agent: Agent, llm: ScriptedLLM, brave: FakeBrave) -> None:
    llm.add(*[Turn(tool_calls=[call("web_search", {"query": f"AI news {i}"})]) for i in range(3)])
    llm.add(Turn(text="Based on my searches: [1]."))

    events = await run(agent, "Find everything about AI news")

    assert brave.count() == 3
    assert "tools" not in llm.sent[3]
    done = done_of(events)
    assert done.finish_reason == "step_limit" and done.steps == 3
    assert done.answer == "Based on my searches: [1]." and done.sources[0].url == FIRST_BRAVE_URL
