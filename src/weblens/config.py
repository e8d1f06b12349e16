"""Settings: environment (and `.env`) > config file > defaults. The only place weblens
reads the environment.

Variables are `WEBLENS_<SECTION>_<KEY>` (e.g. `WEBLENS_FETCH_ALLOW_PRIVATE`); provider
keys also use their usual names (`TAVILY_API_KEY`, `BRAVE_API_KEY`, ...). The config
file is `$WEBLENS_CONFIG`, else `./weblens.toml`, else `$XDG_CONFIG_HOME/weblens/config.toml`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit

from dotenv import dotenv_values
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, SecretStr, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from weblens.config_file import ConfigFileSource
from weblens.errors import NotConfiguredError
from weblens.placeholders import is_placeholder
from weblens.policy.domains import DomainPolicy, normalise_domain
from weblens.redact import MASK, mask_url, register_secret, register_url_secrets

__all__ = [
    "BraveConfig",
    "BrowserConfig",
    "CacheConfig",
    "DuckDuckGoConfig",
    "FetchConfig",
    "FirecrawlConfig",
    "LlmConfig",
    "McpConfig",
    "PolicyConfig",
    "ProviderConfig",
    "SearchConfig",
    "SearxngConfig",
    "SerperConfig",
    "ServerConfig",
    "Settings",
    "TavilyConfig",
    "TavilyWebSearchConfig",
    "WeatherConfig",
    "WebSearchConfig",
    "config_file_path",
    "describe",
    "env_name",
    "get_settings",
    "setting_hint",
    "split_keys",
]

ENV_PREFIX = "WEBLENS_"
PROVIDER_KEY_ENV = {
    "tavily": "TAVILY_API_KEY",
    "brave": "BRAVE_API_KEY",
    "serper": "SERPER_API_KEY",
    "firecrawl": "FIRECRAWL_API_KEY",
}
MIB = 1024 * 1024


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


CommaList = Annotated[list[str], NoDecode, BeforeValidator(_split_commas)]


def _join_keys(value: Any) -> Any:
    """A TOML list of keys becomes the same comma-separated value `BRAVE_API_KEY=k1,k2` gives."""
    if isinstance(value, list | tuple):
        return ",".join(str(part).strip() for part in value if str(part).strip()) or None
    return value


def split_keys(value: SecretStr | None) -> list[str]:
    """The keys of a pool written as `k1,k2` (a single key is a pool of one)."""
    if value is None:
        return []
    return list(dict.fromkeys(part.strip() for part in value.get_secret_value().split(",") if part.strip()))


DEFAULT_MAX_USES = {"web_search": 10, "web_fetch": 10, "WebFetch": 10, "firecrawl": 10}
"""Calls per tool per agent answer unless `[agent] max_uses` says otherwise."""

RATE_MARGIN_MS = 50.0
"""Added to each rate-limit spacing; bench/fleet.py measures what three replicas need."""


def _parse_limits(value: Any, *, lower: bool = True) -> Any:
    """`brave=100, tavily=50` (environment) or a table (TOML) to {name: number}."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        return json.loads(value)
    if isinstance(value, str):
        limits: dict[str, str] = {}
        for part in value.split(","):
            if not part.strip():
                continue
            name, sep, number = part.partition("=")
            if not sep:
                raise ValueError(f"expected name=number, got {part.strip()!r}")
            limits[name.strip().lower() if lower else name.strip()] = number.strip()
        return limits
    return value


def _parse_uses(value: Any) -> Any:
    """Like `_parse_limits`, but tool names keep their case (`WebFetch` is not `webfetch`)."""
    return _parse_limits(value, lower=False)


def _domains(value: list[str]) -> list[str]:
    return sorted({normalise_domain(domain) for domain in value})


Domains = Annotated[CommaList, AfterValidator(_domains)]


class ProviderConfig(BaseModel):
    """An upstream API: its root URL (documented paths are appended), key(s) and timeout."""

    api_key: Annotated[SecretStr | None, BeforeValidator(_join_keys)] = Field(
        default=None, description="one key, or a pool: `k1,k2` (or a TOML list)"
    )
    base_url: str = ""
    timeout: float = Field(default=15.0, gt=0, description="seconds for one request")

    def keys(self) -> list[str]:
        return split_keys(self.api_key)


class TavilyConfig(ProviderConfig):
    base_url: str = "https://api.tavily.com"


class BraveConfig(ProviderConfig):
    base_url: str = "https://api.search.brave.com"
    requests_per_second: float = Field(default=1.0, gt=0, description="the free tier allows 1 request/s")


class SerperConfig(ProviderConfig):
    base_url: str = "https://google.serper.dev"


class SearxngConfig(ProviderConfig):
    base_url: str = ""


class DuckDuckGoConfig(ProviderConfig):
    base_url: str = "https://html.duckduckgo.com"
    requests_per_second: float = Field(default=1.0, gt=0)


class FirecrawlConfig(ProviderConfig):
    base_url: str = "https://api.firecrawl.dev"
    timeout: float = Field(default=60.0, gt=0)


class WeatherConfig(BaseModel):
    geocoding_base_url: str = "https://geocoding-api.open-meteo.com"
    forecast_base_url: str = "https://api.open-meteo.com"
    timeout: float = Field(default=10.0, gt=0)


class TavilyWebSearchConfig(BaseModel):
    """Seed 000: Tavily settings beside Brave's; when present, search uses Tavily."""

    api_key: SecretStr | None = Field(default=None, description="Tavily API key")


class WebSearchConfig(BaseModel):
    """Seed 000's `[web_search]` section: Brave fields, plus optional `tavily`.

    When `tavily` is set, search uses Tavily instead of Brave. An old file without
    `tavily` loads as before. Values here are used when the `[brave]`/`[tavily]`
    sections and the environment leave them unset.
    """

    api_key: SecretStr | None = Field(default=None, description="Brave Search API key")
    base_url: str | None = None
    tavily: TavilyWebSearchConfig | None = Field(
        default=None, description="when set, Tavily is used instead of Brave Search"
    )


class SearchConfig(BaseModel):
    provider: CommaList = Field(default_factory=list, description="one provider or an order; empty means automatic")
    cache_ttl_s: float = Field(default=3600.0, ge=0)
    breaker_failures: int = Field(default=3, ge=1, description="failures in a row before a cool-down")
    breaker_cooldown_s: float = Field(default=60.0, ge=0)
    max_retry_after_s: float = Field(default=10.0, ge=0, description="longest Retry-After we wait out")
    rate_margin_ms: float = Field(
        default=RATE_MARGIN_MS,
        ge=0,
        le=10_000,
        description="added to each provider's request spacing (at most a tenth of it), with departures recorded; "
        "0: exactly at the limit",
    )
    key_cooldown_s: float = Field(
        default=300.0, ge=0, description="how long a key refused with 401/403 stays out of its pool"
    )
    key_quota_cooldown_s: float = Field(
        default=3600.0, ge=0, description="how long a key at its quota stays out when the provider names no reset"
    )

    @property
    def rate_margin_s(self) -> float:
        return self.rate_margin_ms / 1000


class PolicyConfig(BaseModel):
    """The operator's policy for this process; a caller may narrow it, never widen it."""

    allow_domains: Domains = Field(
        default_factory=list, description="only these domains (and their subdomains); empty: any"
    )
    block_domains: Domains = Field(default_factory=list, description="never these domains (nor their subdomains)")
    daily_requests: Annotated[dict[str, int], NoDecode, BeforeValidator(_parse_limits)] = Field(
        default_factory=dict, description="requests per UTC day per search provider, e.g. brave=100"
    )

    def domains(self) -> DomainPolicy:
        """The domain policy these settings describe."""
        return DomainPolicy.of(self.allow_domains or None, self.block_domains)

    @field_validator("daily_requests")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [name for name, limit in value.items() if limit < 0]
        if bad:
            raise ValueError(f"daily_requests for {bad[0]} must not be negative")
        return value


class FetchConfig(BaseModel):
    allow_private: bool = False
    allowed_hosts: CommaList = Field(default_factory=list)
    user_agent: str = "weblens/0.1 (+https://github.com/weblens/weblens)"
    proxy: str | None = None
    timeout: float = Field(default=30.0, gt=0, description="ceiling for a whole fetch, seconds")
    connect_timeout: float = Field(default=10.0, gt=0)
    max_bytes: int = Field(default=10 * MIB, gt=0)
    max_redirects: int = Field(default=5, ge=0)
    max_length: int = Field(default=20_000, gt=0, description="characters per page of output")
    query_max_tokens: int = Field(default=2_000, gt=0, description="token budget of a query's passages by default")
    respect_robots: bool = False
    cache_ttl_s: float = Field(
        default=900.0,
        ge=0,
        description="seconds a fetched document is served from the cache; 0 = always download (a copy is still "
        "kept stale_ttl_s, for stale_if_error and reading on)",
    )
    workers: int | None = Field(
        default=None, ge=0, le=256, description="processes reading pages; default one per core, 0 = in a thread"
    )
    extract_timeout: float = Field(
        default=10.0, gt=0, description="hard deadline, seconds, to read one downloaded page (its worker is killed)"
    )
    worker_memory_mb: int | None = Field(
        default=None,
        ge=0,
        description="memory a worker may allocate reading one page, MB; past it the page is too_large. "
        "Default: half the machine's memory shared by the workers (256-2048 MB each); 0 = no limit",
    )
    in_process_bytes: int | None = Field(
        default=None,
        ge=0,
        description="HTML, text and JSON pages up to this size are read in this process, not a worker, one at a "
        "time (a page that comes meanwhile goes to a worker); default 0, and 512 KiB for a one-shot `weblens "
        "fetch` (starting workers costs more than reading a small page); documents, PDFs and images always go "
        "to a worker",
    )
    # freshness (issue 23): a fetch's max_age and stale_if_error
    stale_ttl_s: float = Field(
        default=86_400.0,
        ge=0,
        description="seconds a document is kept past cache_ttl_s, to be served marked stale when its origin "
        "fails and the call asked for stale_if_error, and to read its later pages from; 0 = not kept",
    )
    render_timeout: float = Field(
        default=20.0, gt=0, description="hard deadline, seconds, of one browser render (its context is torn down)"
    )


class BrowserConfig(BaseModel):
    """The rendering tier (`weblens.browser`): which browser, and how much of the machine it may hold."""

    path: str | None = Field(default=None, description="Chromium executable; default Playwright's, then the system's")
    endpoint: str | None = Field(
        default=None, description="ws:// Playwright server or http(s):// CDP endpoint of a remote browser"
    )
    proxy_host: str = Field(
        default="127.0.0.1", description="where the guard proxy listens; a remote browser must reach it here"
    )
    concurrency: int | None = Field(default=None, ge=1, le=64, description="pages at once; default two per core")
    max_pages: int = Field(default=200, ge=1, description="a browser is replaced after this many pages")
    max_rss_mb: int = Field(default=1024, ge=64, description="a browser above this (all its processes) is replaced")
    idle_s: float = Field(default=60.0, gt=0, description="a browser idle this long is shut down")
    heap_mb: int = Field(default=256, ge=16, description="V8 heap cap of each page")
    max_screenshot_height: int = Field(default=8000, ge=100, description="full-page screenshots are cut here, px")


class CacheConfig(BaseModel):
    enabled: bool = True
    path: Path | None = Field(default=None, description="SQLite file; default <data_dir>/cache.sqlite3")


def _no_blank_secret(value: Any) -> Any:
    """An empty or whitespace-only secret (`WEBLENS_MCP_TOKEN=""`) is no secret: it must not pass for one."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if isinstance(value, str) and not value.strip():
        return None
    return value


class McpConfig(BaseModel):
    token: Annotated[SecretStr | None, BeforeValidator(_no_blank_secret)] = Field(
        default=None, description="bearer token for /mcp and the chat API; empty means none"
    )
    port: int = Field(
        default=8766, ge=0, le=65535, description="`weblens mcp --transport http`; `weblens serve` uses server.port"
    )
    tools: CommaList = Field(default_factory=lambda: ["web_search", "web_fetch", "get_weather"])
    max_body_bytes: int = Field(default=1 * MIB, gt=0)
    allowed_origins: CommaList = Field(default_factory=list)


class LlmConfig(BaseModel):
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    max_steps: int = Field(default=3, ge=1)
    timeout: float = Field(default=120.0, gt=0)
    tools: CommaList = Field(default_factory=lambda: ["get_weather", "web_search", "web_fetch"])


def _provenance_mode(value: Any) -> Any:
    """`true`/`false` (the setting was a switch before it had modes) mean `links`/`off`."""
    if isinstance(value, bool):
        return "links" if value else "off"
    if isinstance(value, str):
        lowered = value.strip().lower()
        return {"true": "links", "1": "links", "yes": "links", "on": "links", "false": "off", "0": "off",
                "no": "off"}.get(lowered, lowered)  # fmt: skip
    return value


class AgentConfig(BaseModel):
    """Limits and guarantees of one agent run (an answer); MCP clients are not affected."""

    max_uses: Annotated[dict[str, int], NoDecode, BeforeValidator(_parse_uses)] = Field(
        default_factory=lambda: dict(DEFAULT_MAX_USES),
        description="calls per tool per answer, e.g. web_fetch=10,web_search=5; unlisted tools: no limit",
    )
    max_calls_per_step: int = Field(
        default=8, ge=1, description="tool calls run per model step; the model is told about the ones beyond"
    )
    url_provenance: Annotated[Literal["off", "links", "sources"], BeforeValidator(_provenance_mode)] = Field(
        default="links",
        description=(
            "which URLs tools may fetch inside an answer: links = the user's and any URL in an earlier tool "
            "result; sources = the user's and the sources tools returned (search results, fetched pages' final "
            "URLs), not links inside page text; off = any URL"
        ),
    )

    @field_validator("max_uses")
    @classmethod
    def _not_negative(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [name for name, limit in value.items() if limit < 0]
        if bad:
            raise ValueError(f"max_uses for {bad[0]} must not be negative")
        return value


class ServerConfig(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    sessions_path: Path | None = Field(default=None, description="default <data_dir>/sessions.sqlite3")
    max_message_chars: int = Field(default=32_000, gt=0)
    header_timeout_s: float = Field(
        default=10.0, gt=0, description="a client must send its request line and headers within this, or is dropped"
    )
    body_timeout_s: float = Field(
        default=30.0, gt=0, description="a request body must arrive within this after its headers (else 408)"
    )
    max_connections: int = Field(
        default=1000, gt=0, description="open client connections; lowered to fit the open-file limit"
    )
    pending_max_messages: int = Field(
        default=1_000, gt=0, description="chat messages kept in memory while storage fails; past it one is lost"
    )
    pending_max_mb: float = Field(
        default=64.0, gt=0, description="MB of chat messages kept in memory while storage fails; past it one is lost"
    )


class CrawlConfig(BaseModel):
    """Crawl jobs (`POST /api/crawls`, `weblens crawl --job`): bigger than one `web_crawl` call."""

    job_max_pages: int = Field(
        default=5_000, ge=1, le=1_000_000, description="the most pages one crawl job may ask for (the operator's cap)"
    )
    job_path: Path | None = Field(
        default=None, description="SQLite file of crawl jobs; default <data_dir>/crawls.sqlite3"
    )
    job_lease_s: float = Field(
        default=120.0, gt=0, description="with Redis: a page a replica took is given to another after this (it died)"
    )
    job_keep_days: float = Field(
        default=7.0, gt=0, le=3650, description="days a finished, cancelled or failed crawl job is kept, then removed"
    )


def _postgres_url(value: SecretStr | None) -> SecretStr | None:
    """Empty is unset; anything else must be a postgresql:// URL (its password is a secret)."""
    if value is None or not value.get_secret_value().strip():
        return None
    url = value.get_secret_value().strip()
    if not url.startswith(("postgresql://", "postgres://")):
        raise ValueError("WEBLENS_DATABASE_URL must start with postgresql:// (sessions in PostgreSQL)")
    password = urlsplit(url).password
    if password:
        register_secret(unquote(password))
        register_secret(password)
    return SecretStr(url)


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "weblens"


def config_file_path() -> Path | None:
    """The config file in force: $WEBLENS_CONFIG, ./weblens.toml, or the XDG one."""
    explicit = os.environ.get("WEBLENS_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    local = Path("weblens.toml")
    if local.is_file():
        return local
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    candidate = Path(xdg) / "weblens" / "config.toml"
    return candidate if candidate.is_file() else None


class _ProviderKeys(PydanticBaseSettingsSource):
    """Provider keys under their usual names (TAVILY_API_KEY, ...), from the environment or `.env`."""

    def __init__(self, settings_cls: type[BaseSettings], values: Mapping[str, str | None]) -> None:
        super().__init__(settings_cls)
        self._values = values

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for section, name in PROVIDER_KEY_ENV.items():
            value = self._values.get(name)
            if value:
                found[section] = {"api_key": value}
        return found


def _dotenv() -> dict[str, str | None]:
    return dict(dotenv_values(".env")) if Path(".env").is_file() else {}


class Settings(BaseSettings):
    """Every weblens setting. Build with `get_settings()` or `Settings()`."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="_",
        env_nested_max_split=1,
        env_file=".env",
        extra="ignore",
        nested_model_default_partial_update=True,
    )

    data_dir: Path = Field(default_factory=_default_data_dir)
    redis_url: SecretStr | None = Field(
        default=None,
        description="redis://[:password@]host:port/db shared by a fleet: cache, rate limits, breakers, single-flight",
    )
    database_url: Annotated[SecretStr | None, AfterValidator(_postgres_url)] = Field(
        default=None, description="postgresql://user:password@host:port/db: sessions shared by a fleet; default SQLite"
    )
    tavily: TavilyConfig = Field(default_factory=TavilyConfig)
    brave: BraveConfig = Field(default_factory=BraveConfig)
    serper: SerperConfig = Field(default_factory=SerperConfig)
    searxng: SearxngConfig = Field(default_factory=SearxngConfig)
    duckduckgo: DuckDuckGoConfig = Field(default_factory=DuckDuckGoConfig)
    firecrawl: FirecrawlConfig = Field(default_factory=FirecrawlConfig)
    weather: WeatherConfig = Field(default_factory=WeatherConfig)
    web_search: WebSearchConfig = Field(default_factory=WebSearchConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    fetch: FetchConfig = Field(default_factory=FetchConfig)
    browser: BrowserConfig = Field(default_factory=BrowserConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    llm: LlmConfig = Field(default_factory=LlmConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    crawl: CrawlConfig = Field(default_factory=CrawlConfig)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return tuple(source for _, source in _named_sources(settings_cls, init_settings))

    @field_validator("redis_url", mode="after")
    @classmethod
    def _check_redis_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        parts = urlsplit(value.get_secret_value().strip())
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError("expected redis://[:password@]host:port/db, rediss://… or unix://… (WEBLENS_REDIS_URL)")
        if parts.password:
            register_secret(parts.password)  # the password alone is a secret too, wherever it shows up
        return SecretStr(value.get_secret_value().strip())

    @model_validator(mode="after")
    def _apply_seed_000_section(self) -> Settings:
        _drop_placeholders(self)
        legacy = self.web_search
        if legacy.api_key is not None and self.brave.api_key is None:
            self.brave.api_key = legacy.api_key
        if legacy.base_url and "base_url" not in self.brave.model_fields_set:
            self.brave.base_url = legacy.base_url
        if legacy.tavily is not None and legacy.tavily.api_key is not None and self.tavily.api_key is None:
            self.tavily.api_key = legacy.tavily.api_key
        for _, value in _leaves(self.model_dump()):
            if isinstance(value, SecretStr):
                register_secret(value.get_secret_value())
                for key in split_keys(value):  # each key of a pool is a secret of its own
                    register_secret(key)
            elif isinstance(value, str):  # a password in a URL setting (llm.base_url, fetch.proxy, ...)
                register_url_secrets(value)
        return self

    @property
    def cache_path(self) -> Path:
        return self.cache.path or self.data_dir / "cache.sqlite3"

    @property
    def sessions_path(self) -> Path:
        return self.server.sessions_path or self.data_dir / "sessions.sqlite3"

    @property
    def crawl_jobs_path(self) -> Path:
        return self.crawl.job_path or self.data_dir / "crawls.sqlite3"

    def require(self, section: str, key: str) -> Any:
        """The value of `[section] key`, or `NotConfiguredError` saying how to set it."""
        value = getattr(getattr(self, section), key)
        if value is None or value == "":
            raise NotConfiguredError(f"{section}.{key} is not set: {setting_hint(section, key)}")
        return value.get_secret_value() if isinstance(value, SecretStr) else value


def _drop_placeholders(model: BaseModel, path: tuple[str, ...] = ()) -> None:
    """A key copied from the docs (`...`, `<your key>`, `sk-…`) is unset, with a warning naming it."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            _drop_placeholders(value, (*path, name))
        elif isinstance(value, SecretStr) and is_placeholder(value.get_secret_value()) and path:
            setattr(model, name, None)
            where = f"[{'.'.join(path)}] {name}"
            where = f"{env_name(path[0], name)} ({where})" if len(path) == 1 else where
            logging.getLogger("weblens.config").warning(
                "%s looks like a placeholder copied from an example, not a real value: treated as unset", where
            )


def _named_sources(
    settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource | None = None
) -> Iterator[tuple[str, PydanticBaseSettingsSource]]:
    """The sources in priority order, named for `weblens config`."""
    from pydantic_settings import DotEnvSettingsSource, EnvSettingsSource

    if init_settings is not None:
        yield "argument", init_settings
    yield "environment", EnvSettingsSource(settings_cls)
    yield "environment", _ProviderKeys(settings_cls, os.environ)
    yield ".env", DotEnvSettingsSource(settings_cls)
    yield ".env", _ProviderKeys(settings_cls, _dotenv())
    path = config_file_path()
    if path is not None:
        if path.is_dir():
            raise NotConfiguredError(
                f"config file {path} (from WEBLENS_CONFIG) is a directory: name the file in it, "
                f"e.g. {path / 'weblens.toml'}"
            )
        if not path.is_file():
            raise NotConfiguredError(f"config file {path} (from WEBLENS_CONFIG) does not exist")
        yield str(path), ConfigFileSource(settings_cls, path)


_SEED_000_ALIASES = {
    "brave.api_key": "web_search.api_key",
    "brave.base_url": "web_search.base_url",
    "tavily.api_key": "web_search.tavily.api_key",
}


def _leaves(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in data.items():
        if isinstance(value, Mapping):
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def describe(settings: Settings) -> list[tuple[str, str, str]]:
    """(key, value with secrets and URL passwords masked, where it came from) for every setting."""
    origins: dict[str, str] = {}
    for name, source in _named_sources(Settings):
        for key, _ in _leaves(source()):
            origins.setdefault(key, name)
    for derived, legacy in _SEED_000_ALIASES.items():
        if derived not in origins and legacy in origins:
            origins[derived] = f"{origins[legacy]} [web_search]"
    rows = []
    for key, value in _leaves(settings.model_dump()):
        shown = MASK if isinstance(value, SecretStr) else ("" if value is None else mask_url(str(value)))
        rows.append((key, shown, origins.get(key, "default")))
    return rows


def env_name(section: str, key: str) -> str:
    """The environment variable for `[section] key`."""
    if key == "api_key" and section in PROVIDER_KEY_ENV:
        return PROVIDER_KEY_ENV[section]
    return f"{ENV_PREFIX}{section}_{key}".upper()


def setting_hint(section: str, key: str) -> str:
    """How to set a missing setting: the variable and the config-file key."""
    path = config_file_path() or Path("weblens.toml")
    return f"set the environment variable {env_name(section, key)} or `{key}` under [{section}] in {path}"


def get_settings(**overrides: Any) -> Settings:
    """Load settings from the environment, `.env` and the config file."""
    return Settings(**overrides)
