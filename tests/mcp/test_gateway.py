"""The official MCP client talks to the gateway over stdio and over streamable HTTP.

Each check runs in its own HTTP session; over stdio one session runs them all, since
starting the subprocess costs seconds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ResourceLink, TextContent

from weblens.testing import Reply
from weblens.testing.openmeteo import FORECAST_PATH, FakeOpenMeteo
from weblens.testing.pages import ARTICLE_PARAGRAPHS, PageServer
from weblens.testing.providers import FakeBrave


@dataclass
class Upstreams:
    meteo: FakeOpenMeteo
    brave: FakeBrave
    pages: PageServer


@pytest.fixture
def up(meteo: FakeOpenMeteo, brave: FakeBrave, pages: PageServer) -> Upstreams:
    return Upstreams(meteo, brave, pages)


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def check_lists_tools_with_both_schemas(client: Client, up: Upstreams) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert list(listed) == ["web_search", "web_fetch", "get_weather", "think"]
    assert "set_todo_list" not in listed  # not in the enable-list
    for tool in listed.values():
        assert tool.description
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        # what a client compiles once per session: valid 2020-12, no `$ref` for it to resolve
        Draft202012Validator.check_schema(tool.output_schema)
        assert "$ref" not in json.dumps(tool.output_schema), tool.name
    assert listed["web_search"].input_schema["required"] == ["query"]
    assert listed["web_fetch"].input_schema["required"] == ["url"]
    weather = listed["get_weather"]
    assert weather.input_schema["required"] == ["location"]
    assert "current" in weather.output_schema["properties"]  # type: ignore[index]
    search_out = listed["web_search"].output_schema or {}
    assert {"query", "results", "provider"} <= set(search_out["properties"])
    fetch_out = listed["web_fetch"].output_schema or {}
    assert {"final_url", "content", "total_length", "truncated", "next_start_index"} <= set(fetch_out["properties"])


async def check_get_weather_text_structured_content_and_sources(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("get_weather", {"location": "北京", "days": 2})
    assert not result.is_error
    assert "Overcast" in text_of(result) and "9.4°C" in text_of(result)
    data = result.structured_content
    assert data["location"]["latitude"] == 39.9075 and len(data["daily"]) == 2
    links = [block for block in result.content if isinstance(block, ResourceLink)]
    assert [str(link.uri) for link in links] == [data["source_url"]]
    assert result.meta is not None and result.meta["weblens/brief"].startswith("🌤")


async def check_tool_failure_is_an_error_result_with_the_weblens_code(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("get_weather", {"location": "Atlantis"})
    assert result.is_error
    assert result.meta["weblens/error"]["code"] == "not_found"
    assert "not_found" in text_of(result) and "Atlantis" in text_of(result)


async def check_validation_errors_reach_the_client_field_by_field(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("get_weather", {"location": "", "days": 9})
    assert result.is_error
    error = result.meta["weblens/error"]
    assert error["code"] == "validation_error"
    assert sorted(issue["field"] for issue in error["details"]["issues"]) == ["days", "location"]
    assert "days" in text_of(result) and "location" in text_of(result)


async def check_think_has_no_declared_output_and_is_wrapped(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("think", {"thought": "check the forecast first"})
    assert not result.is_error and text_of(result) == "Thought recorded."
    assert result.structured_content == {"result": None}


async def check_unknown_tool_is_a_protocol_error(client: Client, up: Upstreams) -> None:
    with pytest.raises(MCPError, match="Unknown tool 'nope'"):
        await client.call_tool("nope", {})


async def check_upstream_failure_is_an_error_result(client: Client, up: Upstreams) -> None:
    up.meteo.fail_next(FORECAST_PATH, "bad_request")
    result = await client.call_tool("get_weather", {"location": "Beijing"})
    assert result.is_error and result.meta["weblens/error"]["code"] == "upstream_error"


async def check_web_search_results_and_sources(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("web_search", {"query": "lantern festival", "max_results": 2})
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data["provider"] == "brave" and data["query"] == "lantern festival" and len(data["results"]) == 2
    links = [str(block.uri) for block in result.content if isinstance(block, ResourceLink)]
    assert links == [r["url"] for r in data["results"]]
    assert all(url in text_of(result) for url in links)
    assert up.brave.requests[-1].headers["x-subscription-token"] == up.brave.api_key


async def check_web_search_gives_no_link_that_is_not_http(client: Client, up: Upstreams) -> None:
    bad = ["javascript:alert(document.cookie)", "file:///etc/passwd", "data:text/html,<script>x</script>",
           "http://[::1", "//evil.example/x", "https://"]  # fmt: skip
    items = [{"title": f"bad {i}", "url": url, "description": "d"} for i, url in enumerate(bad)]
    items.insert(3, {"title": "good", "url": "https://example.com/good", "description": "fine"})
    up.brave.queue(up.brave.search_path, Reply(body={"type": "search", "web": {"results": items}}))
    result = await client.call_tool("web_search", {"query": "links", "max_results": 10})
    assert not result.is_error, text_of(result)
    assert [str(b.uri) for b in result.content if isinstance(b, ResourceLink)] == ["https://example.com/good"]
    data = result.structured_content or {}
    assert [(r["url"], r["title"]) for r in data["results"]] == [("https://example.com/good", "good")]
    assert "javascript:" not in text_of(result) and "file://" not in text_of(result)


async def check_web_search_empty_query_is_refused(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("web_search", {"query": ""})
    assert result.is_error and result.meta["weblens/error"]["code"] == "validation_error"
    assert result.meta["weblens/error"]["details"]["issues"][0]["field"] == "query"


async def check_web_fetch_reads_a_page(client: Client, up: Upstreams) -> None:
    url = up.pages.url("/article")
    result = await client.call_tool("web_fetch", {"url": url})
    assert not result.is_error, text_of(result)
    assert ARTICLE_PARAGRAPHS[0][:40] in text_of(result)
    assert [str(b.uri) for b in result.content if isinstance(b, ResourceLink)] == [url]
    assert result.structured_content["final_url"] == url


async def check_web_fetch_refuses_metadata_addresses(client: Client, up: Upstreams) -> None:
    result = await client.call_tool("web_fetch", {"url": "http://169.254.169.254/latest/meta-data/"})
    assert result.is_error and result.meta["weblens/error"]["code"] == "blocked"


Check = Callable[[Client, FakeOpenMeteo], Awaitable[None]]
CHECKS: list[Check] = [
    check_lists_tools_with_both_schemas,
    check_web_search_results_and_sources,
    check_web_search_gives_no_link_that_is_not_http,
    check_web_search_empty_query_is_refused,
    check_web_fetch_reads_a_page,
    check_web_fetch_refuses_metadata_addresses,
    check_get_weather_text_structured_content_and_sources,
    check_tool_failure_is_an_error_result_with_the_weblens_code,
    check_validation_errors_reach_the_client_field_by_field,
    check_think_has_no_declared_output_and_is_wrapped,
    check_unknown_tool_is_a_protocol_error,
    check_upstream_failure_is_an_error_result,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
async def test_over_http(
    check: Check, up: Upstreams, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    async with Client(serve_http(gateway_settings()).url()) as client:
        await check(client, up)


async def test_over_stdio(up: Upstreams, stdio_gateway: Callable[..., Any]) -> None:
    async with Client(stdio_gateway()) as client:
        for check in CHECKS:
            await check(client, up)


async def test_each_call_is_logged_once_with_its_arguments(
    up: Upstreams,
    gateway_settings: Callable[..., Any],
    serve_http: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with Client(serve_http(gateway_settings()).url()) as client:
        with caplog.at_level(logging.INFO, logger="weblens.tools"):
            await client.call_tool("web_search", {"query": "lantern festival", "max_results": 2})
    records = [r for r in caplog.records if r.name == "weblens.tools"]
    assert len(records) == 1
    record = records[0]
    assert record.tool == "web_search" and record.outcome == "ok"  # type: ignore[attr-defined]
    assert record.arguments == {"query": "lantern festival", "max_results": 2}  # type: ignore[attr-defined]
    assert record.result_count == 2 and record.duration_ms > 0  # type: ignore[attr-defined]


async def test_web_fetch_serves_a_stale_copy_when_asked_and_says_so(
    up: Upstreams, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    settings = gateway_settings()
    settings.cache.enabled = True  # the gateway's other tests run without a cache
    async with Client(serve_http(settings).url()) as client:
        await _stale_copy_when_asked(client, up)


async def _stale_copy_when_asked(client: Client, up: Upstreams) -> None:
    url = up.pages.url("/bulletin.txt")
    up.pages.route("GET", "/bulletin.txt", Reply(body="ferries run to time", content_type="text/plain"))
    assert not (await client.call_tool("web_fetch", {"url": url})).is_error
    up.pages.route("GET", "/bulletin.txt", Reply(body="down", status=503, content_type="text/plain"))
    stale = await client.call_tool("web_fetch", {"url": url, "max_age": 0, "stale_if_error": True})
    assert not stale.is_error, text_of(stale)
    data = stale.structured_content
    assert data["stale"] is True and data["cached"] is True and "503" in data["stale_reason"] and data["age_s"] >= 0
    assert "STALE COPY" in text_of(stale) and "ferries run to time" in text_of(stale)
    for seconds in (2.5, 1e30):  # any number of seconds, as weblens.fetch takes it
        taken = await client.call_tool("web_fetch", {"url": url, "max_age": seconds, "stale_if_error": True})
        assert not taken.is_error and "ferries run to time" in text_of(taken), text_of(taken)
    for bad in (-5, "60", True):
        refused = await client.call_tool("web_fetch", {"url": url, "max_age": bad})
        assert refused.is_error and refused.meta["weblens/error"]["code"] == "validation_error"
        assert refused.meta["weblens/error"]["details"]["issues"][0]["field"] == "max_age"
