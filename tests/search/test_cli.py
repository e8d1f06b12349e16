"""`weblens search` as a user runs it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo

runner = CliRunner()


def test_json_output_then_cache_then_no_cache(ddg_env: FakeDuckDuckGo) -> None:
    first = runner.invoke(app, ["search", "lantern festival", "-n", "2", "--json"])
    assert first.exit_code == 0, first.output
    envelope = json.loads(first.output)
    data = envelope["data"]
    assert envelope["ok"] is True and envelope["error"] is None and len(envelope["sources"]) == 2
    assert data["provider"] == "duckduckgo" and len(data["results"]) == 2 and data["cached"] is False
    second = json.loads(runner.invoke(app, ["search", "lantern festival", "-n", "2", "--json"]).output)["data"]
    assert second["cached"] is True and ddg_env.count() == 1
    argv = ["search", "lantern festival", "-n", "2", "--json", "--no-cache"]
    third = json.loads(runner.invoke(app, argv).output)["data"]
    assert third["cached"] is False and ddg_env.count() == 2


def test_rate_limit_with_json_is_the_error_envelope_on_stdout(ddg_env: FakeDuckDuckGo) -> None:
    ddg_env.anomaly()
    result = runner.invoke(app, ["search", "lantern", "--no-cache", "--json"])
    assert result.exit_code == 1
    envelope = json.loads(result.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "rate_limited"
    assert envelope["error"]["retryable"] is True and "Traceback" not in result.output


def test_provider_option_and_missing_key(ddg_env: FakeDuckDuckGo) -> None:
    result = runner.invoke(app, ["search", "q", "--provider", "brave"])
    assert result.exit_code == 2 and "not_configured" in result.output and "BRAVE_API_KEY" in result.output
    bad = runner.invoke(app, ["search", "q", "--provider", "bing"])
    assert bad.exit_code == 2 and "validation_error" in bad.output


def test_explicit_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeBrave() as brave:
        monkeypatch.setenv("WEBLENS_BRAVE_BASE_URL", brave.url())
        monkeypatch.setenv("BRAVE_API_KEY", brave.api_key)
        result = runner.invoke(app, ["search", "starter", "--provider", "brave", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["data"]["provider"] == "brave"
    assert brave.api_key not in result.output

