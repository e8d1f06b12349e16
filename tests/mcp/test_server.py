"""How weblens tools and results map onto MCP declarations and results."""

from __future__ import annotations

import logging

import pytest
from mcp.types import ResourceLink, TextContent
from pydantic import BaseModel

from weblens.config import Settings
from weblens.context import ToolContext
from weblens.mcp.server import GENERIC_OUTPUT_SCHEMA, LARGE_TEXT_CHARS, declare, gateway_toolset, to_call_result
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.tool import Tool
from weblens.tools.think import Think


class PageParams(BaseModel):
    url: str


class Page(BaseModel):
    url: str
    title: str
    content: str


class FakeFetch(Tool[PageParams]):
    name = "fake_fetch"
    description = "A page as markdown."
    params = PageParams
    output = Page

    async def run(self, params: PageParams, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


def page_result(content: str) -> ToolResult:
    page = Page(url="https://example.com/a", title="A", content=content)
    return ToolResult.success(
        f"# {page.title}\n\n{content}", data=page.model_dump(), sources=[Source(title="A", url=page.url)], brief="A"
    )


def test_declaration_has_input_and_output_schemas() -> None:
    declared = declare(FakeFetch())
    assert declared.name == "fake_fetch" and declared.description == "A page as markdown."
    assert declared.input_schema["required"] == ["url"]
    assert declared.output_schema is not None
    assert set(declared.output_schema["properties"]) == {"url", "title", "content"}
    assert declare(Think()).output_schema == GENERIC_OUTPUT_SCHEMA


def test_small_result_is_sent_whole_with_sources_as_links() -> None:
    result = to_call_result(FakeFetch(), page_result("short text"))
    assert not result.is_error
    assert result.structured_content == {"url": "https://example.com/a", "title": "A", "content": "short text"}
    text, link = result.content
    assert isinstance(text, TextContent) and "short text" in text.text
    assert isinstance(link, ResourceLink) and str(link.uri) == "https://example.com/a" and link.title == "A"
    assert result.meta is not None and result.meta["weblens/brief"] == "A"


def test_large_payload_is_not_sent_twice() -> None:
    big = "word " * LARGE_TEXT_CHARS
    result = to_call_result(FakeFetch(), page_result(big))
    wire = result.model_dump_json(by_alias=True)
    assert wire.count("word word word") < len(big) / 4  # the body travels once
    assert len(wire) < len(big) * 1.2
    assert result.structured_content["content"] != big
    assert result.structured_content["title"] == "A"
    assert result.meta is not None and result.meta["weblens/in_text"] == ["content"]
    assert big in result.content[0].text  # type: ignore[union-attr]


def test_large_payload_of_a_tool_without_output_model_is_not_sent_twice() -> None:
    class Undeclared(FakeFetch):
        output = None

    big = "word " * LARGE_TEXT_CHARS
    result = to_call_result(Undeclared(), page_result(big))
    assert result.structured_content["result"]["title"] == "A"
    assert result.structured_content["result"]["content"] != big
    assert len(result.model_dump_json(by_alias=True)) < len(big) * 1.2


def test_error_result_carries_code_and_details() -> None:
    failed = ToolResult.failure("rate_limited", "slow down", retryable=True, retry_after_s=2.0)
    result = to_call_result(FakeFetch(), failed)
    assert result.is_error
    assert result.structured_content is None  # clients would check it against the output schema
    assert result.meta is not None and result.meta["weblens/error"] == {
        "code": "rate_limited", "message": "slow down", "retryable": True, "retry_after_s": 2.0, "details": {}
    }
    assert "rate_limited" in result.content[0].text  # type: ignore[union-attr]


def test_enable_list_and_unavailable_tools(caplog: pytest.LogCaptureFixture) -> None:
    runtime = Runtime.from_settings(Settings(mcp={"tools": ["get_weather", "think", "no_such_tool"]}))
    with caplog.at_level(logging.WARNING, logger="weblens.mcp"):
        toolset = gateway_toolset(runtime)
    assert toolset.names == ["get_weather", "think"]
    assert "no_such_tool" in caplog.text
    assert gateway_toolset(runtime, ["set_todo_list"]).names == ["set_todo_list"]


def test_default_enable_list_is_search_fetch_weather() -> None:
    assert Settings().mcp.tools == ["web_search", "web_fetch", "get_weather"]


def test_only_http_sources_become_resource_links() -> None:
    sources = [Source(title="ok", url="https://example.com/a"), Source(title="js", url="javascript:alert(1)"),
               Source(title="file", url="file:///etc/passwd"), Source(title="broken", url="http://[::1")]  # fmt: skip
    result = to_call_result(Think(), ToolResult.success("t", data={"x": 1}, sources=sources))
    assert [str(b.uri) for b in result.content if isinstance(b, ResourceLink)] == ["https://example.com/a"]
