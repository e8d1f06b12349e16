"""Which provider answers: the configured order, fallback on failure, a breaker, the cache.

Order: an explicit `provider` argument, else `search.provider` from config, else the
seed 000 rule extended to all providers (Tavily, Brave, Serper, SearXNG, DuckDuckGo),
keeping only the configured ones. DuckDuckGo needs no key, so it is always last.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from weblens.cache import Cache, cache_key
from weblens.closing import AsyncClosing
from weblens.config import Settings, setting_hint
from weblens.errors import NotConfiguredError, ToolValidationError, WeblensError, error_class_for
from weblens.net import HttpSource, LazyClient
from weblens.net.ratelimit import RateLimiters
from weblens.search.breaker import CircuitBreaker
from weblens.search.limited import RateLimitedProvider
from weblens.search.models import ProviderFailure, SearchRequest, SearchResponse
from weblens.search.providers import PROVIDERS, SearchProvider, is_configured

__all__ = ["AUTOMATIC_ORDER", "CACHE_NAMESPACE", "SearchRouter", "resolve_names"]

AUTOMATIC_ORDER = ("tavily", "brave", "serper", "searxng", "duckduckgo")
CACHE_NAMESPACE = "search"
_PREFERRED_CODES = ("rate_limited", "timeout", "upstream_error", "not_configured", "not_found")
"""When several providers failed differently, the code reported: what the caller can act on first."""

ProviderChoice = str | Sequence[str] | None


def resolve_names(choice: ProviderChoice, *, source: str = "provider") -> list[str]:
    """Provider names from "brave", "brave,duckduckgo" or a list; unknown names are an error."""
    if choice is None:
        return []
    raw = choice.split(",") if isinstance(choice, str) else list(choice)
    names = [name.strip().lower() for name in raw if name.strip()]
    unknown = [name for name in names if name not in PROVIDERS]
    if unknown:
        message = f"unknown search provider {unknown[0]!r}; choose from {', '.join(sorted(PROVIDERS))}"
        if source == "config":
            raise NotConfiguredError(f"{message} ({setting_hint('search', 'provider')})")
        raise ToolValidationError(message, [{"field": "provider", "message": message, "type": "enum"}])
    return names


class SearchRouter(AsyncClosing):
    """Asks providers in order until one answers; remembers answers; skips failing providers.

    A `Runtime` builds one and passes in the parts it shares (client, cache, limiters);
    `SearchRouter.from_settings` builds one that owns its own, closed by `aclose()`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        client: HttpSource,
        cache: Cache,
        limiters: RateLimiters | None = None,
    ) -> None:
        self.settings = settings
        self.client = client
        self.cache = cache
        self.limiters = limiters if limiters is not None else RateLimiters()
        self.breaker = CircuitBreaker(settings.search.breaker_failures, settings.search.breaker_cooldown_s)
        self._providers: dict[str, SearchProvider] = {}
        self._owned: tuple[LazyClient | None, Cache | None] = (None, None)

    @classmethod
    def from_settings(cls, settings: Settings, *, client: HttpSource | None = None) -> SearchRouter:
        """A router with its own cache (the configured SQLite file) and, unless given, its own client."""
        own: LazyClient | None = None
        if client is None:
            client = own = LazyClient()
        cache = Cache(settings.cache_path, enabled=settings.cache.enabled)
        router = cls(settings, client=client, cache=cache)
        router._owned = (own, cache)
        return router

    async def aclose(self) -> None:
        """Close the client and cache this router made itself (none when a runtime owns them)."""
        client, cache = self._owned
        if client is not None:
            await client.aclose()
        if cache is not None:
            cache.close()

    def order(self, choice: ProviderChoice = None) -> list[str]:
        """The providers to ask, in order, for this call."""
        explicit = resolve_names(choice) or resolve_names(self.settings.search.provider, source="config")
        if explicit:
            return explicit
        return [name for name in AUTOMATIC_ORDER if is_configured(name, self.settings)]

    def provider(self, name: str) -> SearchProvider:
        """The provider `name`, built once and wrapped in its upstream's rate limiter."""
        found = self._providers.get(name)
        if found is None:
            inner = PROVIDERS[name](self.settings, self.client)
            rate = getattr(inner.config, "requests_per_second", None)
            limiter = self.limiters.get(
                f"{name} {inner.config.base_url}",
                float(rate) if rate else None,
                max_wait_s=self.settings.search.max_retry_after_s,
            )
            found = self._providers[name] = RateLimitedProvider(inner, limiter)
        return found

    async def search(
        self, request: SearchRequest, *, provider: ProviderChoice = None, use_cache: bool = True
    ) -> SearchResponse:
        names = self.order(provider)
        explicit = names if provider is not None else None
        key = cache_key(request.cache_parts(), explicit)

        asked: list[SearchResponse] = []

        async def ask() -> dict[str, object]:
            asked.append(await self._ask(request, names))
            return asked[0].model_dump(mode="json")

        value, cached = await self.cache.get_or_compute(
            CACHE_NAMESPACE, key, self.settings.search.cache_ttl_s, ask, use_cache=use_cache
        )
        if asked:  # we asked upstream ourselves: no need to rebuild the response from JSON
            return asked[0]
        response = SearchResponse.model_validate(value)
        response.cached = cached
        return response

    async def _ask(self, request: SearchRequest, names: list[str]) -> SearchResponse:
        failures: list[tuple[ProviderFailure, WeblensError | None]] = []
        for name in names:
            skipped = self._skip_reason(name, request)
            if skipped is not None:
                failures.append((skipped, None))
                continue
            try:
                requires = PROVIDERS[name].requires
                if requires is not None:
                    self.settings.require(name, requires)
                answer = await self.provider(name).search(request)
            except (ToolValidationError, NotConfiguredError) as exc:
                failures.append((_failure(name, exc), exc))
                if isinstance(exc, NotConfiguredError) and "status" in exc.details:
                    self.breaker.failed(name, exc.code, exc.message)  # refused upstream: counts
                continue
            except WeblensError as exc:
                failures.append((_failure(name, exc), exc))
                self.breaker.failed(name, exc.code, exc.message)
                continue
            self.breaker.succeeded(name)
            return SearchResponse(
                query=request.query,
                provider=name,
                results=answer.results,
                extras=answer.extras,
                failures=[failure for failure, _ in failures],
            )
        raise _combined(failures)

    def _skip_reason(self, name: str, request: SearchRequest) -> ProviderFailure | None:
        if request.kind not in PROVIDERS[name].kinds:
            return ProviderFailure(
                provider=name, code="validation_error", message=f"{name} does not support {request.kind} search"
            )
        cooling = self.breaker.open_for(name)
        if cooling > 0:
            code, last = self.breaker.last_failure(name)
            message = f"skipped for {cooling:.0f} s more after repeated failures (last: {last})"
            return ProviderFailure(provider=name, code=code or "upstream_error", message=message)
        return None


def _failure(name: str, exc: WeblensError) -> ProviderFailure:
    status = getattr(exc, "status", None) or exc.details.get("status")
    return ProviderFailure(provider=name, code=exc.code, message=exc.message, status=status)


def _combined(failures: list[tuple[ProviderFailure, WeblensError | None]]) -> WeblensError:
    """One error for "nobody answered": the only failure as is, or a summary of all of them."""
    raised = [(failure, exc) for failure, exc in failures if exc is not None]
    if len(failures) == 1 and raised:
        return raised[0][1]
    if not raised:  # every provider was skipped (cooling down, or cannot search this kind)
        summary = "; ".join(f"{f.provider}: {f.message}" for f, _ in failures)
        message = f"no search provider could be asked — {summary}"
        error_cls = error_class_for(failures[0][0].code)
        return ToolValidationError(message) if error_cls is ToolValidationError else error_cls(message)
    codes = [failure.code for failure, _ in raised]
    code = next((c for c in _PREFERRED_CODES if c in codes), codes[0])
    chosen = next(exc for failure, exc in raised if failure.code == code)
    assert chosen is not None
    summary = "; ".join(f"{f.provider}: {f.message}" for f, _ in failures)
    error = copy.copy(chosen)
    error.message = f"no search provider answered — {summary}"
    error.args = (error.message,)
    waits = [exc.retry_after_s for _, exc in raised if exc is not None and exc.retry_after_s is not None]
    error.retry_after_s = min(waits) if waits else None
    error.retryable = any(exc.retryable for _, exc in raised if exc is not None)
    error.details = {**chosen.details, "failures": [f.model_dump() for f, _ in failures]}
    return error
