"""Which providers answer: the configured order with fallback, or several at once (fusion).

Order: an explicit `provider` argument, else `search.provider` from config, else the
seed 000 rule extended to all providers (Tavily, Brave, Serper, SearXNG, DuckDuckGo),
keeping only the configured ones. DuckDuckGo needs no key, so it is always last.

`providers=[...]` (or `"all"`) asks several providers concurrently and fuses their
results (`search.fusion`); one failing makes the response `partial`, which is never
cached. Every answer passes the domain filter (the operator's policy narrowed by the
caller's `include_domains`/`exclude_domains`) before anyone sees it.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Sequence

from weblens.cache import Cache, cache_key
from weblens.closing import AsyncClosing
from weblens.config import Settings, setting_hint
from weblens.errors import (
    MaxUsesExceededError,
    NotConfiguredError,
    ToolValidationError,
    UpstreamError,
    UrlNotAllowedError,
    WeblensError,
    error_class_for,
)
from weblens.metrics import Metrics
from weblens.net import HttpSource, LazyClient
from weblens.net.ratelimit import RateLimiters
from weblens.policy.domains import DomainPolicy
from weblens.policy.state import LocalPolicyState, PolicyState
from weblens.progress import report
from weblens.search.advice import ANOTHER_PROVIDER
from weblens.search.breaker import CircuitBreaker
from weblens.search.budget import DailyLimitedProvider
from weblens.search.fusion import fuse, numbered
from weblens.search.keys import KEY_PROBLEM
from weblens.search.limited import RateLimitedProvider
from weblens.search.models import ProviderAnswer, ProviderFailure, SearchRequest, SearchResponse
from weblens.search.providers import PROVIDERS, SearchProvider, is_configured
from weblens.search.results import applied, kept_results
from weblens.store.base import BreakerStore

__all__ = ["AUTOMATIC_ORDER", "CACHE_NAMESPACE", "ProviderChoice", "SearchRouter", "resolve_names"]

AUTOMATIC_ORDER = ("tavily", "brave", "serper", "searxng", "duckduckgo")
CACHE_NAMESPACE = "search"
ALL = "all"
_PREFERRED_CODES = (
    "rate_limited",
    "max_uses_exceeded",
    "timeout",
    "upstream_error",
    "not_configured",
    "not_found",
)
"""When several providers failed differently, the code reported: what the caller can act on first."""
_REQUEST_STATUSES = frozenset({400, 413, 414, 422})
"""Answers about one request (bad value, too long), not about the provider's health."""
_LOCAL_CODES = (ToolValidationError, NotConfiguredError, MaxUsesExceededError)
"""Failures decided here rather than by the upstream: they do not count against its breaker."""

logger = logging.getLogger("weblens.search")

ProviderChoice = str | Sequence[str] | None
_Failed = tuple[ProviderFailure, WeblensError | None]


def resolve_names(choice: ProviderChoice, *, source: str = "provider") -> list[str]:
    """Provider names from "brave", "brave,duckduckgo" or a list; unknown names are an error."""
    if choice is None:
        return []
    raw = choice.split(",") if isinstance(choice, str) else list(choice)
    names = list(dict.fromkeys(name.strip().lower() for name in raw if name.strip()))
    unknown = [name for name in names if name not in PROVIDERS]
    if unknown:
        message = f"unknown search provider {unknown[0]!r}; choose from {', '.join(sorted(PROVIDERS))}"
        if source == "config":
            raise NotConfiguredError(f"{message} ({setting_hint('search', 'provider')})")
        raise ToolValidationError(message, [{"field": source, "message": message, "type": "enum"}])
    return names


class _Partial(Exception):
    """Carries a partial fused response out of the cache's compute step, so it is not stored."""

    def __init__(self, response: SearchResponse) -> None:
        super().__init__("partial")
        self.response = response


class SearchRouter(AsyncClosing):
    """Asks providers (in order, or all at once); remembers complete answers; skips failing providers.

    A `Runtime` builds one and passes in the parts it shares (client, cache, limiters, the
    policy state and the domain policy); `SearchRouter.from_settings` builds one that owns
    its own, closed by `aclose()`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        client: HttpSource,
        cache: Cache,
        limiters: RateLimiters | None = None,
        state: PolicyState | None = None,
        domains: DomainPolicy | None = None,
        breakers: BreakerStore | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.client = client
        self.cache = cache
        self.limiters = limiters if limiters is not None else RateLimiters(margin_s=settings.search.rate_margin_s)
        self.state = state if state is not None else LocalPolicyState()
        self.domains = domains if domains is not None else settings.policy.domains()
        self.breaker = CircuitBreaker(
            settings.search.breaker_failures, settings.search.breaker_cooldown_s, store=breakers
        )
        self._providers: dict[str, SearchProvider] = {}
        self._owned: tuple[LazyClient | None, Cache | None] = (None, None)
        unknown = sorted(set(settings.policy.daily_requests) - set(PROVIDERS))
        if unknown:
            raise NotConfiguredError(
                f"unknown search provider {unknown[0]!r} in policy.daily_requests; choose from "
                f"{', '.join(sorted(PROVIDERS))} ({setting_hint('policy', 'daily_requests')})"
            )

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

    def fused(self, choice: ProviderChoice, request: SearchRequest) -> list[str]:
        """The providers a fused search asks: the names given, or for "all" every configured
        one that can search this kind."""
        names = [choice] if isinstance(choice, str) else list(choice or [])
        if [name.strip().lower() for name in names] == [ALL]:
            return [name for name in self.order() if request.kind in PROVIDERS[name].kinds]
        return resolve_names(choice, source="providers")

    def provider(self, name: str) -> SearchProvider:
        """The provider `name`, built once, wrapped in its upstream's rate limiter and daily cap."""
        found = self._providers.get(name)
        if found is None:
            inner = PROVIDERS[name](self.settings, self.client, state=self.state, metrics=self.metrics)
            rate = getattr(inner.config, "requests_per_second", None)
            limiter = self.limiters.get(
                f"{name} {inner.config.base_url}",
                float(rate) if rate else None,
                max_wait_s=self.settings.search.max_retry_after_s,
            )
            found = RateLimitedProvider(inner, limiter)
            limit = self.settings.policy.daily_requests.get(name)
            if limit is not None:
                found = DailyLimitedProvider(found, limit, self.state)
            self._providers[name] = found
        return found

    def within_policy(self, request: SearchRequest, narrower: DomainPolicy | None = None) -> SearchRequest:
        """`request` with its domain filter narrowed to the operator's policy (and `narrower`);
        `UrlNotAllowedError` when no domain at all could pass."""
        asked = DomainPolicy(frozenset(request.include_domains) or None, frozenset(request.exclude_domains))
        operator = self.domains.narrowed(narrower)
        policy = operator.narrowed(asked)
        if policy.allows_nothing:
            wanted = ", ".join(request.include_domains) or "every domain"
            allowed = ", ".join(sorted(operator.allow)) if operator.allow is not None else "any"
            blocked = ", ".join(sorted(policy.block)) or "none"
            raise UrlNotAllowedError(
                f"no result could be shown: {wanted} is outside what this search may return "
                f"(allowed domains: {allowed}; blocked: {blocked})",
                details={"policy": "domains"},
            )
        return request.model_copy(
            update={
                "include_domains": tuple(sorted(policy.allow)) if policy.allow is not None else (),
                "exclude_domains": tuple(sorted(policy.block)),
            }
        )

    async def search(
        self,
        request: SearchRequest,
        *,
        provider: ProviderChoice = None,
        providers: ProviderChoice = None,
        policy: DomainPolicy | None = None,
        use_cache: bool = True,
    ) -> SearchResponse:
        """Search with fallback over `provider` (an order), or fused over `providers` (several, or "all").

        `policy` narrows the operator's domain policy for this call (it cannot widen it)."""
        request = self.within_policy(request, policy)
        fused = self.fused(providers, request) if providers else []
        if len(fused) == 1:
            provider, fused = fused, []
        if fused:
            names = fused
            key = cache_key(request.cache_parts(), sorted(names), "fused")
        else:
            names = self.order(provider)
            key = cache_key(request.cache_parts(), names if provider is not None else None)

        asked: list[SearchResponse] = []

        async def ask() -> dict[str, object]:
            response = await (self._fuse(request, names) if fused else self._fall_back(request, names))
            if response.partial:
                raise _Partial(response)
            asked.append(response)
            return response.model_dump(mode="json")

        try:
            value, cached = await self.cache.get_or_compute(
                CACHE_NAMESPACE, key, self.settings.search.cache_ttl_s, ask, use_cache=use_cache
            )
        except _Partial as partial:  # shared with identical concurrent searches, stored for none
            return partial.response.model_copy(deep=True)
        if self.metrics is not None:
            self.metrics.cache_lookup(CACHE_NAMESPACE, cached)
        if asked:  # we asked upstream ourselves: no need to rebuild the response from JSON
            return asked[0]
        response = SearchResponse.model_validate(value)
        response.cached = cached
        return response

    async def _ask_one(self, name: str, request: SearchRequest) -> ProviderAnswer | _Failed:
        skipped = await self._skip_reason(name, request)
        if skipped is not None:
            return skipped, None
        try:
            requires = PROVIDERS[name].requires
            if requires is not None:
                self.settings.require(name, requires)
            answer = await self.provider(name).search(request)
        except _LOCAL_CODES as exc:
            if "status" in exc.details:  # refused upstream (a key): counts
                await self.breaker.failed(name, exc.code, exc.message)
            return _failure(name, exc), exc
        except WeblensError as exc:
            if not _refused_this_request(exc):
                await self.breaker.failed(name, exc.code, exc.message)
            return _failure(name, exc), exc
        except Exception as exc:  # an answer its parser could not survive: the next provider may do better
            logger.warning("search provider %s failed: %s", name, type(exc).__name__)
            logger.debug("search provider %s failed", name, exc_info=True)
            error = UpstreamError(f"{name} sent an answer weblens could not read ({type(exc).__name__})")
            await self.breaker.failed(name, error.code, error.message)
            return _failure(name, error), error
        await self.breaker.succeeded(name)
        return answer

    async def _fall_back(self, request: SearchRequest, names: list[str]) -> SearchResponse:
        failures: list[_Failed] = []
        for name in names:
            report(f"asking {name}" + (f" ({len(failures)} failed before)" if failures else ""))
            outcome = await self._ask_one(name, request)
            if isinstance(outcome, tuple):
                failures.append(outcome)
                continue
            results, dropped = kept_results(name, outcome.results, request)
            return SearchResponse(
                query=request.query,
                provider=name,
                providers=[name],
                results=numbered(results, request.max_results),
                extras=outcome.extras,
                failures=[failure for failure, _ in failures],
                applied=applied(request, [self.provider(name)]),
                filtered_out=dropped,
            )
        raise _combined(failures)

    async def _fuse(self, request: SearchRequest, names: list[str]) -> SearchResponse:
        report(f"asking {', '.join(names)}")
        outcomes = await asyncio.gather(*(self._ask_one(name, request) for name in names))
        failures = [outcome for outcome in outcomes if isinstance(outcome, tuple)]
        answers = [(name, o) for name, o in zip(names, outcomes, strict=True) if isinstance(o, ProviderAnswer)]
        if not answers:
            raise _combined(failures)
        lists = []
        dropped = 0
        for name, answer in answers:
            kept, removed = kept_results(name, answer.results, request)
            lists.append((name, kept))
            dropped += removed
        answered = [name for name, _ in answers]
        extras = next((answer.extras for _, answer in answers if answer.extras), {})
        return SearchResponse(
            query=request.query,
            provider=",".join(answered),
            providers=answered,
            fused=True,
            results=fuse(lists, request.max_results),
            extras=extras,
            failures=[failure for failure, _ in failures],
            partial=bool(failures),
            applied=applied(request, [self.provider(name) for name in answered]),
            filtered_out=dropped,
        )

    async def _skip_reason(self, name: str, request: SearchRequest) -> ProviderFailure | None:
        if request.kind not in PROVIDERS[name].kinds:
            return ProviderFailure(
                provider=name, code="validation_error", message=f"{name} does not support {request.kind} search"
            )
        cooling = await self.breaker.open_for(name)
        if cooling > 0:
            code, last = await self.breaker.last_failure(name)
            message = f"skipped for {cooling:.0f} s more after repeated failures (last: {last})"
            return ProviderFailure(provider=name, code=code or "upstream_error", message=message)
        return None


def _refused_this_request(exc: WeblensError) -> bool:
    """A 400/422 about this request (a query or value the API does not take), not about the key or
    its quota: the provider is healthy, so it must not be skipped for everyone else's searches."""
    return exc.details.get("status") in _REQUEST_STATUSES and KEY_PROBLEM not in exc.details


def _failure(name: str, exc: WeblensError) -> ProviderFailure:
    status = getattr(exc, "status", None) or exc.details.get("status")
    return ProviderFailure(provider=name, code=exc.code, message=exc.message, status=status)


def _combined(failures: list[_Failed]) -> WeblensError:
    """One error for "nobody answered": the only failure as is, or a summary of all of them."""
    raised = [(failure, exc) for failure, exc in failures if exc is not None]
    if len(failures) == 1 and raised:
        return _advised(raised[0][1])
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
    return _advised(error)


def _advised(error: WeblensError) -> WeblensError:
    """A search that could not reach its provider also says that another provider is a way out."""
    if error.details.get("network") not in ("dns", "refused", "proxy") or ANOTHER_PROVIDER in error.message:
        return error
    advised = copy.copy(error)
    advised.message = f"{error.message}; or configure another search provider: {ANOTHER_PROVIDER}"
    advised.args = (advised.message,)
    return advised
