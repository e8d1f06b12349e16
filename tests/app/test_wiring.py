"""`create_app` as `weblens serve` builds it: one runtime, one toolset, chat and /mcp as views of it.

A search through chat and one through /mcp must meet in the same router: one upstream
call for the same query (single-flight, one cache) and one rate-limit queue per provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.client import Client

from weblens import Settings
from weblens.app.server import create_app
from weblens.runtime import Runtime
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.providers import FakeBrave

RATE = 2.0


def _settings(brave: FakeBrave, llm: ScriptedLLM, tmp_path: Path) -> Settings:
    return Settings(
        brave={"base_url": brave.url(), "api_key": brave.api_key, "requests_per_second": RATE},
        search={"provider": ["brave"]},
        llm={"base_url": llm.base_url, "model": "scripted-model", "tools": ["web_search"]},
        mcp={"tools": ["web_search"]},
        data_dir=tmp_path / "data",
    )


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[FakeBrave, ScriptedLLM, ServedApp]]:
    # two queues would send both searches at once; one queue spaces them 1/RATE apart, and the fake takes
    # any gap over a fifth of that (a loaded machine may deliver the first request late)
    async with FakeBrave(requests_per_second=RATE, latency_s=0.4, pace_tolerance=0.8) as brave:
        with ScriptedLLM() as llm:
            server = ServedApp(create_app(_settings(brave, llm, tmp_path)))  # the production wiring: no toolset given
            try:
                yield brave, llm, server
            finally:
                server.stop()


async def _chat(server: ServedApp, message: str) -> str:
    async with httpx.AsyncClient(timeout=20) as http:
        response = await http.post(server.url("/api/chat"), json={"message": message})
    assert response.status_code == 200
    return response.text


async def _mcp_search(server: ServedApp, query: str) -> Any:
    async with Client(server.url("/mcp")) as client:
        return await client.call_tool("web_search", {"query": query})


async def test_the_same_search_through_chat_and_mcp_is_one_upstream_call(
    served: tuple[FakeBrave, ScriptedLLM, ServedApp],
) -> None:
    brave, llm, server = served
    llm.add(Turn(tool_calls=[call("web_search", {"query": "lantern festival"})]), Turn(text="Lanterns [1]."))
    stream, result = await asyncio.gather(_chat(server, "lanterns?"), _mcp_search(server, "lantern festival"))
    assert "event: done" in stream and not result.is_error
    assert brave.count() == 1  # two routers (or two caches) would have asked twice


async def test_chat_and_mcp_share_one_rate_limit_queue(served: tuple[FakeBrave, ScriptedLLM, ServedApp]) -> None:
    brave, llm, server = served
    llm.add(Turn(tool_calls=[call("web_search", {"query": "asked by chat"})]), Turn(text="Done [1]."))
    stream, result = await asyncio.gather(_chat(server, "search please"), _mcp_search(server, "asked by mcp"))
    assert "event: done" in stream and not result.is_error
    assert brave.count() == 2 and brave.rejected == 0  # separate queues would send both at once: a 429


async def test_a_runtime_closes_what_it_built_and_only_that() -> None:
    async with httpx.AsyncClient() as mine:
        runtime = Runtime.from_settings(Settings(), client=mine)
        built = runtime.fetcher.http  # the fetcher's own guarded client
        async with runtime:
            assert runtime.http is mine
        assert built.is_closed and not mine.is_closed
    async with Runtime.from_settings(Settings()) as runtime:
        own = runtime.http
    assert own.is_closed

