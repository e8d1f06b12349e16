"""What clients we cannot run here (Cursor, Gemini-backed agents, OpenAI-backed ones) need from the
gateway, checked over the real transports: schemas they accept, CORS for a client in a browser page."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import jsonschema
import pytest
from mcp.client.client import Client
from tests.mcp.conftest import RawStdio
from tests.mcp.test_http import INITIALIZE, TOKEN, body_of, post

from weblens.app.server import create_app
from weblens.mcp.http import standalone_app
from weblens.testing.providers import FakeBrave

EVERY_TOOL = "think,set_todo_list,get_weather,web_search,web_fetch,web_map,web_crawl,web_screenshot,web_extract"
REFUSED_BY_SOME_CLIENTS = ("anyOf", "oneOf", "allOf", "$ref", "$defs", "exclusiveMinimum", "exclusiveMaximum")
"""Cursor drops a server's whole tool list when one inputSchema composes schemas; `$ref` is
unresolved by several clients; Gemini maps each schema onto one `type` and refuses exclusive
bounds (clients such as Zed forward MCP schemas to it as they are)."""


def _nodes(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, list):
        return [node for item in schema for node in _nodes(item)]
    if not isinstance(schema, dict):
        return []
    return [schema, *(node for value in schema.values() for node in _nodes(value))]


async def test_every_input_schema_is_plain_json_schema(
    brave: FakeBrave, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    settings = gateway_settings(mcp={"tools": EVERY_TOOL.split(",")})
    async with Client(serve_http(settings).url()) as client:
        tools = (await client.list_tools()).tools
        assert {tool.name for tool in tools} == set(EVERY_TOOL.split(","))
        for tool in tools:
            schema = tool.input_schema
            jsonschema.Draft202012Validator.check_schema(schema)
            text = json.dumps(schema)
            assert not [key for key in REFUSED_BY_SOME_CLIENTS if f'"{key}"' in text], (tool.name, text)
            for node in _nodes(schema):
                assert not isinstance(node.get("type"), list), (tool.name, node)
                assert node.get("default", "") is not None, (tool.name, node)  # a null default reads as a type clash
        # an optional argument sent as null still means its default, as the schemas used to allow
        result = await client.call_tool("web_search", {"query": "lantern", "country": None, "time_range": None})
    assert not result.is_error, result.content
    assert brave.count() == 1


INSPECTOR_ORIGIN = "http://localhost:6274"
"""Where the MCP Inspector's page runs; its "Direct" connection calls the server from the browser."""
PREFLIGHT = {
    "Origin": INSPECTOR_ORIGIN,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version",
}


@pytest.fixture(params=["mcp", "serve"])
def browser_endpoint(
    request: pytest.FixtureRequest, gateway_settings: Callable[..., Any], serve_asgi: Callable[..., Any]
) -> str:
    """`/mcp` of `weblens mcp --transport http` and of `weblens serve`, with a token."""
    settings = gateway_settings(mcp={"token": TOKEN, "allowed_origins": ["https://inspector.example"]})
    app = standalone_app(settings, host="127.0.0.1") if request.param == "mcp" else create_app(settings)
    return str(serve_asgi(app).url())


def test_a_browser_page_on_a_trusted_origin_may_call(browser_endpoint: str) -> None:
    for origin in (INSPECTOR_ORIGIN, "https://inspector.example"):
        preflight = httpx.options(browser_endpoint, headers={**PREFLIGHT, "Origin": origin}, timeout=10)
        assert preflight.status_code == 200, preflight.text  # no token on a preflight: browsers never send one
        assert preflight.headers["access-control-allow-origin"] == origin
        allowed = preflight.headers["access-control-allow-headers"].lower()
        assert {"authorization", "content-type", "mcp-protocol-version"} <= set(allowed.replace(" ", "").split(","))
        assert "POST" in preflight.headers["access-control-allow-methods"]
    call = post(browser_endpoint, Origin=INSPECTOR_ORIGIN, Authorization=f"Bearer {TOKEN}")
    assert call.status_code == 200 and body_of(call)["result"]["serverInfo"]["name"] == "weblens"
    assert call.headers["access-control-allow-origin"] == INSPECTOR_ORIGIN
    refused = post(browser_endpoint, Origin=INSPECTOR_ORIGIN)  # the page may read why: a token is needed
    assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == INSPECTOR_ORIGIN
    assert "www-authenticate" in refused.headers["access-control-expose-headers"].lower()


def test_a_page_on_another_origin_gets_no_cors(browser_endpoint: str) -> None:
    for origin in ("http://evil.example", "http://localhost.evil.example:6274", "http://127.0.0.1.evil.example"):
        preflight = httpx.options(browser_endpoint, headers={**PREFLIGHT, "Origin": origin}, timeout=10)
        assert preflight.status_code >= 400 and "access-control-allow-origin" not in preflight.headers
        call = post(browser_endpoint, Origin=origin, Authorization=f"Bearer {TOKEN}")
        assert call.status_code == 403 and "access-control-allow-origin" not in call.headers


WEATHER_CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "Beijing"}},
}


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("text/event-stream", "text/event-stream"),  # Anthropic's connector proxy (Claude.ai's remote servers)
        ("application/json", "application/json"),  # plain JSON-RPC clients, validators, curl users
        ("application/json;q=0.9, text/event-stream", "text/event-stream"),
    ],
)
def test_a_client_accepting_one_media_type_is_served_in_it(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any], accept: str, content_type: str
) -> None:
    url = str(serve_http(gateway_settings()).url())
    for message in (INITIALIZE, WEATHER_CALL):
        response = post(url, message, Accept=accept, **{"Mcp-Protocol-Version": "2025-06-18"})
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith(content_type)
    result = body_of(response)["result"]
    assert not result["isError"] and result["structuredContent"]["location"]["country"] == "China"


def test_a_client_accepting_neither_is_told_what_to_accept(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    response = post(str(serve_http(gateway_settings()).url()), Accept="text/html")
    assert response.status_code == 406 and "application/json" in response.json()["error"]["message"]


CONTENT_BEFORE_2025_06_18 = {"text", "image", "audio", "resource"}
"""The content types a 2025-03-26 client knows; mcp 1.9 (Python) fails the whole call on any other."""


@pytest.mark.parametrize(("version", "links"), [("2024-11-05", False), ("2025-03-26", False), ("2025-06-18", True)])
def test_a_client_gets_only_the_content_types_of_its_protocol_over_http(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any], version: str, links: bool
) -> None:
    url = str(serve_http(gateway_settings()).url())
    result = body_of(post(url, WEATHER_CALL, **{"Mcp-Protocol-Version": version}))["result"]
    kinds = {block["type"] for block in result["content"]}
    assert ("resource_link" in kinds) is links
    assert links or kinds <= CONTENT_BEFORE_2025_06_18
    assert "open-meteo.com" in result["content"][0]["text"]  # the text names the source either way


def test_a_2025_03_26_client_over_stdio_gets_no_resource_links(raw_stdio: Callable[..., RawStdio]) -> None:
    gateway = raw_stdio()
    assert gateway.initialize("2025-03-26")["result"]["protocolVersion"] == "2025-03-26"
    gateway.send(WEATHER_CALL)
    result = gateway.receive()["result"]
    assert not result["isError"] and {block["type"] for block in result["content"]} <= CONTENT_BEFORE_2025_06_18
