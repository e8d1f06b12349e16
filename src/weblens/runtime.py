"""The composition root: one `Runtime` per process owns every piece of shared state.

Settings, the HTTP clients, the cache (with its single-flight), the rate limiters, the
operator policy (the domain policy, and the `PolicyState` holding daily request counts
and benched API keys), the search router (with its breaker), the worker processes that
read fetched pages (`workers`), the fetcher, the session store, the metrics and the
readiness checks are built here once and passed to the tools, so chat, `/mcp` and the CLI
share one set of limits and one cache. Nothing else in weblens keeps state at module level.
Build one and close it::

    async with Runtime.from_settings() as runtime:
        toolset = default_toolset(runtime)
        ...

A runtime belongs to one event loop (its HTTP connections do); clients and worker processes
are built on first use, so building a runtime is cheap (a server calls `workers.warm()`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx

from weblens.cache import Cache
from weblens.closing import AsyncClosing
from weblens.config import Settings, get_settings
from weblens.fetch import Fetcher
from weblens.fetch.fetcher import worker_pool
from weblens.metrics import Metrics
from weblens.net import ClientGetter, LazyClient, getter_for
from weblens.net.ratelimit import RateLimiters
from weblens.net.ssrf import Resolver
from weblens.policy import PolicyState
from weblens.search import SearchRouter
from weblens.store import Backends, backends_for
from weblens.store.sessions import SessionStore, open_session_store

__all__ = ["Runtime", "using"]


class Runtime(AsyncClosing):
    """What tools are made from. Parts given to the constructor stay the caller's to close;
    parts it builds (the cache file, the clients) are closed by `aclose()`.

    `resolver` replaces the system resolver for fetches (tests map names to addresses);
    With `settings.redis_url` the cache, rate-limit slots, breakers, single-flight and policy
    state live in Redis (shared by every replica).

    `policy_state` replaces the in-process policy state (a fleet shares one); `sessions`
    replaces the session store chosen from settings (SQLite, or PostgreSQL given
    `database_url`). `readiness_checks` are the named async checks `/ready` runs: each
    raises when its backend is unreachable.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        cache: Cache | None = None,
        client: httpx.AsyncClient | None = None,
        resolver: Resolver | None = None,
        policy_state: PolicyState | None = None,
        sessions: SessionStore | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = Metrics()
        redis_url = settings.redis_url.get_secret_value() if settings.redis_url is not None else None
        self.backends: Backends = backends_for(redis_url)
        self.readiness_checks: dict[str, Callable[[], Awaitable[None]]] = {}
        if self.backends.redis is not None:
            self.readiness_checks["redis"] = self.backends.redis.check
        self._own_cache = cache is None
        self.cache = (
            cache
            if cache is not None
            else Cache(
                settings.cache_path,
                enabled=settings.cache.enabled,
                store=self.backends.cache,
                flight=self.backends.flight,
            )
        )
        self._own_client: LazyClient | None = None
        self._http: ClientGetter
        if client is None:
            self._http = self._own_client = LazyClient()
        else:
            self._http = getter_for(client)
        self.resolver = resolver
        self.limiters = RateLimiters(self.backends.slots)
        self.policy_state: PolicyState = policy_state if policy_state is not None else self.backends.policy_state
        self.domain_policy = settings.policy.domains()
        self.router = self.router_with(settings)
        self.workers = worker_pool(settings)
        self.fetcher = Fetcher(
            settings, cache=self.cache, resolver=resolver, policy=self.domain_policy, workers=self.workers,
            metrics=self.metrics,
        )  # fmt: skip
        self.browser = self.fetcher.browser
        """The rendering tier (web_fetch's render, web_screenshot): one browser, started on first need."""
        self._own_sessions = sessions is None
        self.sessions = sessions if sessions is not None else open_session_store(settings)
        self.readiness_checks[self.sessions.name] = self.sessions.check  # down too while writes fail
        self._closed = False

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        resolver: Resolver | None = None,
    ) -> Runtime:
        """A runtime for `settings` (default: the environment, `.env` and the config file)."""
        return cls(settings or get_settings(), client=client, resolver=resolver)

    @property
    def http(self) -> httpx.AsyncClient:
        """The pooled client for upstream APIs (search providers, weather, Firecrawl)."""
        return self._http()

    @property
    def client(self) -> ClientGetter:
        """A getter for `http`, for parts that should build the client only when they call out."""
        return self._http

    def router_with(self, settings: Settings) -> SearchRouter:
        """A router for other settings (e.g. one tool's own API key) sharing this runtime's
        client, cache, rate limiters, policy state and domain policy."""
        return SearchRouter(
            settings,
            client=self._http,
            cache=self.cache,
            limiters=self.limiters,
            state=self.policy_state,
            domains=self.domain_policy,
            breakers=self.backends.breakers,
            metrics=self.metrics,
        )

    async def aclose(self) -> None:
        """Close what this runtime built; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await self.fetcher.aclose()
        await self.workers.aclose()
        if self._own_client is not None:
            await self._own_client.aclose()
        if self._own_cache:
            self.cache.close()
        if self.backends.redis is not None:
            await self.backends.redis.aclose()
        if self._own_sessions:
            await self.sessions.aclose()


@asynccontextmanager
async def using(runtime: Runtime | None, settings: Settings | None = None) -> AsyncIterator[Runtime]:
    """`runtime`, or — for a tool or call given none — one built for this block and closed after it."""
    if runtime is not None:
        yield runtime
        return
    async with Runtime.from_settings(settings) as temporary:
        yield temporary
