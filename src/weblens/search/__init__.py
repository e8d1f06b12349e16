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
    "search",
]

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

    Pass `router=runtime.router` (a `weblens.Runtime`) so that many searches share rate
    limits, the circuit breaker and in-flight work; without it this call builds a router
    from `settings` (default: the environment and config file) and closes it afterwards,
    like `httpx.get` next to a client.
    """
    request = make_request(query=query, max_results=max_results, kind=kind, country=country, locale=locale)
    if router is not None:
        return await router.search(request, provider=provider, use_cache=cache)
    async with SearchRouter.from_settings(settings or get_settings(), client=client) as own:
        return await own.search(request, provider=provider, use_cache=cache)


class _CallableModule(types.ModuleType):
    """Lets `weblens.search(...)` call `search` while `weblens.search.providers` stays a package."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
