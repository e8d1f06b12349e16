"""`ALL_PROXY=socks5://…` (Clash, ssh -D, Tor): every command goes through the proxy, none crashes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.providers import FakeDuckDuckGo
from weblens.testing.proxy import FakeProxy

runner = CliRunner()


@pytest.fixture
def socks(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProxy]:
    with FakeProxy() as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy.url("socks5"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.setenv("WEBLENS_CACHE_ENABLED", "false")
        yield proxy


def test_search_goes_through_a_socks_proxy(socks: FakeProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeDuckDuckGo() as ddg:
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", ddg.url())
        result = runner.invoke(app, ["search", "lantern festival", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["provider"] == "duckduckgo"
    assert [(r.kind, r.target) for r in socks.requests] == [("socks5", f"127.0.0.1:{ddg.port}")]


def test_chat_reaches_the_model_through_a_socks_proxy(socks: FakeProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedLLM([Turn(text="hello through the tunnel")]) as llm:
        monkeypatch.setenv("WEBLENS_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("WEBLENS_LLM_MODEL", "scripted-model")
        result = runner.invoke(app, ["chat", "hi"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("hello through the tunnel")
    assert socks.requests and all(r.kind == "socks5" for r in socks.requests)


def test_an_unreachable_socks_proxy_is_an_error_message_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeDuckDuckGo() as ddg:
        monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")  # nothing listens there
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", ddg.url())
        monkeypatch.setenv("WEBLENS_CACHE_ENABLED", "false")
        result = runner.invoke(app, ["search", "lantern festival", "--json"])
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "ImportError" not in result.output
    assert "proxy" in result.output.lower()
    assert ddg.requests == []
