"""A generated docs site per test, and a fetcher allowed to reach it (and only it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch.fetcher import Fetcher
from weblens.testing.sites import DocsSite


@pytest.fixture
async def site() -> AsyncIterator[DocsSite]:
    async with DocsSite(pages=20) as server:
        yield server  # type: ignore[misc]


def fetcher_for(*hosts: str, **fetch: object) -> Fetcher:
    settings = Settings(fetch={"allowed_hosts": list(hosts), "workers": 1, **fetch})
    return Fetcher(settings, cache=Cache(None))


@pytest.fixture
async def fetcher(site: DocsSite) -> AsyncIterator[Fetcher]:
    async with fetcher_for(site.host) as own:
        yield own
