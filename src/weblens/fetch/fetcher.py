"""`fetch(url)`: any URL to a page of clean text, safely, bounded, and paged from the cache.

A `Fetcher` holds what fetches share — the guarded client, the cache, the SSRF policy,
the tokenizer for budgets, the worker processes that read pages — and a `Runtime` owns one.
`fetch()` and `fetch_document()` take one (`fetcher=`), or build one for the call and close
it afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Literal, get_args

import httpx

from weblens.browser import HOW_TO_GET_ONE, MAX_SCROLL, BrowserPool, Screenshot, render, screenshot
from weblens.cache import Cache, cache_key
from weblens.closing import AsyncClosing
from weblens.config import Settings, get_settings
from weblens.errors import (
    BlockedError,
    NotConfiguredError,
    TooLargeError,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
    WeblensError,
)
from weblens.fetch.client import Downloaded, download, fetch_client, forbids_storing, guard_for, status_error
from weblens.fetch.document import Document, Page
from weblens.fetch.extract import Extracted, extract, inflates
from weblens.fetch.reading import read_page
from weblens.fetch.render_need import RENDER_REASONS
from weblens.fetch.robots import RobotsPolicy
from weblens.fetch.tokens import TokenCounter, o200k
from weblens.loops import loop_local
from weblens.metrics import Metrics
from weblens.net import ClientGetter, LazyClient, getter_for
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import Resolver, default_port
from weblens.policy.domains import DomainPolicy
from weblens.redact import redact_text
from weblens.workers import (
    WorkerCrashedError,
    WorkerMemoryError,
    WorkerPool,
    WorkerTimeoutError,
    default_memory_mb,
    default_size,
)

__all__ = ["WORKER_PRELOAD", "Fetcher", "RenderMode", "fetch", "fetch_document", "take_screenshot", "worker_pool"]

RenderMode = Literal["auto", "always", "never"]
"""auto: render only when the plain read fails (an empty JavaScript shell, ...); always; never."""
_RENDERED_TYPE = "text/html; charset=utf-8"

_NAMESPACE = "fetch"
MAX_QUERY_CHARS = 1_000
WORKER_PRELOAD = ("weblens.fetch.extract", "weblens.fetch.html", "weblens.fetch.pdf", "weblens.fetch.reading",
                  "weblens.fetch.office")  # fmt: skip
"""What every worker process needs, imported once by the forkserver and shared by the workers."""
READ_IN_WORKER_CHARS = 200_000
"""Reading a document this long for a query takes over ~15 ms of GIL-holding CPU: a worker does it."""
_FETCH_TIMEOUT = "fetch_timeout_s"
"""In a timeout's details: the call's own deadline ran out (robots.txt and the download, wall-clock time)."""
_EXTRACT_TIMEOUT = "extract_timeout_s"
"""In a timeout's details: weblens' own reading of the page ran out of time, not the site."""
_READ_ON_NOTE = (
    "Read on from the copy the earlier page came from, older than this call's max_age or the cache's "
    "freshness: start_index counts characters of that copy. For a newer copy, start again at start_index=0."
)
_DOWNLOADED_AGAIN_NOTE = (
    "This page was downloaded again, not read from the copy the earlier page came from: the text may have "
    "changed since the earlier page, and characters may be repeated or missing at start_index."
)


def _age(data: dict[str, object]) -> float:
    """Seconds since a cached document was downloaded (infinite for one cached without the time)."""
    fetched_at = data.get("fetched_at")
    return max(0.0, time.time() - fetched_at) if isinstance(fetched_at, int | float) else float("inf")


def _check_max_age(max_age: object) -> None:
    """A number of seconds, 0 or more; infinity (or anything past `fetch.cache_ttl_s`) means any cached copy."""
    if max_age is None:
        return
    if isinstance(max_age, bool) or not isinstance(max_age, int | float) or max_age != max_age or max_age < 0:
        raise ToolValidationError(f"max_age must be 0 (fetch now) or more seconds, not {max_age!r:.40}")


def _origin_failed(exc: WeblensError) -> bool:
    """Whether `exc` is the origin failing (RFC 5861's errors: a 5xx answer, unreachable, too slow), so a
    stale copy may stand in; an answer such as 404, 410, 401 or 403, every refusal, and weblens' own
    reading running out of time (the site answered) are not."""
    if isinstance(exc, UpstreamError):
        return exc.status is None or exc.status >= 500
    if isinstance(exc, BlockedError):  # only robots.txt unreadable (5xx, unreachable): the site failing
        return "robots_status" in exc.details
    if isinstance(exc, WorkerTimeoutError) or _EXTRACT_TIMEOUT in exc.details:
        return False
    return isinstance(exc, ToolTimeoutError)


def _kept_for(seconds: float, data: dict[str, object]) -> float:
    """How long to cache a document: not at all when its site said `no-store`."""
    return 0.0 if data.get("no_store") else seconds


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


def _document(got: Downloaded, out: Extracted, **rendering: object) -> Document:
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
        fetched_at=got.fetched_at,
        no_store=got.no_store,
        **rendering,
    )


@dataclasses.dataclass(frozen=True)
class _Freshness:
    """How old a cached copy may be (`max_age`), and whether a stale one may stand in for a failed origin."""

    max_age: float | None = None
    stale_if_error: bool = False
    continuing: bool = False
    """A later page (`start_index` > 0): its offsets count in the copy the earlier page came from, so
    that copy is read while one is kept, whatever `max_age` says."""


def _joined(said: object, note: str) -> str:
    """`note` after what a document or page already says."""
    return f"{said} {note}" if said else note


def _noted(document: Document, note: str) -> Document:
    """`document` with `note` added to what it already says."""
    return document.model_copy(update={"note": _joined(document.note, note)})


def _as_asked(document: Document, url: str) -> Document:
    """A copy cached for the same address with another #fragment (never sent to the server), showing
    the address as this call gave it."""
    if document.url == url:
        return document
    update = {"url": url}
    if document.final_url == document.url:  # not redirected: it ended where it was asked
        update["final_url"] = url
    return document.model_copy(update=update)


def _deadline_passed(url: object, limit: float) -> ToolTimeoutError:
    # the whole budget is spent: trying again within it cannot succeed
    return ToolTimeoutError(
        f"fetching {url} took longer than {limit:g} s (wall-clock time of the robots.txt check and the download)",
        retryable=False,
        details={"measured": "wall_clock", _FETCH_TIMEOUT: limit},
    )


@contextlib.asynccontextmanager
async def _within(deadline: float, target: httpx.URL, limit: float) -> AsyncIterator[None]:
    try:
        async with asyncio.timeout_at(deadline):
            yield
    except TimeoutError:
        raise _deadline_passed(target, limit) from None


class Fetcher(AsyncClosing):
    """Fetches under one set of settings: the SSRF guard, its pinned client, the cache, and
    the domain policy (`policy`, default the configured one), checked before any request.

    `client` should come from `weblens.net.guarded.guarded_client`; another client is
    checked before each hop but not pinned to the checked address. Without one, the
    fetcher builds its guarded client on first use and closes it in `aclose()`.
    `tokenizer` counts `max_tokens` budgets; by default o200k_base, loaded on first use.
    `workers` run decoding, extraction and the reading of long documents under a hard
    deadline (`fetch.extract_timeout`); without one, the fetcher builds its own pool
    (`fetch.workers`) and closes it in `aclose()`. HTML, text and JSON pages up to
    `fetch.in_process_bytes` are read in a thread of this process instead (a one-shot command
    need not start the pool); documents, PDFs and images never are (a small file can inflate).
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
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self._tokenizer = tokenizer
        self._default_tokenizer = tokenizer is None  # then a worker can count with its own copy
        self._own_workers = workers is None
        self.workers = workers if workers is not None else worker_pool(settings)
        self._in_process = WorkerPool(0)  # a thread: for pages up to `fetch.in_process_bytes`
        self.guard = guard_for(settings.fetch, resolver)
        self.policy = policy if policy is not None else settings.policy.domains()
        self._own: LazyClient | None = None
        self._http: ClientGetter
        if client is None:
            self._http = self._own = LazyClient(lambda: fetch_client(settings.fetch, self.guard))
        else:
            self._http = getter_for(client)
        self.browser = BrowserPool.for_fetches(settings, self.guard, self._http, self.policy.check, metrics=metrics)
        """Renders pages that need a browser; nothing starts before the first render."""
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
        await self.browser.aclose()
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
        render: RenderMode = "auto",
        wait_for: str | None = None,
        scroll: int = 0,
        max_age: float | None = None,
        stale_if_error: bool = False,
        continuing: bool = False,
    ) -> tuple[Document, bool]:
        """(the whole document, whether it came from the cache). See `fetch` for the arguments;
        `continuing`: for a later page (`start_index` > 0), read the copy the earlier page came from
        while one is kept, whatever `max_age` says, so its offsets hold."""
        _check_max_age(max_age)
        if render not in get_args(RenderMode):
            raise ToolValidationError(f"render must be one of auto, always or never, not {render!r}")
        if not 0 <= scroll <= MAX_SCROLL:
            raise ToolValidationError(f"scroll must be between 0 and {MAX_SCROLL} screens")
        if timeout is not None and timeout <= 0:
            raise ToolValidationError("timeout must be positive")
        if (wait_for or scroll) and render == "never":
            raise ToolValidationError("wait_for and scroll need a browser: use render='auto' or 'always'")
        target = self.guard.check_url(url)
        self.policy.check(str(target))
        fresh = _Freshness(max_age, stale_if_error, continuing)
        if render == "always" or wait_for or scroll:
            return await self._rendered(
                target, "requested", raw, timeout, respect_robots, use_cache, wait_for, scroll, fresh
            )
        plain, cached = await self._plain(target, raw, timeout, respect_robots, use_cache, fresh)
        reason = plain.render_reason
        if reason is None or raw:
            return plain, cached
        if render == "never":
            return _noted(plain, f"It was not rendered (render='never'); {RENDER_REASONS[reason]}."), cached
        try:
            rendered, rendered_cached = await self._rendered(
                target, reason, raw, timeout, respect_robots, use_cache, None, 0, fresh
            )
        except NotConfiguredError:
            return _noted(plain, f"{RENDER_REASONS[reason]}; a browser would read it: {HOW_TO_GET_ONE}."), cached
        except WeblensError as exc:
            return _noted(plain, f"{RENDER_REASONS[reason]}; rendering it in a browser failed: {exc.message}"), cached
        if len(rendered.content.strip()) <= len(plain.content.strip()):
            return _noted(plain, "Rendered in a browser, it showed no more text."), cached
        return rendered, rendered_cached

    async def screenshot(
        self,
        url: str,
        *,
        full_page: bool = False,
        image_format: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
        wait_for: str | None = None,
        timeout: float | None = None,
    ) -> Screenshot:
        """A screenshot of `url`, under the same guard, policy and deadline as a render (never cached)."""
        if image_format not in ("png", "jpeg"):
            raise ToolValidationError(f"format must be png or jpeg, not {image_format!r}")
        if quality is not None and not 1 <= quality <= 100:
            raise ToolValidationError("quality must be between 1 and 100")
        if timeout is not None and timeout <= 0:
            raise ToolValidationError("timeout must be positive")
        target = self.guard.check_url(url)
        self.policy.check(str(target))
        self.browser.choice()
        config = self.settings.fetch
        limit = config.render_timeout if timeout is None else min(timeout, config.render_timeout)
        deadline = asyncio.get_running_loop().time() + limit
        await self.guard.check_target(target)
        shot = await screenshot(
            self.browser, str(target), deadline=deadline, full_page=full_page, image_format=image_format,
            quality=quality, wait_for=wait_for,
        )  # fmt: skip
        self.policy.check(shot.final_url)
        return shot

    def _key(self, target: httpx.URL, raw: bool, *rendering: object) -> str:
        # the policy is part of the key: a page fetched under a looser guard is not served to a stricter one
        # the #fragment is never sent to the server: `page#a` and `page#b` are one download
        config = self.settings.fetch
        address = str(target.copy_with(fragment=None))
        return cache_key(address, raw, config.allow_private, sorted(config.allowed_hosts), *rendering)

    async def _robots(
        self, http: httpx.AsyncClient, target: httpx.URL, respect_robots: bool | None, deadline: float, limit: float
    ) -> tuple[RobotsPolicy | None, WeblensError | None]:
        """robots.txt checked for `target` when asked (within the call's deadline): the policy for later
        hops, or the refusal because the site failed to serve robots.txt (5xx, unreachable, too slow). That
        one forbids a download (RFC 9309) but, the site having failed, a stale copy may stand in for it."""
        config = self.settings.fetch
        if not self._robots_on(respect_robots):
            return None, None
        robots = RobotsPolicy(
            http, self.cache, config.user_agent, config.cache_ttl_s, guard=self.guard, policy=self.policy.check
        )
        try:
            async with _within(deadline, target, limit):
                if not is_guarded(http):  # a caller's own client: check the name before robots.txt is asked
                    await self.guard.resolve(target.host, target.port or default_port(target.scheme))
                await robots(target)
        except (BlockedError, ToolTimeoutError) as exc:
            if isinstance(exc, BlockedError) and "robots_status" not in exc.details:
                raise  # robots.txt disallows the page: a refusal, never covered by a stale copy
            return None, exc
        return robots, None

    def _robots_on(self, respect_robots: bool | None) -> bool:
        return self.settings.fetch.respect_robots if respect_robots is None else respect_robots

    def _sharing(self, respect_robots: bool | None, outage: WeblensError | None, limit: float) -> tuple[object, ...]:
        """What calls sharing one download must agree on: the robots rule (and its verdict) and the deadline."""
        return self._robots_on(respect_robots), outage is None, limit

    async def _plain(
        self,
        target: httpx.URL,
        raw: bool,
        timeout: float | None,
        respect_robots: bool | None,
        use_cache: bool,
        fresh: _Freshness,
    ) -> tuple[Document, bool]:
        """The page as a browser without JavaScript reads it."""
        config = self.settings.fetch
        limit = config.timeout if timeout is None else min(timeout, config.timeout)
        http = self.http
        # one deadline for the robots.txt check and the download: neither may outlast `limit`
        deadline = asyncio.get_running_loop().time() + limit
        robots, outage = await self._robots(http, target, respect_robots, deadline, limit)

        async def compute() -> dict[str, object]:
            if outage is not None:
                raise outage
            async with _within(deadline, target, limit):
                got = await download(
                    target, client=http, guard=self.guard, config=config, robots=robots, policy=self.policy.check
                )
            out = await self._extract(got, raw, deadline)
            return _document(got, out, render_reason=out.render_reason).model_dump()

        share_by = self._sharing(respect_robots, outage, limit)
        return await self._cached(target, self._key(target, raw), compute, use_cache, fresh, share_by, deadline)

    async def _rendered(
        self,
        target: httpx.URL,
        reason: str,
        raw: bool,
        timeout: float | None,
        respect_robots: bool | None,
        use_cache: bool,
        wait_for: str | None,
        scroll: int,
        fresh: _Freshness,
    ) -> tuple[Document, bool]:
        """The page as the browser rendered it; every request it made went through the guard proxy."""
        config = self.settings.fetch
        limit = config.render_timeout if timeout is None else min(timeout, config.render_timeout)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        self.browser.choice()  # no browser: not_configured, before anything is downloaded
        _, outage = await self._robots(self.http, target, respect_robots, deadline, limit)

        async def compute() -> dict[str, object]:
            if outage is not None:
                raise outage
            await self.guard.check_target(target)  # a clear refusal now rather than a failed page load
            page = await render(self.browser, str(target), deadline=deadline, wait_for=wait_for, scroll=scroll)
            if page.status >= 400:
                raise status_error(page.status, page.final_url, httpx.Headers())
            self.policy.check(page.final_url)
            body = page.html.encode()
            if len(body) > config.max_bytes:
                raise TooLargeError(
                    f"the rendered page {page.final_url} is larger than the {config.max_bytes:,} byte cap "
                    "(fetch.max_bytes)"
                )
            no_store = forbids_storing(httpx.Headers(page.headers))
            got = Downloaded(str(target), page.final_url, page.status, _RENDERED_TYPE, body, no_store=no_store)
            out = await self._extract(got, raw, loop.time() + config.extract_timeout)
            if page.notes:
                out.note = " ".join(filter(None, (out.note, *(f"{n[0].upper()}{n[1:]}." for n in page.notes))))
            document = _document(got, out, rendered=True, render_reason=reason, render_ms=round(page.seconds * 1000))
            return document.model_dump()

        key = self._key(target, raw, "rendered", wait_for, scroll)
        share_by = self._sharing(respect_robots, outage, limit)
        return await self._cached(target, key, compute, use_cache, fresh, share_by, deadline)

    async def _cached(
        self,
        target: httpx.URL,
        key: str,
        compute: Callable[[], Awaitable[dict[str, object]]],
        use_cache: bool,
        fresh: _Freshness,
        share_by: tuple[object, ...],
        deadline: float,
    ) -> tuple[Document, bool]:
        """(the document, whether cached): a cached copy no older than `max_age` (and
        `fetch.cache_ttl_s`; 0 is never fresh), or for a later page any copy kept; else a new
        download; when that fails at the origin and `stale_if_error`, the copy kept
        `fetch.stale_ttl_s` longer, marked stale."""

        def done(data: dict[str, object], cached: bool) -> tuple[Document, bool]:
            document = Document.model_validate(data)
            self.policy.check(document.final_url)  # a cached page may have been redirected where policy now forbids
            return _as_asked(document, str(target)), cached

        config = self.settings.fetch
        fresh_for = config.cache_ttl_s if fresh.max_age is None else min(fresh.max_age, config.cache_ttl_s)
        kept_for = config.cache_ttl_s + config.stale_ttl_s
        kept = await self.cache.get(_NAMESPACE, key) if use_cache or fresh.stale_if_error else None
        if kept is not None and use_cache:
            if fresh_for > 0 and _age(kept) <= fresh_for:
                return done(kept, True)
            if fresh.continuing:
                return done({**kept, "note": _joined(kept.get("note"), _READ_ON_NOTE)}, True)
        try:
            data = await self._shared(key, compute, kept_for, share_by, deadline)
        except WeblensError as exc:
            if not fresh.stale_if_error or kept is None or not _origin_failed(exc):
                raise
            # the reason quotes the URL: the values of its secret query parameters are masked
            return done({**kept, "stale": True, "stale_reason": redact_text(f"{exc.code}: {exc.message}")}, True)
        if data.get("no_store"):  # the site now says no-store: a copy kept from before must go too
            await self.cache.delete(_NAMESPACE, key)
        return done(data, False)

    async def _shared(
        self,
        key: str,
        compute: Callable[[], Awaitable[dict[str, object]]],
        kept_for: float,
        share_by: tuple[object, ...],
        deadline: float,
    ) -> dict[str, object]:
        """`compute()`, or the outcome of the same download another call started under the same rules
        (`share_by`). That call's deadline running out is not this call's while its own has not
        passed: it then downloads on its own."""
        ran = False

        async def ours() -> dict[str, object]:
            nonlocal ran
            ran = True
            return await compute()

        ttl = functools.partial(_kept_for, kept_for)
        while True:
            try:
                data: dict[str, object]
                data, _ = await self.cache.get_or_compute(_NAMESPACE, key, ttl, ours, use_cache=False,
                                                          share_by=share_by)  # fmt: skip
                return data
            except ToolTimeoutError as exc:
                late = asyncio.get_running_loop().time() >= deadline
                if ran or late or _FETCH_TIMEOUT not in exc.details:
                    raise

    async def read(self, got: Downloaded, *, raw: bool = False) -> Document:
        """The document in a body downloaded elsewhere (a crawl), read in a worker like a fetched one."""
        out = await self._extract(got, raw, asyncio.get_running_loop().time() + self.settings.fetch.extract_timeout)
        return _document(got, out, render_reason=out.render_reason)

    async def _extract(self, got: Downloaded, raw: bool, deadline: float) -> Extracted:
        """`extract` in a worker, within `fetch.extract_timeout` and what is left of the fetch's deadline."""
        left = deadline - asyncio.get_running_loop().time()
        limit = min(self.settings.fetch.extract_timeout, left)
        if limit <= 0:
            raise _deadline_passed(got.final_url, self.settings.fetch.timeout)
        done = f"downloaded {len(got.body):,} bytes from {got.final_url}"
        work = functools.partial(extract, got.body, got.content_type, got.final_url, raw=raw, time_limit=limit)
        small = self.settings.fetch.in_process_bytes or 0
        # a document, PDF or image can inflate far past its size: only a worker's limits hold it; and one
        # page at a time here, as a second would wait for the first's GIL and its deadline count that
        in_process = (
            0 < len(got.body) <= small
            and not inflates(got.body, got.content_type, got.final_url)
            and self._in_process.threads_busy == 0
        )
        try:
            return await (self._in_process if in_process else self.workers).run(work, timeout=limit)
        except WorkerTimeoutError as exc:
            raise ToolTimeoutError(
                f"{done}; extracting its text was stopped (the page is too large or too complex to read "
                f"in time): {exc.message}",
                retryable=False,
                details={**exc.details, "url": got.final_url, "bytes": len(got.body), _EXTRACT_TIMEOUT: limit},
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
        except WorkerTimeoutError as exc:
            raise ToolTimeoutError(
                f"reading the {document.total_length:,} characters of {document.final_url} for this request "
                f"was stopped: {exc.message}",
                retryable=False,
                details=exc.details,
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
        render: RenderMode = "auto",
        wait_for: str | None = None,
        scroll: int = 0,
        max_age: float | None = None,
        stale_if_error: bool = False,
    ) -> Page:
        """One page of `url`'s text; see the module-level `fetch`."""
        query = self.page_query(max_length=max_length, start_index=start_index, query=query, max_tokens=max_tokens)
        document, cached = await self.document(
            url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache, render=render,
            wait_for=wait_for, scroll=scroll, max_age=max_age, stale_if_error=stale_if_error,
            continuing=start_index > 0,
        )  # fmt: skip
        return await self.page(
            document, cached, start_index=start_index, max_length=max_length, query=query, max_tokens=max_tokens
        )

    @staticmethod
    def page_query(
        *, max_length: int | None = None, start_index: int = 0, query: str | None = None, max_tokens: int | None = None
    ) -> str | None:
        """Checks a page's arguments before anything is downloaded; returns the query, its whitespace collapsed."""
        if max_length is not None and max_length <= 0:
            raise ToolValidationError("max_length must be a positive number of characters")
        if start_index < 0:
            raise ToolValidationError("start_index must not be negative")
        if max_tokens is not None and max_tokens <= 0:
            raise ToolValidationError("max_tokens must be a positive number of tokens")
        query = " ".join(query.split()) if query else None
        if query is not None and len(query) > MAX_QUERY_CHARS:
            raise ToolValidationError(f"query must be at most {MAX_QUERY_CHARS} characters")
        return query

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
            default_length=self.settings.fetch.max_length,
            query=query,
            max_tokens=max_tokens,
            query_tokens=self.settings.fetch.query_max_tokens,
        )
        page = read() if query is None and max_tokens is None else await self._read(document, read)
        if cached and document.fetched_at is not None:
            page.age_s = round(max(0.0, time.time() - document.fetched_at), 3)
        if start_index > 0 and not cached:
            page.note = _joined(page.note, _DOWNLOADED_AGAIN_NOTE)
        return page


@contextlib.asynccontextmanager
async def _using(
    fetcher: Fetcher | None,
    settings: Settings | None,
    client: httpx.AsyncClient | None,
    cache: Cache | None,
    resolver: Resolver | None,
) -> AsyncIterator[Fetcher]:
    """`fetcher`; without it or anything to build one from, the event loop's shared one;
    else one built for this call and closed after it."""
    if fetcher is None and settings is None and client is None and cache is None and resolver is None:
        fetcher = loop_local("fetch.fetcher", Fetcher.from_settings)
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
    render: RenderMode = "auto",
    wait_for: str | None = None,
    scroll: int = 0,
    max_age: float | None = None,
    stale_if_error: bool = False,
) -> tuple[Document, bool]:
    """(the whole document, whether it came from the cache). See `fetch` for the arguments."""
    async with _using(fetcher, settings, client, cache, resolver) as using:
        return await using.document(
            url, raw=raw, timeout=timeout, respect_robots=respect_robots, use_cache=use_cache, render=render,
            wait_for=wait_for, scroll=scroll, max_age=max_age, stale_if_error=stale_if_error,
        )  # fmt: skip


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
    render: RenderMode = "auto",
    wait_for: str | None = None,
    scroll: int = 0,
    max_age: float | None = None,
    stale_if_error: bool = False,
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
    (a `weblens.Runtime`) to share its client and cache; given `settings`, `client`, `cache`
    or `resolver`, a fetcher is built from them for this call and closed afterwards; given
    none of these, calls in one event loop share one fetcher (built on first use, closed
    when the loop shuts down).
    `render`: "auto" (default) renders the page in a browser only when the plain read fails
    (an empty JavaScript shell, a notice asking for JavaScript, an empty app root, scripts far
    outweighing the text); "always" renders, "never" does not. `wait_for` (a CSS selector) and
    `scroll` (screens) shape the render and imply it. The page says `rendered`, `render_reason`
    and `render_ms`. Raises `WeblensError` subclasses (`blocked`, `too_large`, `unsupported_content`,
    `not_found`, `timeout`, `upstream_error`, `not_configured` for render="always" without a browser, ...).
    Freshness: `max_age` (seconds) takes a cached copy only that young (0 = download now);
    `stale_if_error` serves the cached copy, marked `stale` with the `stale_reason`, when the
    download fails at the origin (5xx, unreachable, too slow; not a 404, 410, 401, 403 or 429,
    any refusal, nor weblens' own reading running out of time), kept `fetch.stale_ttl_s` past its
    freshness. A later page (`start_index` > 0) reads the copy the earlier page came from while
    one is kept, whatever `max_age` says; downloaded again, its note says the text may have
    changed. `page.age_s` says how old the text is, counted from its download. A page sent with
    `Cache-Control: no-store` is not cached (`page.no_store`).
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
            render=render,
            wait_for=wait_for,
            scroll=scroll,
            max_age=max_age,
            stale_if_error=stale_if_error,
        )


async def take_screenshot(
    url: str,
    *,
    full_page: bool = False,
    image_format: Literal["png", "jpeg"] = "png",
    quality: int | None = None,
    wait_for: str | None = None,
    timeout: float | None = None,
    settings: Settings | None = None,
    fetcher: Fetcher | None = None,
) -> Screenshot:
    """A PNG (or JPEG) of `url` as a browser shows it: `shot.image` (bytes), `shot.width`,
    `shot.height`. The viewport (1280×800), or with `full_page` the whole page cut at
    `browser.max_screenshot_height`. Every request the page makes goes through the SSRF guard
    and the domain policy; `not_configured` says how to get a browser when there is none."""
    async with _using(fetcher, settings, None, None, None) as using:
        return await using.screenshot(
            url, full_page=full_page, image_format=image_format, quality=quality, wait_for=wait_for, timeout=timeout
        )
