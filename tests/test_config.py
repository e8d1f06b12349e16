"""Settings precedence (environment > .env > config file > defaults), names, and secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from weblens import NotConfiguredError
from weblens.config import Settings, TavilyWebSearchConfig, WebSearchConfig, describe, get_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_are_keyless_and_local() -> None:
    s = get_settings()
    assert s.server.host == "127.0.0.1" and s.server.port == 8765
    assert s.brave.base_url == "https://api.search.brave.com"
    assert s.duckduckgo.base_url == "https://html.duckduckgo.com"
    assert s.tavily.api_key is None and s.search.provider == []
    assert s.fetch.allow_private is False and s.fetch.max_bytes == 10 * 1024 * 1024
    assert s.mcp.tools == ["web_search", "web_fetch", "get_weather"]


def test_environment_beats_file_beats_default(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env / "weblens.toml", "[brave]\ntimeout = 5\nbase_url = 'http://file'\n[server]\nport = 9000\n")
    monkeypatch.setenv("WEBLENS_BRAVE_BASE_URL", "http://env")
    s = get_settings()
    assert s.brave.base_url == "http://env"  # environment
    assert s.brave.timeout == 5  # file
    assert s.server.port == 9000  # file
    assert s.server.host == "127.0.0.1"  # default
    origins = {key: source for key, _, source in describe(s)}
    assert origins["brave.base_url"] == "environment"
    assert origins["brave.timeout"] == "weblens.toml"
    assert origins["server.host"] == "default"


def test_dotenv_sits_between_environment_and_file(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env / "weblens.toml", "[llm]\nmodel = 'from-file'\nbase_url = 'http://file'\n")
    write(isolated_env / ".env", "WEBLENS_LLM_MODEL=from-dotenv\nSERPER_API_KEY=serper-dotenv\n")
    assert get_settings().llm.model == "from-dotenv"
    assert get_settings().serper.api_key.get_secret_value() == "serper-dotenv"  # type: ignore[union-attr]
    monkeypatch.setenv("WEBLENS_LLM_MODEL", "from-env")
    assert get_settings().llm.model == "from-env"
    assert get_settings().llm.base_url == "http://file"


def test_config_file_locations(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env / "xdg-config" / "weblens" / "config.toml", "[server]\nport = 1111\n")
    assert get_settings().server.port == 1111
    write(isolated_env / "weblens.toml", "[server]\nport = 2222\n")
    assert get_settings().server.port == 2222
    explicit = write(isolated_env / "elsewhere.toml", "[server]\nport = 3333\n")
    monkeypatch.setenv("WEBLENS_CONFIG", str(explicit))
    assert get_settings().server.port == 3333
    monkeypatch.setenv("WEBLENS_CONFIG", str(isolated_env / "missing.toml"))
    with pytest.raises(NotConfiguredError, match="does not exist"):
        get_settings()


def test_variable_names_follow_the_design_table(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "WEBLENS_TAVILY_BASE_URL": "http://t",
        "WEBLENS_SEARXNG_BASE_URL": "http://sx",
        "WEBLENS_DUCKDUCKGO_BASE_URL": "http://d",
        "WEBLENS_FIRECRAWL_BASE_URL": "http://f",
        "WEBLENS_WEATHER_GEOCODING_BASE_URL": "http://g",
        "WEBLENS_WEATHER_FORECAST_BASE_URL": "http://w",
        "WEBLENS_SEARCH_PROVIDER": "brave, duckduckgo",
        "WEBLENS_FETCH_ALLOW_PRIVATE": "true",
        "WEBLENS_FETCH_ALLOWED_HOSTS": "intranet.local,127.0.0.1:8080",
        "WEBLENS_DATA_DIR": "/tmp/weblens-data",
        "WEBLENS_LLM_BASE_URL": "http://llm/v1",
        "WEBLENS_LLM_API_KEY": "llm-secret",
        "WEBLENS_LLM_MODEL": "qwen",
        "WEBLENS_MCP_TOKEN": "mcp-secret",
        "WEBLENS_SERVER_HOST": "0.0.0.0",
        "WEBLENS_SERVER_PORT": "9999",
        "TAVILY_API_KEY": "tvly-1",
        "BRAVE_API_KEY": "brave-1",
        "SERPER_API_KEY": "serper-1",
        "FIRECRAWL_API_KEY": "fc-1",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s = get_settings()
    assert (s.tavily.base_url, s.searxng.base_url, s.duckduckgo.base_url, s.firecrawl.base_url) == (
        "http://t",
        "http://sx",
        "http://d",
        "http://f",
    )
    assert (s.weather.geocoding_base_url, s.weather.forecast_base_url) == ("http://g", "http://w")
    assert s.search.provider == ["brave", "duckduckgo"]
    assert s.fetch.allow_private is True and s.fetch.allowed_hosts == ["intranet.local", "127.0.0.1:8080"]
    assert s.data_dir == Path("/tmp/weblens-data") and s.cache_path == Path("/tmp/weblens-data/cache.sqlite3")
    assert (s.llm.base_url, s.llm.model, s.server.host, s.server.port) == ("http://llm/v1", "qwen", "0.0.0.0", 9999)
    secrets = [s.llm.api_key, s.mcp.token, s.tavily.api_key, s.brave.api_key, s.serper.api_key, s.firecrawl.api_key]
    assert [x.get_secret_value() for x in secrets if x] == [
        "llm-secret",
        "mcp-secret",
        "tvly-1",
        "brave-1",
        "serper-1",
        "fc-1",
    ]


def test_seed_000_section_without_tavily_still_loads(isolated_env: Path) -> None:
    write(isolated_env / "weblens.toml", "[web_search]\napi_key = 'brave-from-old-file'\n")
    s = get_settings()
    assert isinstance(s.web_search, WebSearchConfig) and s.web_search.tavily is None
    assert s.brave.api_key.get_secret_value() == "brave-from-old-file"  # type: ignore[union-attr]
    assert s.tavily.api_key is None


def test_seed_000_tavily_subsection(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env / "weblens.toml", "[web_search]\napi_key = 'b'\n[web_search.tavily]\napi_key = 'tvly-file'\n")
    s = get_settings()
    assert isinstance(s.web_search.tavily, TavilyWebSearchConfig)
    assert s.tavily.api_key.get_secret_value() == "tvly-file"  # type: ignore[union-attr]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-env")  # seed 000 §3: the environment comes first
    assert get_settings().tavily.api_key.get_secret_value() == "tvly-env"  # type: ignore[union-attr]


def test_missing_setting_names_the_variable_and_the_config_key() -> None:
    with pytest.raises(NotConfiguredError) as info:
        get_settings().require("tavily", "api_key")
    message = info.value.message
    assert "TAVILY_API_KEY" in message and "`api_key` under [tavily]" in message and "weblens.toml" in message
    with pytest.raises(NotConfiguredError, match="WEBLENS_LLM_MODEL"):
        get_settings().require("llm", "model")


def test_invalid_values_are_reported_with_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("WEBLENS_SERVER_PORT", "not-a-port")
    with pytest.raises(ValidationError, match=r"server\.port"):
        Settings()


def test_secrets_are_masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-super-secret")
    s = get_settings()
    assert "brave-super-secret" not in repr(s) and "brave-super-secret" not in str(s.model_dump())
    rows = {key: value for key, value, _ in describe(s)}
    assert rows["brave.api_key"] == "***"
    assert "brave-super-secret" not in str(describe(s))


def test_config_says_when_a_key_came_from_the_seed_000_section(isolated_env: Path) -> None:
    write(isolated_env / "weblens.toml", "[web_search]\napi_key = 'b'\n[web_search.tavily]\napi_key = 't'\n")
    origins = {key: source for key, _, source in describe(get_settings())}
    assert origins["brave.api_key"] == "weblens.toml [web_search]"
    assert origins["tavily.api_key"] == "weblens.toml [web_search]"
