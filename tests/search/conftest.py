"""Fake providers for the search tests, started once per test, and settings pointing at them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from weblens.config import Settings
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo, FakeSearxng, FakeSerper, FakeTavily, ProviderFake

F = TypeVar("F", bound=ProviderFake)
FAST = 1000.0
"""Client-side rate for tests that are not about rate limits (the defaults are 1 request/s)."""


def settings_for(*fakes: ProviderFake, **overrides: Any) -> Settings:
    """Settings aimed at these fakes only (others unconfigured), with fast client rates."""
    values: dict[str, Any] = {}
    for fake in fakes:
        values.update(fake.settings())
    for name in ("brave", "duckduckgo"):
        values.setdefault(name, {}).setdefault("requests_per_second", FAST)
    values["duckduckgo"].setdefault("base_url", "http://127.0.0.1:9")  # unreachable unless a fake is given
    values["cache"] = {"enabled": False}
    for key, value in overrides.items():
        if isinstance(value, dict):
            values.setdefault(key, {}).update(value)
        else:
            values[key] = value
    return Settings(**values)


@pytest.fixture
def make_settings() -> Callable[..., Settings]:
    return settings_for


def _shared(cls: type[F]) -> Callable[..., Iterator[F]]:
    """One server per session (starting one costs more than most tests); each test gets it reset."""

    @pytest.fixture(scope="session")
    def server() -> Iterator[F]:
        with cls() as fake:
            yield fake

    return server


_brave_server = _shared(FakeBrave)
_tavily_server = _shared(FakeTavily)
_serper_server = _shared(FakeSerper)
_searxng_server = _shared(FakeSearxng)
_ddg_server = _shared(FakeDuckDuckGo)


@pytest.fixture
def brave(_brave_server: FakeBrave) -> FakeBrave:
    _brave_server.reset()
    return _brave_server


@pytest.fixture
def tavily(_tavily_server: FakeTavily) -> FakeTavily:
    _tavily_server.reset()
    return _tavily_server


@pytest.fixture
def serper(_serper_server: FakeSerper) -> FakeSerper:
    _serper_server.reset()
    return _serper_server


@pytest.fixture
def searxng(_searxng_server: FakeSearxng) -> FakeSearxng:
    _searxng_server.reset()
    return _searxng_server


@pytest.fixture
def ddg(_ddg_server: FakeDuckDuckGo) -> FakeDuckDuckGo:
    _ddg_server.reset()
    return _ddg_server
