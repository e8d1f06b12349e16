"""`weblens serve` and `weblens mcp --transport http`: where they listen, what they say first, how they fail."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from weblens.cli import app

runner = CliRunner()


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize("argv", [["serve"], ["mcp", "--transport", "http"]], ids=["serve", "mcp"])
def test_a_port_out_of_range_is_one_line(argv: list[str]) -> None:
    result = runner.invoke(app, [*argv, "--port", "99999"])

    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--port 99999 is not a port number" in lines[0], result.output


@pytest.mark.parametrize("argv", [["serve"], ["mcp", "--transport", "http"]], ids=["serve", "mcp"])
def test_a_port_in_use_is_one_line_and_no_banner(argv: list[str], taken_port: int) -> None:
    result = runner.invoke(app, [*argv, "--port", str(taken_port)])

    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert f"cannot listen on 127.0.0.1:{taken_port}: the port is already in use" in lines[0]


def test_serve_and_the_mcp_gateway_default_to_different_ports() -> None:
    rows = json.loads(runner.invoke(app, ["config", "--json"]).stdout)["settings"]
    values = {row["key"]: row["value"] for row in rows}
    assert values["server.port"] == 8765 and values["mcp.port"] == 8766


def test_serve_without_a_model_says_how_to_connect_one_then_stops_on_ctrl_c(terminal: Callable[..., Any]) -> None:
    run = terminal("serve", "--port", "0")
    run.expect("Ctrl-C stops")
    run.expect("(in the environment, .env, or [llm] in weblens.toml)")

    url = run.err.split("weblens ", 1)[1].split()[0]
    assert httpx.get(f"{url}health", timeout=5).json()["status"] == "ok"
    assert "no model configured" in run.err
    for name in ("OpenAI:", "Ollama:", "vLLM:"):
        line = next(line for line in run.err.splitlines() if name in line)
        assert "WEBLENS_LLM_BASE_URL=" in line and "WEBLENS_LLM_MODEL=" in line
    run.interrupt()
    assert run.wait() == 130
    assert "Traceback" not in run.err


def test_serve_with_a_model_names_it(terminal: Callable[..., Any]) -> None:
    env = {"WEBLENS_LLM_BASE_URL": "http://127.0.0.1:9/v1", "WEBLENS_LLM_MODEL": "tiny-model"}
    run = terminal("serve", "--port", "0", env=env)
    run.expect("chat: model tiny-model at http://127.0.0.1:9/v1")
    assert "no model configured" not in run.err


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"WEBLENS_BROWSER_PATH": "/nonexistent/chromium"}, "rendering: off — WEBLENS_BROWSER_PATH is /nonexistent"),
        ({"WEBLENS_BROWSER_ENDPOINT": "ws://127.0.0.1:9/pw"}, "rendering: remote browser at ws://127.0.0.1:9/pw"),
    ],
    ids=["no-browser", "remote"],
)
def test_serve_says_which_browser_renders_pages(terminal: Callable[..., Any], env: dict[str, str], said: str) -> None:
    run = terminal("serve", "--port", "0", env=env)
    run.expect(said)
    run.interrupt()
    assert run.wait() == 130


@pytest.mark.parametrize("token", ["", "   "], ids=["empty", "spaces"])
@pytest.mark.parametrize("argv", [["serve"], ["mcp", "--transport", "http"]], ids=["serve", "mcp"])
def test_an_empty_token_is_no_token_on_a_public_bind(argv: list[str], token: str) -> None:
    result = runner.invoke(app, [*argv, "--host", "0.0.0.0", "--port", "0"], env={"WEBLENS_MCP_TOKEN": token})

    assert result.exit_code == 1, result.output
    assert "WEBLENS_MCP_TOKEN" in result.output and "refusing" in result.output
    assert "Traceback" not in result.output
