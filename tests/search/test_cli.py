"""`weblens search` as a user runs it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo

runner = CliRunner()


@pytest.fixture
def ddg_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDuckDuckGo]:
    with FakeDuckDuckGo() as fake:
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", fake.url())
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND", "1000")
        yield fake


def test_json_output_then_cache_then_no_cache(ddg_env: FakeDuckDuckGo) -> None:
    first = runner.invoke(app, ["search", "lantern festival", "-n", "2", "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert data["provider"] == "duckduckgo" and len(data["results"]) == 2 and data["cached"] is False
    second = json.loads(runner.invoke(app, ["search", "lantern festival", "-n", "2", "--json"]).output)
    assert second["cached"] is True and ddg_env.count() == 1
    third = json.loads(runner.invoke(app, ["search", "lantern festival", "-n", "2", "--json", "--no-cache"]).output)
    assert third["cached"] is False and ddg_env.count() == 2


def test_rate_limit_is_one_line_with_its_code(ddg_env: FakeDuckDuckGo) -> None:
    ddg_env.anomaly()
    result = runner.invoke(app, ["search", "lantern", "--no-cache"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rate_limited: ") and "Traceback" not in result.output


def test_provider_option_and_missing_key(ddg_env: FakeDuckDuckGo) -> None:
    result = runner.invoke(app, ["search", "q", "--provider", "brave"])
    assert result.exit_code == 1 and "not_configured" in result.output and "BRAVE_API_KEY" in result.output
    bad = runner.invoke(app, ["search", "q", "--provider", "bing"])
    assert bad.exit_code == 1 and "validation_error" in bad.output


def test_explicit_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeBrave() as brave:
        monkeypatch.setenv("WEBLENS_BRAVE_BASE_URL", brave.url())
        monkeypatch.setenv("BRAVE_API_KEY", brave.api_key)
        result = runner.invoke(app, ["search", "starter", "--provider", "brave", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["provider"] == "brave"
    assert brave.api_key not in result.output

