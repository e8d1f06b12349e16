"""`weblens serve` and `weblens mcp --transport http`: where they listen, what they say first, how they fail."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.openmeteo import FakeOpenMeteo

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

    assert result.exit_code == 2
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
    url = run.err.split("weblens ", 1)[1].split()[0]
    # the socket listens before the banner: this answers once the server runs, with its Ctrl-C handling
    assert httpx.get(f"{url}health", timeout=30).json()["status"] == "ok"
    run.interrupt()
    assert run.wait() == 130


@pytest.mark.parametrize("token", ["", "   "], ids=["empty", "spaces"])
@pytest.mark.parametrize("argv", [["serve"], ["mcp", "--transport", "http"]], ids=["serve", "mcp"])
def test_an_empty_token_is_no_token_on_a_public_bind(argv: list[str], token: str) -> None:
    result = runner.invoke(app, [*argv, "--host", "0.0.0.0", "--port", "0"], env={"WEBLENS_MCP_TOKEN": token})

    assert result.exit_code == 2, result.output
    assert "WEBLENS_MCP_TOKEN" in result.output and "refusing" in result.output
    assert "Traceback" not in result.output


def _sse_events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name = "message"
    for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line[5:])
            name = "message"


def test_ctrl_c_while_an_answer_streams_ends_the_stream_saying_so_and_keeps_the_answer(
    terminal: Callable[..., Any], tmp_path: Any
) -> None:
    with ScriptedLLM() as llm, FakeOpenMeteo() as meteo:
        llm.add(
            Turn(tool_calls=[call("get_weather", {"location": "北京"})]),
            Turn(text="北京很冷 [1]。" + " word" * 2000, chunk_interval_s=0.05),
        )
        env = {
            "WEBLENS_DATA_DIR": str(tmp_path), "WEBLENS_LLM_BASE_URL": llm.base_url, "WEBLENS_LLM_MODEL": "m",
            "WEBLENS_LLM_TOOLS": "get_weather", "WEBLENS_WEATHER_GEOCODING_BASE_URL": meteo.url(),
            "WEBLENS_WEATHER_FORECAST_BASE_URL": meteo.url(), "WEBLENS_CACHE_ENABLED": "false",
        }
        run = terminal("serve", "--port", "0", env=env)
        run.expect("Ctrl-C stops")
        url = run.err.split("weblens ", 1)[1].split()[0]
        events: list[tuple[str, dict[str, Any]]] = []
        interrupted = 0.0
        with httpx.stream("POST", f"{url}api/chat", json={"message": "北京冷吗？"}, timeout=30) as response:
            for event in _sse_events(response.iter_lines()):
                events.append(event)
                if not interrupted and event[0] == "delta" and "word" in event[1]["text"]:
                    interrupted = time.monotonic()
                    run.interrupt()  # once: a second Ctrl-C is uvicorn's "force exit"
        ended = time.monotonic() - interrupted
        assert run.wait() == 130
        exited = time.monotonic() - interrupted

    name, last = events[-1]
    assert name == "stopped" and last["status"] == "incomplete" and last["reason"] == "server_stopping"
    assert "server is stopping" in last["message"]
    assert [(s["number"], "open-meteo" in s["url"]) for s in last["sources"]] == [(1, True)]
    # uvicorn waited 5 s for the stream, then cancelled it with a traceback: now the stream ends at once
    assert ended < 3 and exited < 4.5, (ended, exited)
    assert "Traceback" not in run.err and "Cancel" not in run.err, run.err

    session_id = events[0][1]["session_id"]
    again = terminal("serve", "--port", "0", env={"WEBLENS_DATA_DIR": str(tmp_path)})
    again.expect("Ctrl-C stops")
    url = again.err.split("weblens ", 1)[1].split()[0]
    saved = httpx.get(f"{url}api/sessions/{session_id}", timeout=10).json()["messages"][-1]
    assert saved["status"] == "incomplete" and saved["content"].startswith("北京很冷 [1]。 word")
    assert [s["number"] for s in saved["sources"]] == [1]
