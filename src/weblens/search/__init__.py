"""Web search over five providers with one result shape, usable without any tool::

    response = await weblens.search("lantern festival", max_results=5)
    response.provider, [r.url for r in response.results], response.failures

Errors are `WeblensError` subclasses: `RateLimitedError`, `NotConfiguredError`,
`ToolTimeoutError`, `UpstreamError`, `ToolValidationError`. Zero results is a
response with an empty `results` list, never an error.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import httpx

from weblens.cache import Cache
from weblens.config import Settings, get_settings
from weblens.search.models import (
    ProviderAnswer,
    ProviderFailure,
    SearchKind,
    SearchRequest,
    SearchResponse,
    SearchResult,
    make_request,
)
from weblens.search.providers import PROVIDERS, SearchProvider, is_configured
from weblens.search.router import ProviderChoice, SearchRouter

__all__ = [
    "PROVIDERS",
    "ProviderAnswer",
    "ProviderFailure",
    "SearchKind",
    "SearchProvider",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "SearchRouter",
    "is_configured",
    "router_for",
    "search",
]

_ROUTERS_KEPT = 8
_routers: dict[tuple[int, int], tuple[Settings, httpx.AsyncClient | None, SearchRouter]] = {}


def router_for(settings: Settings, client: httpx.AsyncClient | None = None) -> SearchRouter:
    """The router for these settings and client, kept so its breaker, rate limits and
    single-flight span calls."""
    key = (id(settings), id(client))
    kept = _routers.get(key)
    if kept is not None and kept[0] is settings and kept[1] is client:
        return kept[2]
    if len(_routers) >= _ROUTERS_KEPT:
        _routers.pop(next(iter(_routers)))
    router = SearchRouter(settings, client=client, cache=Cache(settings.cache_path, enabled=settings.cache.enabled))
    _routers[key] = (settings, client, router)
    return router


async def search(
    query: str,
    max_results: int = 5,
    *,
    provider: ProviderChoice = None,
    cache: bool = True,
    settings: Settings | None = None,
    client: httpx.AsyncClient | None = None,
    kind: SearchKind = "search",
    country: str | None = None,
    locale: str | None = None,
    router: SearchRouter | None = None,
) -> SearchResponse:
    """Search the web. `provider` forces one provider (or an order); `cache=False` asks upstream.

    Without `settings`, settings are read once per process (pass `settings=` to change them).
    """
    request = make_request(query=query, max_results=max_results, kind=kind, country=country, locale=locale)
    if router is None:
        router = router_for(settings or _default_settings(), client)
    return await router.search(request, provider=provider, use_cache=cache)


_default: list[Settings] = []


def _default_settings() -> Settings:
    if not _default:
        _default.append(get_settings())
    return _default[0]


class _CallableModule(types.ModuleType):
    """Lets `weblens.search(...)` call `search` while `weblens.search.providers` stays a package."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
