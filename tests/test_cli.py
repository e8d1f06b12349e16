"""The `weblens` command as a user runs it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from weblens import __version__
from weblens.cli import app

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"weblens {__version__}"


def test_tools_lists_names_as_json() -> None:
    result = runner.invoke(app, ["tools", "--json"])
    assert result.exit_code == 0
    names = [tool["name"] for tool in json.loads(result.output)]
    assert "think" in names and "set_todo_list" in names


@pytest.mark.parametrize(
    ("dialect", "name_path"),
    [
        ("openai", ("function", "name")),
        ("anthropic", ("name",)),
        ("gemini", ("name",)),
        ("mcp", ("name",)),
    ],
)
def test_tools_prints_schemas_per_dialect(dialect: str, name_path: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["tools", "--format", dialect])
    assert result.exit_code == 0, result.output
    declared = json.loads(result.output)
    names = []
    for item in declared:
        for key in name_path:
            item = item[key]
        names.append(item)
    assert "think" in names


def test_tools_rejects_an_unknown_format() -> None:
    result = runner.invoke(app, ["tools", "--format", "yaml"])
    assert result.exit_code != 0 and "choose one of" in result.output


def test_config_masks_secrets_and_says_where_values_came_from(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_env / "weblens.toml").write_text("[server]\nport = 9100\n")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-cli-secret")
    result = runner.invoke(app, ["config", "--json"])
    assert result.exit_code == 0
    assert "tvly-cli-secret" not in result.output
    data = json.loads(result.output)
    rows = {row["key"]: row for row in data["settings"]}
    assert rows["tavily.api_key"] == {"key": "tavily.api_key", "value": "***", "source": "environment"}
    assert rows["server.port"]["source"] == "weblens.toml" and rows["server.port"]["value"] == 9100
    assert data["config_file"] == "weblens.toml"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_health_on_loopback(isolated_env: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "weblens", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "version": __version__}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_refuses_a_reachable_address_without_a_token() -> None:
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 2  # a bad setting (README: exit codes)
    assert "WEBLENS_MCP_TOKEN" in result.output and "Traceback" not in result.output
