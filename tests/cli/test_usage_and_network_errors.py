"""What a newcomer's mistakes and a machine without internet look like from the CLI: exit 2
for bad usage and bad settings, placeholder keys, settings files in other encodings, and
network errors that say what to do."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import weblens
from weblens.cli import app
from weblens.config import Settings
from weblens.errors import UpstreamError
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer
from weblens.testing.providers import FakeDuckDuckGo

from .conftest import WEBLENS

runner = CliRunner()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """The real `weblens` command, with this test's environment plus `env`."""
    return subprocess.run(
        [*WEBLENS, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=False
    )


# -- exit codes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["search", "q", "--provider", "bing"], "unknown search provider 'bing'"),
        (["search", ""], "validation_error"),
        (["search", "   "], "validation_error"),
    ],
)
def test_bad_usage_exits_2(args: list[str], said: str, ddg_env: FakeDuckDuckGo) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert said in result.output and ddg_env.count() == 0


def test_bad_units_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenMeteo() as meteo:
        monkeypatch.setenv("WEBLENS_WEATHER_GEOCODING_BASE_URL", meteo.url())
        monkeypatch.setenv("WEBLENS_WEATHER_FORECAST_BASE_URL", meteo.url())
        result = runner.invoke(app, ["weather", "Beijing", "--units", "kelvin"])
        assert result.exit_code == 2 and "validation_error" in result.output
        assert meteo.count() == 0


def test_a_bad_provider_setting_exits_2(ddg_env: FakeDuckDuckGo) -> None:
    result = cli(["search", "q"], WEBLENS_SEARCH_PROVIDER="bingo")
    assert result.returncode == 2, result.stderr
    assert "bingo" in result.stdout + result.stderr and "Traceback" not in result.stderr


# -- placeholder keys ----------------------------------------------------------------------


@pytest.mark.parametrize("placeholder", ["...", "<your key>", "YOUR_API_KEY", "changeme"])
def test_a_placeholder_key_is_unset_with_a_warning_naming_it(placeholder: str, ddg_env: FakeDuckDuckGo) -> None:
    result = cli(["search", "q", "--provider", "brave", "--json"], BRAVE_API_KEY=placeholder)
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["code"] == "not_configured"
    assert "BRAVE_API_KEY" in result.stderr and "placeholder" in result.stderr
    # with the placeholder unset, automatic choice skips Brave and DuckDuckGo answers
    fallback = cli(["search", "q", "--json"], BRAVE_API_KEY=placeholder, WEBLENS_LLM_API_KEY="sk-…")
    assert fallback.returncode == 0 and json.loads(fallback.stdout)["data"]["provider"] == "duckduckgo"
    assert "WEBLENS_LLM_API_KEY" in fallback.stderr


def test_a_real_looking_key_is_kept() -> None:
    settings = Settings(brave={"api_key": "BSAbc123xyz890"}, firecrawl={"api_key": "fc-x"}, llm={"api_key": "..."})
    assert settings.brave.api_key is not None and settings.firecrawl.api_key is not None
    assert settings.llm.api_key is None


# -- settings files --------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "latin-1"])
def test_a_settings_file_in_another_encoding_is_read(encoding: str, tmp_path: Path) -> None:
    path = tmp_path / "weblens.toml"
    path.write_text('# réglages\n[search]\nprovider = "searxng"\n[searxng]\nbase_url = "http://127.0.0.1:9"\n',
                    encoding=encoding)  # fmt: skip
    result = cli(["config", "--json"])
    assert result.returncode == 0, result.stderr
    rows = {row["key"]: row for row in json.loads(result.stdout)["settings"]}
    assert rows["search.provider"]["value"] == ["searxng"]
    if encoding != "utf-8-sig":
        assert "weblens.toml is saved as" in result.stderr and "save it as UTF-8" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreadable_settings_file_is_one_paragraph(tmp_path: Path) -> None:
    (tmp_path / "weblens.toml").write_bytes(b'[search]\nprovider = "\x81\x8d"\n')
    result = cli(["fetch", "example.com"])
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "weblens.toml is neither UTF-8" in result.stderr
    assert "Traceback" not in result.stderr


def test_weblens_config_naming_a_directory_says_so(tmp_path: Path) -> None:
    result = cli(["config"], WEBLENS_CONFIG=str(tmp_path))
    assert result.returncode == 2
    assert f"config file {tmp_path} (from WEBLENS_CONFIG) is a directory" in result.stderr


# -- network errors --------------------------------------------------------------------------


def test_a_refused_connection_says_what_to_do_and_how_long_it_took(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    result = runner.invoke(app, ["search", "lantern", "--json"])
    assert result.exit_code == 1
    envelope = json.loads(result.stdout)
    assert envelope["error"]["code"] == "upstream_error"
    assert "is the server running" in envelope["error"]["message"] and "HTTPS_PROXY" in envelope["error"]["message"]
    assert envelope["duration_ms"] > 0


async def test_a_name_that_does_not_resolve_says_no_dns_or_no_internet() -> None:
    async def no_dns(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(UpstreamError) as info:
        await weblens.fetch("https://pages.example/", settings=Settings(cache={"enabled": False}), resolver=no_dns)
    assert "no DNS or no internet from here?" in info.value.message and "HTTPS_PROXY" in info.value.message
    assert info.value.details["network"] == "dns"


async def test_a_proxy_that_does_not_answer_says_to_check_the_proxy() -> None:
    with PageServer() as pages:
        settings = Settings(
            fetch={"allowed_hosts": [pages.host], "proxy": f"http://127.0.0.1:{closed_port()}"},
            cache={"enabled": False},
        )
        with pytest.raises(UpstreamError) as info:
            await weblens.fetch(pages.url("/article"), settings=settings)
    assert info.value.details["network"] == "proxy" and "check the proxy" in info.value.message


# -- keyless search ------------------------------------------------------------------------------


def test_duckduckgos_bot_check_says_how_to_get_reliable_search(ddg_env: FakeDuckDuckGo) -> None:
    ddg_env.anomaly()
    result = runner.invoke(app, ["search", "lantern", "--json"])
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "rate_limited" and "this is not 'no results'" in error["message"]
    for way_out in ("BRAVE_API_KEY", "docker run", "searxng/searxng", "WEBLENS_SEARXNG_BASE_URL"):
        assert way_out in error["message"]


def test_a_search_that_reaches_no_provider_names_the_other_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    result = runner.invoke(app, ["search", "lantern", "--json"])
    message = json.loads(result.stdout)["error"]["message"]
    assert "or configure another search provider" in message and "TAVILY_API_KEY" in message
