"""The chat server on a real uvicorn thread, a scripted model, and an SSE-reading client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from weblens import Settings, Source, ToolResult, Toolset, define_tool
from weblens.app.server import create_app
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM


class Query(BaseModel):
    query: str


async def _search(params: Query) -> ToolResult:
    sources = [
        Source(title="AI News Daily", url="https://news.example/ai"),
        Source(title="Lab", url="https://lab.example/"),
    ]
    return ToolResult.success(f"results for {params.query}", sources=sources, brief="2 results")


def search_toolset() -> Toolset:
    return Toolset([define_tool(name="web_search", description="Search the web", input_schema=Query, execute=_search)])


@dataclass
class Sse:
    event: str
    data: dict[str, Any]


def parse_sse(text: str) -> list[Sse]:
    events = []
    for block in text.split("\n\n"):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            events.append(Sse(name, json.loads("\n".join(data))))
    return events


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def make_settings(tmp_path: Any, llm: ScriptedLLM) -> Callable[..., Settings]:
    def make(*, with_llm: bool = True, **overrides: Any) -> Settings:
        values: dict[str, Any] = {"data_dir": tmp_path / "data", "cache": {"enabled": False}}
        if with_llm:
            values["llm"] = {"base_url": llm.base_url, "model": "scripted-model"}
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def serve() -> Iterator[Callable[..., ServedApp]]:
    started: list[ServedApp] = []

    def start(settings: Settings, toolset: Toolset | None = None) -> ServedApp:
        app = create_app(settings, toolset=toolset if toolset is not None else search_toolset())
        server = ServedApp(app, limits=settings.server)  # with the connection guard `weblens serve` runs
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
async def client(
    serve: Callable[..., ServedApp], make_settings: Callable[..., Settings]
) -> AsyncIterator[httpx.AsyncClient]:
    server = serve(make_settings())
    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
        yield http


@pytest.fixture
def chat(client: httpx.AsyncClient) -> Callable[..., Any]:
    """chat(message, session_id=None) -> list of SSE events (the whole stream)."""

    async def send(message: str, session_id: str | None = None) -> list[Sse]:
        body: dict[str, Any] = {"message": message}
        if session_id is not None:
            body["session_id"] = session_id
        response = await client.post("/api/chat", json=body)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/event-stream")
        return parse_sse(response.text)

    return send


@pytest.fixture
def sse() -> Callable[[str], list[Sse]]:
    return parse_sse
