"""A page server per test, and settings that let fetches reach it (and only it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.testing.pages import PageServer


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


@pytest.fixture
def settings(pages: PageServer) -> Settings:
    return Settings(fetch={"allowed_hosts": [pages.host]})


@pytest.fixture
def cache() -> Cache:
    return Cache(None)
