"""A password inside a URL setting is masked by `weblens config` and in `-v` logs, and still used."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing import FakeSearxng

SEARXNG_PASSWORD = "searx-Passw0rd-51c2"
PROXY_PASSWORD = "proxy-Passw0rd-90ab"
LLM_PASSWORD = "llm-Passw0rd-7f3a91"
PASSWORDS = (SEARXNG_PASSWORD, PROXY_PASSWORD, LLM_PASSWORD)


@pytest.fixture
def url_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_SEARXNG_BASE_URL", f"https://alice:{SEARXNG_PASSWORD}@searx.example/")
    monkeypatch.setenv("WEBLENS_FETCH_PROXY", f"http://carol:{PROXY_PASSWORD}@proxy.example:3128")
    monkeypatch.setenv("WEBLENS_LLM_BASE_URL", f"https://bob:{LLM_PASSWORD}@llm.example/v1")


@pytest.mark.parametrize("args", [["config", "--json"], ["config"]])
def test_config_masks_the_password_in_url_settings(url_settings: None, args: list[str]) -> None:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})

    assert result.exit_code == 0, result.output
    assert not [password for password in PASSWORDS if password in result.output]
    if "--json" in args:
        rows = {row["key"]: row["value"] for row in json.loads(result.output)["settings"]}
        assert rows["searxng.base_url"] == "https://alice:***@searx.example/"
        assert rows["fetch.proxy"] == "http://carol:***@proxy.example:3128"
        assert rows["llm.base_url"] == "https://bob:***@llm.example/v1"
    else:
        assert "https://alice:***@searx.example/" in result.output


def test_verbose_logs_mask_the_password_and_the_instance_still_gets_it(isolated_env: Path) -> None:
    with FakeSearxng() as searxng:
        base_url = searxng.url().replace("http://", f"http://alice:{SEARXNG_PASSWORD}@")
        env = {**os.environ, "WEBLENS_SEARXNG_BASE_URL": base_url, "WEBLENS_SEARCH_PROVIDER": "searxng"}
        done = subprocess.run(
            [sys.executable, "-m", "weblens", "-v", "search", "rain barrels", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        sent = searxng.requests[-1].headers.get("authorization", "")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    logged = [line for line in done.stderr.splitlines() if "HTTP Request" in line]
    assert logged and "http://alice:***@127.0.0.1" in logged[0]
    assert SEARXNG_PASSWORD not in done.stderr + done.stdout
    assert sent == "Basic " + base64.b64encode(f"alice:{SEARXNG_PASSWORD}".encode()).decode()
