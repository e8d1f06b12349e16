"""Shared fixtures: isolated settings (no user config, no real keys) and fake upstreams."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.redact import forget_secrets
from weblens.testing.postgres import INSTALL_HINT as POSTGRES_INSTALL_HINT
from weblens.testing.postgres import PostgresServer
from weblens.testing.providers import FakeDuckDuckGo
from weblens.testing.redis import INSTALL_HINT, RedisServer, redis_server_path

_WEBLENS_VARS = ("TAVILY_API_KEY", "BRAVE_API_KEY", "SERPER_API_KEY", "FIRECRAWL_API_KEY", "XDG_CONFIG_HOME")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Every test runs in an empty directory with no weblens settings from the machine."""
    import os

    for name in list(os.environ):
        if name.startswith("WEBLENS_") or name in _WEBLENS_VARS:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    forget_secrets()


@pytest.fixture
def ddg_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDuckDuckGo]:
    """A fake DuckDuckGo that the environment points weblens at (for the CLI and one-off calls)."""
    with FakeDuckDuckGo() as fake:
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_BASE_URL", fake.url())
        monkeypatch.setenv("WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND", "1000")
        yield fake


# -- fleet state: a real redis-server, started once per test session -----------------------


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server on a free loopback port (no persistence); skipped with how to install it."""
    if redis_server_path() is None:
        pytest.skip(INSTALL_HINT)
    with RedisServer() as server:
        yield server


@pytest.fixture
def own_redis_server() -> Iterator[RedisServer]:
    """A redis-server of this test's own, started (the test may stop and restart it); skipped like the shared one."""
    if redis_server_path() is None:
        pytest.skip(INSTALL_HINT)
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["local", "redis"])
def redis_url(request: pytest.FixtureRequest) -> str | None:
    """Each store test runs twice: local state (None) and a fresh, empty Redis (its URL)."""
    if request.param == "local":
        return None
    server: RedisServer = request.getfixturevalue("redis_server")
    server.flush()
    return server.url


# -- session-store backends: every store test runs on SQLite and on a real PostgreSQL ------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL for the whole test session (each test takes its own database)."""
    server = PostgresServer.find()
    if server is None:
        pytest.skip(POSTGRES_INSTALL_HINT)
    with server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """None for SQLite (the default), or the URL of a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return None
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.create_database()
