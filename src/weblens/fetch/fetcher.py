"""`fetch(url)`: any URL to a page of clean text, safely, bounded, and paged from the cache."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator

import httpx

from weblens.cache import Cache, cache_key
from weblens.config import Settings, get_settings
from weblens.errors import ToolTimeoutError, ToolValidationError
from weblens.fetch.client import download, fetch_client, guard_for
from weblens.fetch.document import Document, Page
from weblens.fetch.extract import extract
from weblens.fetch.reading import read_page
from weblens.fetch.robots import RobotsPolicy
from weblens.fetch.tokens import TokenCounter, o200k
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import Resolver, default_port

__all__ = ["fetch", "fetch_document"]

_NAMESPACE = "fetch"
MAX_QUERY_CHARS = 1_000
_caches: dict[str, Cache] = {}


def _default_cache(settings: Settings) -> Cache:
    """One cache per file for library callers that pass none (shared across calls)."""
    path = str(settings.cache_path)
    cache = _caches.get(path)
    if cache is None:
        cache = _caches[path] = Cache(settings.cache_path, enabled=settings.cache.enabled)
    return cache


@contextlib.asynccontextmanager
async def _within(deadline: float, target: httpx.URL, limit: float) -> AsyncIterator[None]:
    try:
        async with asyncio.timeout_at(deadline):
            yield
    except TimeoutError:
        # the whole budget is spent: trying again within it cannot succeed
        raise ToolTimeoutError(f"fetching {target} took longer than {limit:g} s", retryable=False) from None


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
) -> tuple[Document, bool]:
    """(the whole document, whether it came from the cache). See `fetch` for the arguments."""
    settings = settings or get_settings()
    config = settings.fetch
    guard = guard_for(config, resolver)
    target = guard.check_url(url)
    if timeout is not None and timeout <= 0:
        raise ToolValidationError("timeout must be positive")
    limit = config.timeout if timeout is None else min(timeout, config.timeout)
    cache = cache if cache is not None else _default_cache(settings)
    http = client or fetch_client(config, resolver)
    # one deadline for the robots.txt check and the download: neither may outlast `limit`
    deadline = asyncio.get_running_loop().time() + limit
    robots = None
    if config.respect_robots if respect_robots is None else respect_robots:
        robots = RobotsPolicy(http, cache, config.user_agent, config.cache_ttl_s)
        async with _within(deadline, target, limit):
            if not is_guarded(http):  # a caller's own client: check the name before robots.txt is asked
                await guard.resolve(target.host, target.port or default_port(target.scheme))
            await robots(target)

    async def compute() -> dict[str, object]:
        async with _within(deadline, target, limit):
            got = await download(target, client=http, guard=guard, config=config, robots=robots)
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
    data, cached = await cache.get_or_compute(_NAMESPACE, key, config.cache_ttl_s, compute, use_cache=use_cache)
    return Document.model_validate(data), cached


async def fetch(
    url: str,
    *,
    max_length: int | None = None,
    start_index: int = 0,
    query: str | None = None,
    max_tokens: int | None = None,
    tokenizer: TokenCounter | None = None,
    raw: bool = False,
    settings: Settings | None = None,
    client: httpx.AsyncClient | None = None,
    cache: Cache | None = None,
    timeout: float | None = None,
    respect_robots: bool | None = None,
    resolver: Resolver | None = None,
    use_cache: bool = True,
) -> Page:
    """Fetch `url` and return one page of its text (markdown for HTML).

    `max_length` characters from `start_index` (default `fetch.max_length`); the page says
    `total_length`, `truncated` and `next_start_index`. `max_tokens` bounds the page in
    tokens instead (o200k_base unless `tokenizer` is given; `max_length` then applies only
    when given too). With a `query`, the page holds the passages of the document (from
    `start_index` on) that best answer it, within `max_tokens` (default
    `fetch.query_max_tokens`), each with its heading path and offsets (`page.passages`).
    The extracted document is cached (`fetch.cache_ttl_s`), so the next page, or another
    query, costs no request. `timeout` may lower the
    configured total (`fetch.timeout`), never raise it. `client` should come from
    `weblens.net.ssrf.guarded_client`; another client is checked before each hop but not
    pinned to the checked address. Raises `WeblensError` subclasses (`blocked`,
    `too_large`, `unsupported_content`, `not_found`, `timeout`, `upstream_error`, ...).
    """
    settings = settings or get_settings()
    if max_length is not None and max_length <= 0:
        raise ToolValidationError("max_length must be a positive number of characters")
    if start_index < 0:
        raise ToolValidationError("start_index must not be negative")
    if max_tokens is not None and max_tokens <= 0:
        raise ToolValidationError("max_tokens must be a positive number of tokens")
    query = " ".join(query.split()) if query else None
    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise ToolValidationError(f"query must be at most {MAX_QUERY_CHARS} characters")
    document, cached = await fetch_document(
        url,
        raw=raw,
        settings=settings,
        client=client,
        cache=cache,
        timeout=timeout,
        respect_robots=respect_robots,
        resolver=resolver,
        use_cache=use_cache,
    )
    if start_index > document.total_length and start_index > 0:
        raise ToolValidationError(
            f"start_index {start_index} is past the end of the document ({document.total_length} characters)"
        )
    read = functools.partial(
        read_page,
        document,
        cached,
        start_index=start_index,
        max_length=max_length,
        default_length=settings.fetch.max_length,
        query=query,
        max_tokens=max_tokens,
        query_tokens=settings.fetch.query_max_tokens,
    )
    if query is None and max_tokens is None:
        return read()
    # ranking and counting are CPU work; the tokenizer's first load takes about a second
    counter = tokenizer or await asyncio.to_thread(o200k)
    return await asyncio.to_thread(read, counter=counter)
