"""`WEBLENS_REDIS_URL`: its password is a secret everywhere weblens shows settings; a wrong
URL is one clear message naming the variable."""

from __future__ import annotations

import json
import logging

import pytest
from typer.testing import CliRunner

from weblens import Settings
from weblens.cli import app
from weblens.redact import redact_text
from weblens.runtime import Runtime

runner = CliRunner()
URL = "redis://:hunter2-sekrit@127.0.0.1:1/0"


def test_config_masks_the_redis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_REDIS_URL", URL)
    shown = runner.invoke(app, ["config"])
    as_json = runner.invoke(app, ["config", "--json"])
    assert shown.exit_code == 0 and as_json.exit_code == 0, shown.output
    assert "redis_url" in shown.output and "hunter2" not in shown.output + as_json.output
    values = json.loads(as_json.output)
    rows = values.get("settings", values)
    assert "redis_url" in json.dumps(rows)


def test_the_password_is_redacted_wherever_it_shows_up() -> None:
    Settings(redis_url=URL)
    assert "hunter2-sekrit" not in redact_text("AUTH failed for hunter2-sekrit")


def test_a_url_that_is_not_redis_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_REDIS_URL", "http://cache.internal:6379")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 2 and "WEBLENS_REDIS_URL" in result.output and "redis://" in result.output
    assert "Traceback" not in result.output


async def test_an_unreachable_redis_warning_shows_no_password(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    async with Runtime(Settings(redis_url=URL)) as runtime:
        with pytest.raises(Exception, match="unreachable") as failed:
            await runtime.readiness_checks["redis"]()
        await runtime.policy_state.increment("k", expires_at=2e9)  # answered locally, and said so
    said = " ".join(r.getMessage() for r in caplog.records) + str(failed.value)
    assert "127.0.0.1:1" in said and "hunter2" not in said
