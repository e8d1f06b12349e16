"""`weblens serve` mounts the same gateway at /mcp, beside the chat API."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcp.client.client import Client

from weblens.app.server import create_app


async def test_serve_has_health_and_mcp(gateway_settings: Callable[..., Any], serve_asgi: Callable[..., Any]) -> None:
    served = serve_asgi(create_app(gateway_settings()))  # keyless defaults: no model, no search keys
    async with httpx.AsyncClient() as http:
        assert (await http.get(served.url("/health"))).json()["status"] == "ok"
    async with Client(served.url("/mcp")) as client:
        assert "get_weather" in [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("get_weather", {"location": "Beijing"})
        assert not result.is_error and result.structured_content["location"]["country"] == "China"


def test_serve_on_a_reachable_address_without_token_leaves_mcp_out(
    gateway_settings: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="weblens.mcp"):
        app = create_app(gateway_settings(server={"host": "0.0.0.0"}))
    assert "/mcp" not in [getattr(route, "path", "") for route in app.routes]
    assert "WEBLENS_MCP_TOKEN" in caplog.text


def test_serve_on_a_reachable_address_with_token_mounts_mcp(gateway_settings: Callable[..., Any]) -> None:
    app = create_app(gateway_settings(server={"host": "0.0.0.0"}, mcp={"token": "t0ken"}))
    assert "/mcp" in [getattr(route, "path", "") for route in app.routes]
