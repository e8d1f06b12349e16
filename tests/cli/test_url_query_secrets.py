"""A key in a URL setting's query string (`…/v1?api-key=KEY`, SearXNG `?token=`) is masked by
`weblens serve`'s start line, `weblens config` and CLI errors, and still sent upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing import FakeSearxng
from weblens.testing.server import Reply

LLM_KEY = "llm-QueryKey-5e8d20"
SEARXNG_TOKEN = "searx-QueryToken-c41a"
SIGNATURE = "sig-6b0f39d2aa"


@pytest.mark.parametrize("args", [["config", "--json"], ["config"]])
def test_config_masks_secret_query_values(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.setenv("WEBLENS_LLM_BASE_URL", f"https://llm.example/v1?api-key={LLM_KEY}&region=eu")
    monkeypatch.setenv("WEBLENS_SEARXNG_BASE_URL", f"https://searx.example/?Token={SEARXNG_TOKEN}")
    monkeypatch.setenv("WEBLENS_FETCH_PROXY", f"http://proxy.example:3128/?X-Amz-Signature={SIGNATURE}")
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})

    assert result.exit_code == 0, result.output
    assert not [key for key in (LLM_KEY, SEARXNG_TOKEN, SIGNATURE) if key in result.output]
    if "--json" in args:
        rows = {row["key"]: row["value"] for row in json.loads(result.output)["settings"]}
        assert rows["llm.base_url"] == "https://llm.example/v1?api-key=***&region=eu"  # the rest stays readable
        assert rows["searxng.base_url"] == "https://searx.example/?Token=***"
        assert rows["fetch.proxy"] == "http://proxy.example:3128/?X-Amz-Signature=***"
    else:
        assert "https://llm.example/v1?api-key=***&region=eu" in result.output


def test_serve_names_the_model_without_its_key(terminal: Callable[..., Any]) -> None:
    env = {"WEBLENS_LLM_BASE_URL": f"http://127.0.0.1:9/v1?api_key={LLM_KEY}", "WEBLENS_LLM_MODEL": "tiny-model"}
    run = terminal("serve", "--port", "0", env=env)
    run.expect("chat: model tiny-model at http://127.0.0.1:9/v1?api_key=***")
    run.interrupt()
    run.wait()
    assert LLM_KEY not in run.err + run.out


def test_a_cli_error_masks_the_token_and_the_instance_still_gets_it() -> None:
    with FakeSearxng() as searxng:
        echo = f"token {SEARXNG_TOKEN} refused for {searxng.url()}/?token={SEARXNG_TOKEN}"
        searxng.queue("/search", Reply(status=403, body=echo, content_type="text/plain"))
        env = {
            **os.environ,
            "WEBLENS_SEARXNG_BASE_URL": f"{searxng.url()}?token={SEARXNG_TOKEN}",
            "WEBLENS_SEARCH_PROVIDER": "searxng",
        }
        done = subprocess.run(
            [sys.executable, "-m", "weblens", "-v", "search", "rain barrels"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        sent = [request.query.get("token") for request in searxng.requests]

    assert done.returncode != 0
    assert "403" in done.stdout + done.stderr
    assert "token=***" in done.stderr  # the -v request log names the URL, masked
    assert SEARXNG_TOKEN not in done.stdout + done.stderr
    assert sent and set(sent) == {SEARXNG_TOKEN}


def test_which_query_names_count_as_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = ["apiKey", "subscription-key", "access_token", "X-Amz-Credential", "sig", "auth", "session_id", "Password"]
    plain = ["max_tokens", "region", "api-version", "q"]
    query = "&".join(f"{name}=value-{n}" for n, name in enumerate(secret + plain))
    monkeypatch.setenv("WEBLENS_LLM_BASE_URL", f"https://llm.example/v1?{query}#id_token=value-frag")
    result = CliRunner().invoke(app, ["config", "--json"])

    shown = {row["key"]: row["value"] for row in json.loads(result.output)["settings"]}["llm.base_url"]
    masked = "&".join(f"{name}=***" for name in secret)
    kept = "&".join(f"{name}=value-{n}" for n, name in enumerate(plain, start=len(secret)))
    assert shown == f"https://llm.example/v1?{masked}&{kept}#id_token=***"
