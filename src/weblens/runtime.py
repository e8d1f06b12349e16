"""What built-in tools are made from: settings, the cache and the HTTP client, passed in."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from weblens.cache import Cache
from weblens.config import Settings, get_settings
from weblens.net import shared_client

__all__ = ["Runtime"]


@dataclass
class Runtime:
    """The dependencies tool factories receive. Tests build one pointed at fake servers."""

    settings: Settings
    cache: Cache
    client: httpx.AsyncClient | None = None
    """An explicit client; None uses the process's pooled client for the running loop."""
    extras: dict[str, object] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, client: httpx.AsyncClient | None = None) -> Runtime:
        settings = settings or get_settings()
        cache = Cache(settings.cache_path, enabled=settings.cache.enabled)
        return cls(settings=settings, cache=cache, client=client)

    @property
    def http(self) -> httpx.AsyncClient:
        return self.client if self.client is not None else shared_client()
