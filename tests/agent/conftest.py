"""A scripted model on a real local HTTP server, a `ChatModel` pointed at it, and small tools."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from weblens import Source, ToolResult, Toolset, define_tool
from weblens.agent import Agent, AgentEvent, ChatModel, Done, ErrorEvent, ToolCallEvent, ToolResultEvent
from weblens.errors import UpstreamError
from weblens.testing.llm import ScriptedLLM
from weblens.tool import FunctionTool

LLM_TIMEOUT_S = 10.0
API_KEY = "sk-test-secret-123456"


class Query(BaseModel):
    query: str


@dataclass
class Answer:
    """Everything one `Agent.run` produced, for assertions."""

    events: list[AgentEvent]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if e.type == "delta")

    @property
    def done(self) -> Done:
        found = [e for e in self.events if isinstance(e, Done)]
        assert len(found) == 1, self.events
        return found[0]

    @property
    def error(self) -> ErrorEvent | None:
        return next((e for e in self.events if isinstance(e, ErrorEvent)), None)

    @property
    def calls(self) -> list[ToolCallEvent]:
        return [e for e in self.events if isinstance(e, ToolCallEvent)]

    @property
    def results(self) -> list[ToolResultEvent]:
        return [e for e in self.events if isinstance(e, ToolResultEvent)]


def search_tool(
    results: Sequence[tuple[str, str]] = (("AI News Daily", "https://news.example/ai"),),
    *,
    calls: list[str] | None = None,
    name: str = "web_search",
) -> FunctionTool[Query]:
    async def search(params: Query) -> ToolResult:
        if calls is not None:
            calls.append(params.query)
        sources = [Source(title=t, url=u) for t, u in results]
        text = "\n".join(f"{t}: {u}" for t, u in results) or "no results"
        return ToolResult.success(text, sources=sources, brief=f"{len(sources)} results")

    return define_tool(name=name, description="Search the web", input_schema=Query, execute=search)


def failing_tool(name: str = "web_search") -> FunctionTool[Query]:
    async def search(params: Query) -> ToolResult:
        raise UpstreamError("the search provider answered HTTP 500")

    return define_tool(name=name, description="Search the web", input_schema=Query, execute=search)


@pytest.fixture
def make_search() -> Callable[..., FunctionTool[Query]]:
    return search_tool


@pytest.fixture
def make_failing() -> Callable[..., FunctionTool[Query]]:
    return failing_tool


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
async def model(llm: ScriptedLLM) -> AsyncIterator[ChatModel]:
    chat_model = ChatModel(base_url=llm.base_url, model="scripted-model", api_key=API_KEY, timeout=LLM_TIMEOUT_S)
    yield chat_model
    await chat_model.aclose()


@pytest.fixture
def ask(model: ChatModel) -> Callable[..., Awaitable[Answer]]:
    """ask(message, tools=[...], **agent_options) -> Answer."""

    async def run(
        message: str, tools: Sequence[Any] = (), history: Sequence[dict[str, Any]] = (), **options: Any
    ) -> Answer:
        agent = Agent(model, Toolset(tools), **options)
        return Answer([event async for event in agent.run(message, history)])

    return run
