"""MCP logging: the capability is declared, `logging/setLevel` is honoured for the connection, and a
call's progress and weblens' own warnings reach the client as `notifications/message` at the levels
it asked for (a client of protocol 2026-07-28 asks per request instead)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import mcp.types as types
import pytest
from mcp.client.client import Client

from weblens.search.keys import fingerprint
from weblens.testing.providers import FakeBrave

# The client's set_logging_level is deprecated from protocol 2026-07-28 on; these tests speak the one before.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
KEYS = ["brave-key-one-1111", "brave-key-two-2222"]
STEP = ("info", "weblens.progress", "asking brave")


class Heard:
    def __init__(self) -> None:
        self.messages: list[types.LoggingMessageNotificationParams] = []

    async def __call__(self, params: types.LoggingMessageNotificationParams) -> None:
        self.messages.append(params)

    async def until(self, wanted: tuple[str, str, str]) -> list[tuple[str, str | None, str]]:
        """Everything heard once `wanted` is: the client runs its callback apart from the call's result."""
        for _ in range(500):
            if wanted in self.take(clear=False):
                break
            await asyncio.sleep(0.01)
        return self.take()

    def take(self, clear: bool = True) -> list[tuple[str, str | None, str]]:
        taken = [(m.level, m.logger, str(m.data)) for m in self.messages]
        if clear:
            self.messages.clear()
        return taken


@pytest.fixture
async def pooled() -> AsyncIterator[FakeBrave]:
    """Brave with two keys, the first refused: a search succeeds after a warning about that key."""
    async with FakeBrave(api_keys=KEYS) as fake:
        fake.revoke(KEYS[0])
        yield fake


def pooled_settings(gateway_settings: Callable[..., Any], pooled: FakeBrave) -> Any:
    settings = gateway_settings()
    settings.brave = type(settings.brave)(base_url=pooled.url(), api_key=",".join(KEYS), requests_per_second=1000)
    return settings


async def test_the_capability_is_declared_and_set_level_answers_empty(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    async with Client(serve_http(gateway_settings()).url(), mode="legacy") as client:
        assert client.server_capabilities.logging is not None
        assert isinstance(await client.set_logging_level("debug"), types.EmptyResult)


async def test_a_warning_during_a_call_reaches_the_client_by_default(
    pooled: FakeBrave, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    heard = Heard()
    url = serve_http(pooled_settings(gateway_settings, pooled)).url()
    async with Client(url, mode="legacy", logging_callback=heard) as client:
        result = await client.call_tool("web_search", {"query": "lantern"})
        for _ in range(500):
            if heard.messages:
                break
            await asyncio.sleep(0.01)
        await client.call_tool("get_weather", {"location": "Paris"})  # after it, nothing more can be on the way
    assert not result.is_error
    messages = heard.take()
    assert [(level, name) for level, name, _ in messages] == [("warning", "weblens.search")]
    text = messages[0][2]
    assert fingerprint(KEYS[0]) in text and "refused" in text and KEYS[0] not in text
    assert len(pooled.requests) == 2


async def test_the_level_set_holds_for_the_stdio_session(
    pooled: FakeBrave, stdio_gateway: Callable[..., Any]
) -> None:
    heard = Heard()
    server = stdio_gateway(WEBLENS_BRAVE_BASE_URL=pooled.url(), BRAVE_API_KEY=",".join(KEYS))
    async with Client(server, mode="legacy", logging_callback=heard) as client:
        await client.set_logging_level("error")
        refused = await client.call_tool("web_search", {"query": "one"})  # the key warning happens here
        assert not refused.is_error and len(pooled.requests) == 2
        await client.set_logging_level("info")
        result = await client.call_tool("web_search", {"query": "two"})
        assert not result.is_error
        # below "error", the first call sent neither the warning nor its steps (they would have come first)
        assert await heard.until(STEP) == [STEP]


async def test_a_current_client_opts_in_per_request(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    url = serve_http(gateway_settings()).url()
    heard, silent = Heard(), Heard()
    async with Client(url, log_level="info", logging_callback=heard) as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool("web_search", {"query": "lantern"})
        assert STEP in await heard.until(STEP)
    async with Client(url, logging_callback=silent) as client:
        await client.call_tool("web_search", {"query": "lantern"})
        await client.call_tool("get_weather", {"location": "Paris"})
    assert silent.take() == []
