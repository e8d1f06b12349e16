"""`fetch(url)`: any URL to a page of clean text, safely, bounded, and paged from the cache.

A `Fetcher` holds what fetches share — the guarded client, the cache, the SSRF policy,
the tokenizer for budgets, the worker processes that read pages — and a `Runtime` owns one.
`fetch()` and `fetch_document()` take one (`fetcher=`), or build one for the call and close
it afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable

import httpx

from weblens.cache import Cache, cache_key
from weblens.closing import AsyncClosing
from weblens.config import Settings, get_settings
from weblens.errors import ToolTimeoutError, ToolValidationError, WeblensError
from weblens.fetch.client import Downloaded, download, fetch_client, guard_for
from weblens.fetch.document import Document, Page
from weblens.fetch.extract import Extracted, extract
from weblens.fetch.reading import read_page
from weblens.fetch.robots import RobotsPolicy
from weblens.fetch.tokens import TokenCounter, o200k
from weblens.net import ClientGetter, LazyClient, getter_for
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import Resolver, default_port
from weblens.policy.domains import DomainPolicy
from weblens.workers import (
    WorkerCrashedError,
    WorkerMemoryError,
    WorkerPool,
    WorkerTimeoutError,
    default_memory_mb,
    default_size,
)

__all__ = ["WORKER_PRELOAD", "Fetcher", "fetch", "fetch_document", "worker_pool"]

_NAMESPACE = "fetch"
MAX_QUERY_CHARS = 1_000
WORKER_PRELOAD = ("weblens.fetch.extract", "weblens.fetch.html", "weblens.fetch.pdf", "weblens.fetch.reading")
"""What every worker process needs, imported once by the forkserver and shared by the workers."""
READ_IN_WORKER_CHARS = 200_000
"""Reading a document this long for a query takes over ~15 ms of GIL-holding CPU: a worker does it."""


def worker_pool(settings: Settings) -> WorkerPool:
    """The pool `fetch.workers` asks for, each worker under `fetch.worker_memory_mb`; no process
    starts before its first page."""
    size = settings.fetch.workers
    memory = settings.fetch.worker_memory_mb
    if memory is None:
        memory = default_memory_mb(default_size() if size is None else size)
    return WorkerPool(size, preload=WORKER_PRELOAD, memory_mb=memory)


def _read_in_worker(read: Callable[..., Page]) -> Page:
    """`read_page` in a worker process, counting tokens with that process's own o200k_base."""
    return read(counter=o200k())


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
    `tokenizer` counts `max_tokens` budgets; by default o200k_base, loaded on first use.
    `workers` run decoding, extraction and the reading of long documents under a hard
    deadline (`fetch.extract_timeout`); without one, the fetcher builds its own pool
    (`fetch.workers`) and closes it in `aclose()`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        cache: Cache,
        client: httpx.AsyncClient | None = None,
        resolver: Resolver | None = None,
        tokenizer: TokenCounter | None = None,
        policy: DomainPolicy | None = None,
        workers: WorkerPool | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self._tokenizer = tokenizer
        self._default_tokenizer = tokenizer is None  # then a worker can count with its own copy
        self._own_workers = workers is None
        self.workers = workers if workers is not None else worker_pool(settings)
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

    async def tokenizer(self) -> TokenCounter:
        """What budgets are counted with; the default's first load takes about a second, off the loop."""
        if self._tokenizer is None:
            self._tokenizer = await asyncio.to_thread(o200k)
        return self._tokenizer

    async def aclose(self) -> None:
        if self._own is not None:
            await self._own.aclose()
        if self._own_workers:
            await self.workers.aclose()
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
            document = await self.read(got, raw=raw, deadline=deadline)
            return document.model_dump()

        # the policy is part of the key: a page fetched under a looser guard is not served to a stricter one
        key = cache_key(str(target), raw, config.allow_private, sorted(config.allowed_hosts))
        data, cached = await self.cache.get_or_compute(
            _NAMESPACE, key, config.cache_ttl_s, compute, use_cache=use_cache
        )
        document = Document.model_validate(data)
        self.policy.check(document.final_url)  # a cached page may have been redirected where policy now forbids
        return document, cached

    async def read(self, got: Downloaded, *, raw: bool = False, deadline: float | None = None) -> Document:
        """The document in a body downloaded elsewhere (a crawl), read in a worker like a fetched one."""
        if deadline is None:
            deadline = asyncio.get_running_loop().time() + self.settings.fetch.extract_timeout
        out = await self._extract(got, raw, deadline)
        return Document(
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

    async def _extract(self, got: Downloaded, raw: bool, deadline: float) -> Extracted:
        """`extract` in a worker, within `fetch.extract_timeout` and what is left of the fetch's deadline."""
        left = deadline - asyncio.get_running_loop().time()
        limit = min(self.settings.fetch.extract_timeout, left)
        if limit <= 0:
            raise ToolTimeoutError(f"fetching {got.final_url} took longer than {self.settings.fetch.timeout:g} s",
                                   retryable=False)  # fmt: skip
        done = f"downloaded {len(got.body):,} bytes from {got.final_url}"
        work = functools.partial(extract, got.body, got.content_type, got.final_url, raw=raw)
        try:
            return await self.workers.run(work, timeout=limit)
        except WorkerTimeoutError:
            raise ToolTimeoutError(
                f"{done}; extracting its text took longer than {limit:g} s, so it was stopped "
                "(the page is too large or too complex to read in time)",
                retryable=False,
                details={"url": got.final_url, "bytes": len(got.body), "extract_timeout_s": limit},
            ) from None
        except WorkerMemoryError as exc:
            raise WorkerMemoryError(
                f"{done}; reading it needed more than the {exc.details['worker_memory_mb']} MB a worker may use "
                "(fetch.worker_memory_mb), so it was stopped and its worker replaced",
                details={**exc.details, "url": got.final_url, "bytes": len(got.body)},
            ) from None
        except WorkerCrashedError as exc:
            raise WeblensError(f"{done}; {exc.message} while extracting its text") from None

    async def _read(self, document: Document, read: Callable[..., Page]) -> Page:
        """A page for a query or a token budget: ranking and counting are CPU work, off the event
        loop; a long document's in a worker, under the same deadline as extraction."""
        if document.total_length <= READ_IN_WORKER_CHARS or not self._default_tokenizer:
            return await asyncio.to_thread(read, counter=await self.tokenizer())
        limit = self.settings.fetch.extract_timeout
        work = functools.partial(_read_in_worker, read)
        try:
            return await self.workers.run(work, timeout=limit)
        except WorkerTimeoutError:
            raise ToolTimeoutError(
                f"reading the {document.total_length:,} characters of {document.final_url} for this request "
                f"took longer than {limit:g} s, so it was stopped",
                retryable=False,
            ) from None
        except WorkerMemoryError as exc:
            raise WorkerMemoryError(f"reading {document.final_url}: {exc.message}", details=exc.details) from None
        except WorkerCrashedError as exc:
            raise WeblensError(f"reading {document.final_url}: {exc.message}") from None

    async def fetch(
        self,
        url: str,
        *,
        max_length: int | None = None,
        start_index: int = 0,
        query: str | None = None,
        max_tokens: int | None = None,
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
        if max_tokens is not None and max_tokens <= 0:
            raise ToolValidationError("max_tokens must be a positive number of tokens")
        query = " ".join(query.split()) if query else None
        if query is not None and len(query) > MAX_QUERY_CHARS:
            raise ToolValidationError(f"query must be at most {MAX_QUERY_CHARS} characters")
        document, cached = await self.document(
            url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache
        )
        if start_index > document.total_length and start_index > 0:
            raise ToolValidationError(
                f"start_index {start_index} is past the end of the document ({document.total_length} characters)"
            )
        return await self.page(
            document, cached, start_index=start_index, max_length=max_length, query=query, max_tokens=max_tokens
        )

    async def page(
        self,
        document: Document,
        cached: bool = False,
        *,
        start_index: int = 0,
        max_length: int | None = None,
        query: str | None = None,
        max_tokens: int | None = None,
    ) -> Page:
        """One page of a document already read: a slice, or the passages that answer `query`."""
        read = functools.partial(
            read_page,
            document,
            cached,
            start_index=start_index,
            max_length=max_length,
            default_length=self.settings.fetch.max_length,
            query=query,
            max_tokens=max_tokens,
            query_tokens=self.settings.fetch.query_max_tokens,
        )
        if query is None and max_tokens is None:
            return read()
        return await self._read(document, read)


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
        return await using.document(url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache)


async def fetch(
    url: str,
    *,
    max_length: int | None = None,
    start_index: int = 0,
    query: str | None = None,
    max_tokens: int | None = None,
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
    `total_length`, `truncated` and `next_start_index`. `max_tokens` bounds the page in
    tokens instead (o200k_base; `max_length` then applies only when given too). With a
    `query`, the page holds the passages of the document (from `start_index` on) that best
    answer it, within `max_tokens` (default `fetch.query_max_tokens`), each with its
    heading path and offsets (`page.passages`). The extracted document is cached
    (`fetch.cache_ttl_s`), so the next page, or another query, costs no request. `timeout` may lower the
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
            query=query,
            max_tokens=max_tokens,
            raw=raw,
            timeout=timeout,
            respect_robots=respect_robots,
            use_cache=use_cache,
        )
