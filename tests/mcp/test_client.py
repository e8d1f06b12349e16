"""Remote MCP tools as weblens tools: the gateway itself, and a plain SDK server, as remotes."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from weblens.errors import UpstreamError
from weblens.mcp.client import RemoteServer, RemoteTool, from_call_result
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.tools.think import Think
from weblens.toolset import Toolset


@pytest.fixture
def remote_url(gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]) -> str:
    return str(serve_http(gateway_settings()).url())


async def test_remote_tools_mix_with_local_ones(remote_url: str) -> None:
    async with RemoteServer.http(remote_url, prefix="remote_") as remote:
        tools = await remote.tools()
        toolset = Toolset([Think(name="local_think"), *tools])
        assert {"local_think", "remote_get_weather", "remote_think"} <= set(toolset.names)
        weather = toolset.get("remote_get_weather")
        assert isinstance(weather, RemoteTool) and weather.remote_name == "get_weather"
        declared = weather.schema("openai")["function"]
        assert declared["parameters"]["required"] == ["location"]
        assert weather.output_schema is not None and "current" in weather.output_schema["properties"]

        result = await toolset.call("remote_get_weather", {"location": "北京", "days": 1})
        assert result.ok, result.error
        assert "Overcast" in result.text and result.data["location"]["latitude"] == 39.9075
        assert [s.url for s in result.sources] == [result.data["source_url"]]
        assert result.brief.startswith("🌤")
        assert (await toolset.call("local_think", {"thought": "ok"})).ok


async def test_remote_failures_keep_their_weblens_code(remote_url: str) -> None:
    async with RemoteServer.http(remote_url) as remote:
        toolset = Toolset(await remote.tools())
        missing = await toolset.call("get_weather", {"location": "Atlantis"})
        assert missing.error is not None and missing.error.code == "not_found" and "Atlantis" in missing.error.message
        invalid = await toolset.call("get_weather", {"location": "Beijing", "days": 99})
        assert invalid.error is not None and invalid.error.code == "validation_error"
        assert [i["field"] for i in invalid.error.details["issues"]] == ["days"]


async def test_remote_timeout_is_a_timeout_result_and_cancels_the_work(remote_url: str, meteo: FakeOpenMeteo) -> None:
    meteo.latency_s = 6.0  # long enough that only a hang-up, not the answer, ends the upstream request
    async with RemoteServer.http(remote_url, timeout=0.3) as remote:
        result = await Toolset(await remote.tools()).call("get_weather", {"location": "Beijing"})
        assert result.error is not None and result.error.code == "timeout"
        assert result.duration_ms < 1500
        for _ in range(500):  # the gateway hears the hang-up and closes its own upstream request
            if meteo.disconnects:
                break
            await asyncio.sleep(0.01)
    assert meteo.disconnects == 1


async def test_a_dead_server_is_an_error_result(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    served = serve_http(gateway_settings())
    async with RemoteServer.http(served.url()) as remote:
        toolset = Toolset(await remote.tools())
        served.stop()
        result = await toolset.call("think", {"thought": "still there?"})
    assert result.error is not None and result.error.code == "upstream_error"


async def test_unreachable_server_fails_to_connect_with_a_weblens_error() -> None:
    with pytest.raises(UpstreamError, match="connecting to MCP server"):
        async with RemoteServer.http("http://127.0.0.1:9/mcp"):
            pass


async def test_missing_command_fails_to_connect_with_a_weblens_error() -> None:
    with pytest.raises(UpstreamError):
        async with RemoteServer.stdio("/nonexistent/mcp-server"):
            pass


NOTES_SERVER = """
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("notes")


@app.tool()
def add_note(title: str, body: str = "") -> str:
    \"\"\"Save a note.\"\"\"
    return f"saved {title!r} ({len(body)} chars)"


@app.tool()
def sync_notes() -> str:
    \"\"\"Sync with the cloud.\"\"\"
    raise ToolError("the cloud is down")


app.run()
"""


async def test_any_stdio_server(tmp_path: Path) -> None:
    """A server that is not weblens (the SDK's MCPServer): plain text results, plain errors."""
    script = tmp_path / "notes_server.py"
    script.write_text(NOTES_SERVER)
    async with RemoteServer.stdio(sys.executable, [str(script)], prefix="notes_") as remote:
        toolset = Toolset([Think(), *await remote.tools()])
        assert toolset.names == ["think", "notes_add_note", "notes_sync_notes"]
        assert toolset.get("notes_add_note").json_schema["required"] == ["title"]  # type: ignore[union-attr]
        saved = await toolset.call("notes_add_note", {"title": "groceries", "body": "eggs"})
        assert saved.ok and "saved 'groceries' (4 chars)" in saved.text and saved.brief.startswith("saved")
        failed = await toolset.call("notes_sync_notes", {})
        assert failed.error is not None and failed.error.code == "upstream_error"
        assert "the cloud is down" in failed.error.message
        missing = await toolset.call("notes_add_note", {})
        assert missing.error is not None and "title" in missing.error.message


def test_remote_links_that_are_not_http_are_not_sources() -> None:
    remote = types.CallToolResult(
        content=[
            types.TextContent(text="found"),
            types.ResourceLink(uri="file:///etc/passwd", name="passwd"),
            types.ResourceLink(uri="javascript:alert(1)", name="js"),
            types.ResourceLink(uri="https://example.com/doc", name="doc"),
        ]
    )
    assert [s.url for s in from_call_result(remote).sources] == ["https://example.com/doc"]
