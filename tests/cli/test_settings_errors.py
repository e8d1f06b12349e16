"""A bad setting is one clear message and exit 2 on every command; unknown keys are warned about."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from weblens.cli import COMMANDS, app

runner = CliRunner()
# every command that reads settings, with arguments that would otherwise work offline
INVOCATIONS = [
    ["config"], ["tools"], ["search", "q"], ["fetch", "http://127.0.0.1:9/"], ["weather", "Paris"],
    ["serve", "--port", "0"], ["chat", "hi"], ["mcp", "--transport", "http", "--port", "0"],
    ["map", "http://127.0.0.1:9/"], ["crawl", "http://127.0.0.1:9/"],
    ["screenshot", "http://127.0.0.1:9/"],
    ["extract", "http://127.0.0.1:9/", "--schema", "schema.json"],
]  # fmt: skip


def test_every_command_is_covered() -> None:
    assert {argv[0] for argv in INVOCATIONS} == set(COMMANDS)


@pytest.mark.parametrize("argv", INVOCATIONS, ids=lambda argv: argv[0])
def test_a_bad_variable_names_itself_and_what_is_expected(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_SERVER_PORT", "abc")

    result = runner.invoke(app, argv)

    assert result.exit_code == 2, result.output
    assert "WEBLENS_SERVER_PORT" in result.output and "'abc'" in result.output
    assert "valid integer" in result.output and "default: 8765" in result.output
    assert "Traceback" not in result.output


def test_a_bad_value_in_the_config_file_names_file_line_and_key(isolated_env: Path) -> None:
    (isolated_env / "weblens.toml").write_text("[fetch]\nmax_redirects = 2\n\n[server]\nport = 99999\n")

    result = runner.invoke(app, ["config"])

    assert result.exit_code == 2
    assert "server.port" in result.output and "weblens.toml line 5" in result.output
    assert "`port` under [server]" in result.output and "less than or equal to 65535" in result.output


def test_a_broken_config_file_names_the_file_and_position(isolated_env: Path) -> None:
    (isolated_env / "weblens.toml").write_text("[server]\nport 8000\n")

    result = runner.invoke(app, ["search", "q", "--json"])

    assert result.exit_code == 2
    envelope = json.loads(result.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "not_configured"
    assert "weblens.toml is not valid TOML" in envelope["error"]["message"] and "line 2" in envelope["error"]["message"]


def test_unknown_keys_are_warned_about_with_the_closest_name(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_env / "weblens.toml").write_text('[brave]\napi_kye = "x"\n\n[serch]\nprovider = "brave"\n')
    monkeypatch.setenv("WEBLENS_FETCH_ALOW_PRIVATE", "true")

    result = runner.invoke(app, ["config", "--json"])

    assert result.exit_code == 0
    assert "unknown key 'api_kye' in [brave]; did you mean 'api_key'?" in result.stderr
    assert "unknown section [serch]; did you mean [search]?" in result.stderr
    assert "WEBLENS_FETCH_ALOW_PRIVATE" in result.stderr and "WEBLENS_FETCH_ALLOW_PRIVATE" in result.stderr
    json.loads(result.stdout)  # the warnings never mix into the output


def test_config_json_values_are_json_values(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_FETCH_ALLOWED_HOSTS", "wiki.internal,docs.internal:8080")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-secret-value")

    result = runner.invoke(app, ["config", "--json"])

    values = {row["key"]: row["value"] for row in json.loads(result.stdout)["settings"]}
    assert values["server.port"] == 8765 and values["fetch.allow_private"] is False
    assert values["fetch.allowed_hosts"] == ["wiki.internal", "docs.internal:8080"]
    assert values["llm.model"] is None and values["fetch.timeout"] == 30.0
    assert values["brave.api_key"] == "***" and "brave-secret-value" not in result.output
