"""`fetch(url)`: any URL to a page of clean text, safely, bounded, and paged from the cache.

A `Fetcher` holds what fetches share — the guarded client, the cache, the SSRF policy
— and a `Runtime` owns one. `fetch()` and `fetch_document()` take one (`fetcher=`), or
build one for the call and close it afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx

from weblens.cache import Cache, cache_key
from weblens.closing import AsyncClosing
from weblens.config import Settings, get_settings
from weblens.errors import ToolTimeoutError, ToolValidationError
from weblens.fetch.client import download, fetch_client, guard_for
from weblens.fetch.document import Document, Page
from weblens.fetch.extract import extract
from weblens.fetch.paging import page_bounds
from weblens.fetch.robots import RobotsPolicy
from weblens.net import ClientGetter, LazyClient, getter_for
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import Resolver, default_port
from weblens.policy.domains import DomainPolicy

__all__ = ["Fetcher", "fetch", "fetch_document"]

_NAMESPACE = "fetch"


@contextlib.asynccontextmanager
async def _within(deadline: float, target: httpx.URL, limit: float) -> AsyncIterator[None]:
    try:
        async with asyncio.timeout_at(deadline):
            yield
    except TimeoutError:
        # the whole budget is spent: trying again within it cannot succeed
        raise ToolTimeoutError(f"fetching {target} took longer than {limit:g} s", retryable=False) from None


class Fetcher(AsyncClosing):
    """Fetches under one set of settings: the SSRF guard, its pinned client, the cache, and
    the domain policy (`policy`, default the configured one), checked before any request.

    `client` should come from `weblens.net.guarded.guarded_client`; another client is
    checked before each hop but not pinned to the checked address. Without one, the
    fetcher builds its guarded client on first use and closes it in `aclose()`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        cache: Cache,
        client: httpx.AsyncClient | None = None,
        resolver: Resolver | None = None,
        policy: DomainPolicy | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.guard = guard_for(settings.fetch, resolver)
        self.policy = policy if policy is not None else settings.policy.domains()
        self._own: LazyClient | None = None
        self._http: ClientGetter
        if client is None:
            self._http = self._own = LazyClient(lambda: fetch_client(settings.fetch, self.guard))
        else:
            self._http = getter_for(client)
        self._own_cache: Cache | None = None

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        cache: Cache | None = None,
        resolver: Resolver | None = None,
    ) -> Fetcher:
        """A fetcher that owns what is not given: the configured cache file and a guarded client."""
        settings = settings or get_settings()
        own_cache: Cache | None = None
        if cache is None:
            cache = own_cache = Cache(settings.cache_path, enabled=settings.cache.enabled)
        fetcher = cls(settings, cache=cache, client=client, resolver=resolver)
        fetcher._own_cache = own_cache
        return fetcher

    @property
    def http(self) -> httpx.AsyncClient:
        return self._http()

    async def aclose(self) -> None:
        if self._own is not None:
            await self._own.aclose()
        if self._own_cache is not None:
            self._own_cache.close()

    async def document(
        self,
        url: str,
        *,
        raw: bool = False,
        timeout: float | None = None,
        respect_robots: bool | None = None,
        use_cache: bool = True,
    ) -> tuple[Document, bool]:
        """(the whole document, whether it came from the cache). See `fetch` for the arguments."""
        config = self.settings.fetch
        guard = self.guard
        target = guard.check_url(url)
        self.policy.check(str(target))
        if timeout is not None and timeout <= 0:
            raise ToolValidationError("timeout must be positive")
        limit = config.timeout if timeout is None else min(timeout, config.timeout)
        http = self.http
        # one deadline for the robots.txt check and the download: neither may outlast `limit`
        deadline = asyncio.get_running_loop().time() + limit
        robots = None
        if config.respect_robots if respect_robots is None else respect_robots:
            robots = RobotsPolicy(http, self.cache, config.user_agent, config.cache_ttl_s)
            async with _within(deadline, target, limit):
                if not is_guarded(http):  # a caller's own client: check the name before robots.txt is asked
                    await guard.resolve(target.host, target.port or default_port(target.scheme))
                await robots(target)

        async def compute() -> dict[str, object]:
            async with _within(deadline, target, limit):
                got = await download(
                    target, client=http, guard=guard, config=config, robots=robots, policy=self.policy.check
                )
                out = await asyncio.to_thread(extract, got.body, got.content_type, got.final_url, raw=raw)
            document = Document(
                url=got.url,
                final_url=got.final_url,
                status=got.status,
                content_type=got.content_type,
                title=out.title,
                byline=out.byline,
                date=out.date,
                content=out.content,
                extractor=out.extractor,
                total_length=len(out.content),
                note=out.note,
            )
            return document.model_dump()

        # the policy is part of the key: a page fetched under a looser guard is not served to a stricter one
        key = cache_key(str(target), raw, config.allow_private, sorted(config.allowed_hosts))
        data, cached = await self.cache.get_or_compute(
            _NAMESPACE, key, config.cache_ttl_s, compute, use_cache=use_cache
        )
        document = Document.model_validate(data)
        self.policy.check(document.final_url)  # a cached page may have been redirected where policy now forbids
        return document, cached

    async def fetch(
        self,
        url: str,
        *,
        max_length: int | None = None,
        start_index: int = 0,
        raw: bool = False,
        timeout: float | None = None,
        respect_robots: bool | None = None,
        use_cache: bool = True,
    ) -> Page:
        """One page of `url`'s text; see the module-level `fetch`."""
        if max_length is not None and max_length <= 0:
            raise ToolValidationError("max_length must be a positive number of characters")
        if start_index < 0:
            raise ToolValidationError("start_index must not be negative")
        document, cached = await self.document(
            url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache
        )
        if start_index > document.total_length and start_index > 0:
            raise ToolValidationError(
                f"start_index {start_index} is past the end of the document ({document.total_length} characters)"
            )
        end, next_start = page_bounds(document.content, start_index, max_length or self.settings.fetch.max_length)
        return Page.of(document, document.content[start_index:end], start_index, next_start, cached)


@contextlib.asynccontextmanager
async def _using(
    fetcher: Fetcher | None,
    settings: Settings | None,
    client: httpx.AsyncClient | None,
    cache: Cache | None,
    resolver: Resolver | None,
) -> AsyncIterator[Fetcher]:
    """`fetcher`, or one built for this call and closed after it."""
    if fetcher is not None:
        yield fetcher
        return
    async with Fetcher.from_settings(settings, client=client, cache=cache, resolver=resolver) as own:
        yield own


async def fetch_document(
    url: str,
    *,
    raw: bool = False,
    settings: Settings | None = None,
    client: httpx.AsyncClient | None = None,
    cache: Cache | None = None,
    timeout: float | None = None,
    respect_robots: bool | None = None,
    resolver: Resolver | None = None,
    use_cache: bool = True,
    fetcher: Fetcher | None = None,
) -> tuple[Document, bool]:
    """(the whole document, whether it came from the cache). See `fetch` for the arguments."""
    async with _using(fetcher, settings, client, cache, resolver) as using:
        return await using.document(
            url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache
        )


async def fetch(
    url: str,
    *,
    max_length: int | None = None,
    start_index: int = 0,
    raw: bool = False,
    settings: Settings | None = None,
    client: httpx.AsyncClient | None = None,
    cache: Cache | None = None,
    timeout: float | None = None,
    respect_robots: bool | None = None,
    resolver: Resolver | None = None,
    use_cache: bool = True,
    fetcher: Fetcher | None = None,
) -> Page:
    """Fetch `url` and return one page of its text (markdown for HTML).

    `max_length` characters from `start_index` (default `fetch.max_length`); the page says
    `total_length`, `truncated` and `next_start_index`. The extracted document is cached
    (`fetch.cache_ttl_s`), so the next page costs no request. `timeout` may lower the
    configured total (`fetch.timeout`), never raise it. Pass `fetcher=runtime.fetcher`
    (a `weblens.Runtime`) to share its client and cache; otherwise a fetcher is built from
    `settings`, `client`, `cache` and `resolver` for this call and closed afterwards.
    Raises `WeblensError` subclasses (`blocked`, `too_large`, `unsupported_content`,
    `not_found`, `timeout`, `upstream_error`, ...).
    """
    async with _using(fetcher, settings, client, cache, resolver) as using:
        return await using.fetch(
            url,
            max_length=max_length,
            start_index=start_index,
            raw=raw,
            timeout=timeout,
            respect_robots=respect_robots,
            use_cache=use_cache,
        )
