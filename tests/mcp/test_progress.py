"""Long calls: progress notifications when the client asks for them, and a client's cancel stops the work."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from weblens.testing.pages import PageServer
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo
from weblens.testing.server import Reply


@pytest.fixture
def ddg() -> Iterator[FakeDuckDuckGo]:
    with FakeDuckDuckGo() as fake:
        yield fake


class Steps:
    def __init__(self) -> None:
        self.messages: list[str] = []
        self.progress: list[float] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append(progress)
        self.messages.append(message or "")


async def test_a_slow_search_reports_which_provider_is_asked(
    brave: FakeBrave, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    brave.slow(0.6)
    steps = Steps()
    async with Client(serve_http(gateway_settings()).url()) as client:
        result = await client.call_tool("web_search", {"query": "lantern"}, progress_callback=steps)
    assert not result.is_error
    assert "asking brave" in steps.messages
    assert steps.progress == sorted(steps.progress) and len(set(steps.progress)) == len(steps.progress)


async def test_a_slow_fetch_reports_bytes_over_stdio(pages: PageServer, stdio_gateway: Callable[..., Any]) -> None:
    body = "<html><body><article>" + "<p>Slow words arrive one by one.</p>" * 200 + "</article></body></html>"
    pages.route("GET", "/dripping", Reply(body=body, content_type="text/html", drip=(1024, 0.15)))
    steps = Steps()
    async with Client(stdio_gateway()) as client:
        result = await client.call_tool("web_fetch", {"url": pages.url("/dripping")}, progress_callback=steps)
        quiet = await client.call_tool("web_fetch", {"url": pages.url("/dripping")})  # no token: no notifications
    assert not result.is_error and not quiet.is_error
    assert any("bytes received" in message for message in steps.messages), steps.messages
    assert len(steps.messages) < 40  # coalesced, not one per chunk


async def test_a_cancelled_call_stops_asking_providers(
    brave: FakeBrave, ddg: FakeDuckDuckGo, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    brave.misbehave(Reply(status=500, body={"error": "down"}, delay_s=3.0))  # fails late: then DuckDuckGo is next
    settings = gateway_settings(duckduckgo={"base_url": ddg.url(), "requests_per_second": 1000})
    settings.search.provider = ["brave", "duckduckgo"]  # a call left running would fall back to DuckDuckGo
    async with Client(serve_http(settings).url()) as client:
        with pytest.raises(MCPError):  # the client gives up: it sends notifications/cancelled
            # a second is ample for the call to reach Brave, even on a loaded machine
            await client.call_tool("web_search", {"query": "lantern"}, read_timeout_seconds=1.0)
        for _ in range(300):
            if brave.disconnects:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(2.5)  # past brave's failure: a call still running would now ask DuckDuckGo
    assert brave.disconnects == 1
    assert ddg.count() == 0
