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
from collections.abc import Sequence
from typing import Any

import httpx

from weblens.config import Settings, get_settings
from weblens.loops import loop_local
from weblens.policy.domains import DomainPolicy
from weblens.search.models import (
    ProviderAnswer,
    ProviderFailure,
    Rank,
    SafeSearch,
    SearchKind,
    SearchRequest,
    SearchResponse,
    SearchResult,
    TimeRange,
    make_request,
)
from weblens.search.providers import PROVIDERS, SearchProvider, is_configured
from weblens.search.router import ProviderChoice, SearchRouter

__all__ = [
    "PROVIDERS",
    "ProviderAnswer",
    "ProviderFailure",
    "Rank",
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
    providers: ProviderChoice = None,
    cache: bool = True,
    settings: Settings | None = None,
    client: httpx.AsyncClient | None = None,
    kind: SearchKind = "search",
    country: str | None = None,
    language: str | None = None,
    locale: str | None = None,
    include_domains: Sequence[str] = (),
    exclude_domains: Sequence[str] = (),
    time_range: TimeRange | None = None,
    safesearch: SafeSearch | None = None,
    policy: DomainPolicy | None = None,
    router: SearchRouter | None = None,
) -> SearchResponse:
    """Search the web. `provider` forces one provider (or an order to fall back along);
    `providers` asks several at once and fuses their results (`"all"`: every configured one);
    `cache=False` asks upstream.

    `include_domains`/`exclude_domains` (subdomains included), `time_range` (day, week,
    month, year), `country` (ISO 3166-1, e.g. "DE"), `language` (e.g. "de"; `locale` is its
    older name) and `safesearch` (off, moderate, strict) are mapped onto each provider's
    own parameters, and domains are filtered locally where a provider has none; the
    response's `applied` says which were applied how. `policy` narrows the configured
    domain policy for this call; nothing widens it.

    Without `router`, `settings` or `client`, calls in one event loop share one router (built
    from the environment and config file on first use, closed when the loop shuts down), so
    `asyncio.gather(*(search(q) for q in queries))` shares its connections, rate limits,
    breaker and in-flight work. Pass `router=runtime.router` (a `weblens.Runtime`) to decide
    yourself; with `settings` or `client` this call builds a router and closes it afterwards.
    """
    request = make_request(
        query=query,
        max_results=max_results,
        kind=kind,
        country=country,
        language=language or locale,
        include_domains=include_domains,
        exclude_domains=exclude_domains,
        time_range=time_range,
        safesearch=safesearch,
    )
    options: dict[str, Any] = {"provider": provider, "providers": providers, "policy": policy, "use_cache": cache}
    if router is None and settings is None and client is None:
        router = loop_local("search.router", lambda: SearchRouter.from_settings(get_settings()))
    if router is not None:
        return await router.search(request, **options)
    async with SearchRouter.from_settings(settings or get_settings(), client=client) as own:
        return await own.search(request, **options)


class _CallableModule(types.ModuleType):
    """Lets `weblens.search(...)` call `search` while `weblens.search.providers` stays a package."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
