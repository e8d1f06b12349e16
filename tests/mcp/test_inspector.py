"""The MCP Inspector's CLI (another SDK, in TypeScript) drives the gateway over stdio and HTTP.

Needs Node; the Inspector is installed once into pytest's cache directory (git-ignored).
Skipped cleanly when Node or the package is not available.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import npm_tool

PACKAGE = "@modelcontextprotocol/inspector@^2.12"
RUN_TIMEOUT_S = 60
TOKEN = "inspector-test-token"


@pytest.fixture(scope="session")
def inspector(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    return npm_tool(request, tmp_path_factory, PACKAGE, "mcp-inspector", "mcp-inspector")


def run(inspector: str, *args: str) -> tuple[int, Any]:
    done = subprocess.run([inspector, "--cli", *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        return done.returncode, done.stdout + done.stderr


def test_stdio_call(inspector: str, gateway_env: dict[str, str]) -> None:
    env_args = [arg for key, value in gateway_env.items() for arg in ("-e", f"{key}={value}")]
    code, out = run(
        inspector, *env_args, sys.executable, "-m", "weblens", "mcp",
        "--method", "tools/call", "--tool-name", "get_weather", "--tool-arg", "location=北京", "--tool-arg", "days=2",
    )  # fmt: skip
    assert code == 0, out
    assert not out.get("isError") and out["structuredContent"]["location"]["country"] == "China"
    assert len(out["structuredContent"]["daily"]) == 2
    assert any(block["type"] == "resource_link" for block in out["content"])


@pytest.fixture
def http_url(gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]) -> str:
    return str(serve_http(gateway_settings(mcp={"token": TOKEN})).url())


def test_http_list_and_call_with_token(inspector: str, http_url: str) -> None:
    auth = ["--transport", "http", "--header", f"Authorization: Bearer {TOKEN}"]
    code, listed = run(inspector, http_url, *auth, "--method", "tools/list")
    assert code == 0, listed
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert list(tools) == ["web_search", "web_fetch", "get_weather", "think"]
    assert all("inputSchema" in t and "outputSchema" in t for t in tools.values())

    call = ["--method", "tools/call", "--tool-name", "get_weather", "--tool-arg", "location=Atlantis"]
    _, failed = run(inspector, http_url, *auth, *call)  # exits non-zero on isError; what it printed counts
    assert isinstance(failed, dict), failed
    assert failed["isError"] is True and failed["_meta"]["weblens/error"]["code"] == "not_found"


def test_http_without_token_is_refused(inspector: str, http_url: str) -> None:
    code, out = run(inspector, http_url, "--transport", "http", "--method", "tools/list")
    assert code != 0 and "tools" not in str(out)[:200]


def test_tool_schemas_are_portable(inspector: str, gateway_env: dict[str, str]) -> None:
    """The Inspector lints every listed schema (type lists, remote refs, untyped nodes); --strict prints each."""
    env_args = [arg for key, value in gateway_env.items() for arg in ("-e", f"{key}={value}")]
    done = subprocess.run(
        [inspector, "--cli", "--strict", *env_args, sys.executable, "-m", "weblens", "mcp", "--method", "tools/list"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["tools"]) == 4
    assert "Warning:" not in done.stderr and "Error:" not in done.stderr, done.stderr[-3000:]
