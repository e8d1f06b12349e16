"""What clients we cannot run here (Cursor, Gemini-backed agents, OpenAI-backed ones) need from the
gateway, checked over the real transports: schemas they accept."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
from mcp.client.client import Client

from weblens.testing.providers import FakeBrave

EVERY_TOOL = "think,set_todo_list,get_weather,web_search,web_fetch,web_map,web_crawl,web_screenshot,web_extract"
REFUSED_BY_SOME_CLIENTS = ("anyOf", "oneOf", "allOf", "$ref", "$defs")
"""Cursor drops a server's whole tool list when one inputSchema composes schemas; `$ref` is
unresolved by several clients; Gemini maps each schema onto one `type`."""


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
