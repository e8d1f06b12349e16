"""`crawl(url)`: the pages of a site, read politely, within one token and one time budget.

Seeds come from the map (sitemaps, llms.txt) and from the links of each page read;
breadth-first, or best-first by relevance when there is a query. Every download goes
through `SiteClient` (guard, policy, robots.txt always, `Crawl-delay`, per-host slots,
429 back-off). Traps are bounded by depth, URL shape (length, repeating segments, query
parameters), query variants per path, and pages whose text was already read.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import itertools
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from weblens.errors import ToolValidationError, WeblensError
from weblens.fetch.document import Document, Page
from weblens.fetch.fetcher import MAX_QUERY_CHARS, Fetcher
from weblens.progress import report
from weblens.sites.client import DEFAULT_CONCURRENCY, SiteClient
from weblens.sites.map import MAX_MAP_URLS, SiteMapper
from weblens.sites.parse import page_links
from weblens.sites.relevance import Relevance
from weblens.sites.scope import Scope, variant_of
from weblens.urls import canonical_url

__all__ = [
    "FRONTIER_PER_PAGE",
    "MAX_CRAWL_DEPTH",
    "MAX_CRAWL_PAGES",
    "Crawl",
    "CrawlResult",
    "CrawledPage",
    "FailedPage",
    "crawl",
]

MAX_CRAWL_PAGES = 100
MAX_CRAWL_DEPTH = 5
MAX_QUERY_VARIANTS = 3
"""URLs read per path that differ only in their query (a calendar's ?month=, a shop's facets)."""
MIN_PAGE_TOKENS = 50
"""A page's share of max_tokens is never below this; when less is left the crawl stops."""
_ATTEMPTS_PER_PAGE = 3
"""Downloads at most per page asked for: failures and duplicates cannot run a crawl for ever."""
_SEEDS_PER_PAGE = 5
FRONTIER_PER_PAGE = 20
"""URLs kept queued per page asked for: a crawl downloads at most 3 per page, so more are never read.
A site whose every page links thousands of new URLs (a generated listing, a trap) filled the queue
without end: 500 000 URLs and 180 MB for a 100-page crawl, and minutes past its time budget."""
_LEFT_SHOWN = 50


class CrawledPage(BaseModel):
    url: str
    final_url: str
    title: str
    depth: int
    text: str
    """Markdown of the page, or with a query the passages that answer it."""
    tokens: int | None = None
    score: float | None = None
    """Relevance to the query (0–1), comparable across pages; None without a query."""
    truncated: bool = False
    """The page has more text than its share of the budget showed."""


class FailedPage(BaseModel):
    url: str
    depth: int
    code: str
    message: str


class CrawlResult(BaseModel):
    url: str
    query: str | None = None
    pages: list[CrawledPage] = Field(default_factory=list)
    """Best first with a query, else in the order they were read."""
    failed: list[FailedPage] = Field(default_factory=list)
    skipped: dict[str, int] = Field(default_factory=dict)
    """URLs not read, by reason: robots, trap, duplicate (same text as a page read), off_site, filtered,
    not_a_page (audio, video, archives, programs, fonts: files no reader reads)."""
    partial: bool = False
    """The time budget ran out; `left` holds what was still to read."""
    left: list[str] = Field(default_factory=list)
    left_count: int = 0
    limits: list[str] = Field(default_factory=list)


@dataclass(order=True)
class _Item:
    priority: tuple[float, ...]
    url: str = field(compare=False)
    depth: int = field(compare=False)
    key: str = field(compare=False, default="")


def text_key(text: str) -> str:
    """Pages whose text differs only in spacing and case are one page (the duplicate check)."""
    return hashlib.sha1(" ".join(text.split()).lower().encode(), usedforsecurity=False).hexdigest()


@dataclass
class Downloaded:
    """A page downloaded and read to a document, with the links it offers to follow."""

    final_url: str
    document: Document
    links: list[tuple[str, str]]


async def download_page(
    client: SiteClient, scope: Scope, url: str, depth: int, max_depth: int, *, anywhere: bool = False
) -> Downloaded | str:
    """`url` politely downloaded and read, or why it is skipped ("robots", "off_site" after redirects;
    `anywhere`: wherever redirects lead, for the start page). Links are taken only below `max_depth`.
    Shared by crawls and crawl jobs."""
    rules = await client.rules(url)
    if not client.allows(rules, url):
        return "robots"
    got = await client.get(url)
    if not anywhere and not scope.on_site(got.final_url):
        return "off_site"
    links: list[tuple[str, str]] = []
    if "html" in got.content_type.lower() and depth < max_depth:
        _, found = await asyncio.to_thread(page_links, got.body, got.final_url)
        links = [(link.url, link.text) for link in found]
    return Downloaded(got.final_url, await client.fetcher.read(got), links)


async def read_page(
    client: SiteClient,
    got: Downloaded,
    url: str,
    depth: int,
    query: str | None,
    relevance: Relevance | None,
    max_tokens: int | None,
) -> CrawledPage:
    """The page as a crawl returns it: markdown, or the passages that answer `query`, in `max_tokens`."""
    page: Page = await client.fetcher.page(got.document, query=query, max_tokens=max_tokens)
    score = None if relevance is None else relevance.score(got.final_url, got.document.title, page.content)
    return CrawledPage(
        url=url, final_url=got.final_url, title=got.document.title, depth=depth, text=page.content,
        tokens=page.tokens, truncated=page.truncated, score=score,
    )  # fmt: skip


class Crawl:
    """One crawl of `url`'s site. Iterate it (`async for page in crawl`) to get pages as they
    arrive, or `await crawl.run()` for the whole result; `crawl.result` holds failures and what
    was left. Pass `fetcher=runtime.fetcher` to share a runtime's client and cache, else one is
    built from the settings for the crawl and closed after it."""

    def __init__(
        self,
        url: str,
        *,
        fetcher: Fetcher | None = None,
        query: str | None = None,
        max_pages: int = 10,
        max_depth: int = 2,
        include_paths: Sequence[str] = (),
        exclude_paths: Sequence[str] = (),
        max_tokens: int | None = None,
        time_budget_s: float = 60.0,
        subdomains: bool = False,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if not 1 <= max_pages <= MAX_CRAWL_PAGES:
            raise ToolValidationError(f"max_pages must be 1 to {MAX_CRAWL_PAGES}")
        if not 0 <= max_depth <= MAX_CRAWL_DEPTH:
            raise ToolValidationError(f"max_depth must be 0 to {MAX_CRAWL_DEPTH}")
        if max_tokens is not None and max_tokens < MIN_PAGE_TOKENS:
            raise ToolValidationError(f"max_tokens must be at least {MIN_PAGE_TOKENS}")
        if time_budget_s <= 0:
            raise ToolValidationError("time_budget_s must be positive")
        query = " ".join(query.split()) if query else None
        if query is not None and len(query) > MAX_QUERY_CHARS:
            raise ToolValidationError(f"query must be at most {MAX_QUERY_CHARS} characters")
        self._fetcher = fetcher
        self.url = url
        self.query = query
        self.max_pages = max_pages
        self.max_depth = max_depth
        self.scope = Scope(url, subdomains=subdomains, include_paths=include_paths, exclude_paths=exclude_paths)
        self.relevance = Relevance(query) if query else None
        self.max_tokens = max_tokens
        self.time_budget_s = time_budget_s
        self.concurrency = concurrency
        self.result = CrawlResult(url=url, query=query)
        self._frontier: list[_Item] = []
        self._cap = max_pages * FRONTIER_PER_PAGE
        self._queued: dict[str, float] = {}
        """Canonical URL -> the best score it was queued with (a URL may sit in the heap twice)."""
        self._visited: set[str] = set()
        self._variants: Counter[str] = Counter()
        self._texts: set[str] = set()
        self._tokens_left = max_tokens
        self._order = itertools.count()
        self._start: Downloaded | str | WeblensError | None = None
        self._said_full = False
        """The start page, downloaded before the map (see `_moved`) and read in turn with the others."""

    def _skip(self, reason: str) -> None:
        self.result.skipped[reason] = self.result.skipped.get(reason, 0) + 1

    def _full(self) -> None:
        if not self._said_full:  # once: a full breadth-first queue turns away every further link
            self._said_full = True
            self.result.limits.append(f"at most {self._cap} URLs queued: further links were not followed")

    def _trim(self) -> None:
        """Keep the best `_cap` queued URLs (best-first: a later link may beat what is queued)."""
        self._frontier = heapq.nsmallest(self._cap, self._frontier)  # sorted, so still a heap
        kept: dict[str, float] = {}
        for item in self._frontier:
            kept[item.key] = max(kept.get(item.key, -1.0), -item.priority[0])
        self._queued = kept
        self._full()

    def _push(self, url: str, depth: int, text: str | None = None, *, seed: bool = False) -> None:
        if not seed and self.relevance is None and len(self._frontier) >= self._cap:
            # breadth-first: a new link comes after everything queued, which is already more than will be read
            return self._full()
        key = canonical_url(url)
        if key in self._visited:
            return
        order = float(next(self._order))
        score = 1.0 if seed else self.relevance.score(url, text) if self.relevance is not None else 0.0
        known = self._queued.get(key)
        if known is not None:  # queued already: a link that says more about it moves it up
            if self.relevance is not None and score > known:
                self._queued[key] = score
                heapq.heappush(self._frontier, _Item((-score, float(depth), order), url, depth, key))
                if len(self._frontier) > 2 * self._cap:
                    self._trim()
            return
        if not seed:
            refusal = self.scope.refusal(url)
            if refusal is not None:
                return self._skip(refusal)
            variant = variant_of(key)
            if variant is not None:
                self._variants[variant] += 1
                if self._variants[variant] > MAX_QUERY_VARIANTS:
                    return self._skip("trap")
        self._queued[key] = score
        priority = (-score, float(depth), order) if self.relevance is not None else (float(depth), order)
        heapq.heappush(self._frontier, _Item(priority, url, depth, key))
        if len(self._frontier) > 2 * self._cap:
            self._trim()

    def _share(self) -> int | None:
        """This page's part of what is left of max_tokens: an equal split over the pages still to come."""
        if self._tokens_left is None:
            return None
        slots = max(1, self.max_pages - len(self.result.pages))
        share = max(MIN_PAGE_TOKENS, self._tokens_left // slots)
        self._tokens_left -= share
        return share

    async def _visit(self, item: _Item) -> tuple[CrawledPage | None, list[tuple[str, str]]]:
        """(the page, or None when it is not one to keep; the links to follow from it)."""
        report(f"crawl: reading {item.url}", done=len(self.result.pages), total=self.max_pages)
        got: Downloaded | str | WeblensError | None = None
        if item.depth == 0:  # the start page: downloaded already by `_moved`
            got, self._start = self._start, None
        if isinstance(got, WeblensError):
            raise got
        if got is None:
            got = await download_page(self.client, self.scope, item.url, item.depth, self.max_depth)
        if isinstance(got, str):
            self._skip(got)
            return None, []
        key = text_key(got.document.content)
        if key in self._texts:
            self._skip("duplicate")
            return None, []
        self._texts.add(key)
        if not self.scope.wanted(got.final_url if item.depth == 0 else item.url):  # the start page, for its links
            return None, got.links
        if self._tokens_left is not None and self._tokens_left < MIN_PAGE_TOKENS:
            return None, []
        share = self._share()
        try:
            page = await read_page(self.client, got, item.url, item.depth, self.query, self.relevance, share)
        finally:
            if share is not None and self._tokens_left is not None:
                self._tokens_left += share  # given back, then what was used taken below
        if share is not None and self._tokens_left is not None:
            self._tokens_left -= min(share, page.tokens or 0)
        return page, got.links

    async def _moved(self) -> str:
        """Where the crawl goes: the start URL, or the site it redirected to (`old.example` ->
        `new.example`), whose pages are then the ones on the site. The start page is downloaded
        here, once, and read in turn with the others."""
        report(f"crawl: reading {self.url}")
        try:
            self._start = await download_page(self.client, self.scope, self.url, 0, self.max_depth, anywhere=True)
        except WeblensError as exc:
            self._start = exc
            return self.url
        if isinstance(self._start, str):
            return self.url
        final = canonical_url(self._start.final_url)
        if final != canonical_url(self.url):  # the page it redirected to is read as the start page, not again
            self._visited.add(final)
        if self.scope.on_site(self._start.final_url):
            return self.url
        self.scope = self.scope.moved_to(self._start.final_url)
        return self._start.final_url

    async def _seed(self) -> None:
        self._push(self.url, 0, seed=True)
        site = await self._moved()
        if self.max_depth < 1:
            return
        report("crawl: mapping the site")
        left = self._deadline - asyncio.get_running_loop().time()
        mapper = SiteMapper(  # at most half the time left: the pages are what the crawl is for
            self.client,
            site,
            query=self.query,
            max_urls=min(MAX_MAP_URLS, self.max_pages * _SEEDS_PER_PAGE),
            include_paths=self.scope.include,
            exclude_paths=self.scope.exclude,
            subdomains=self.scope.subdomains,
            start_page=False,
            time_budget_s=max(0.0, left / 2),
        )
        found = await mapper.run()
        self.result.limits.extend(limit for limit in found.limits if not limit.startswith("max_urls="))
        for entry in found.urls:
            self._push(entry.url, 1, entry.title)

    def __aiter__(self) -> AsyncIterator[CrawledPage]:
        return self._pages()

    async def _pages(self) -> AsyncIterator[CrawledPage]:
        loop = asyncio.get_running_loop()
        deadline = self._deadline = loop.time() + self.time_budget_s
        running: dict[asyncio.Task[tuple[CrawledPage | None, list[tuple[str, str]]]], _Item] = {}
        attempts = 0
        own: Fetcher | None = None
        if self._fetcher is None:
            own = Fetcher.from_settings()
        self.client = SiteClient(self._fetcher or own)  # type: ignore[arg-type]
        try:
            try:
                async with asyncio.timeout_at(deadline):
                    await self._seed()
            except TimeoutError:
                self.result.partial = True
            except WeblensError as exc:
                self.result.failed.append(FailedPage(url=self.url, depth=0, code=exc.code, message=exc.message))
                return
            while not self.result.partial:
                while (
                    self._frontier
                    and len(running) < self.concurrency
                    and len(self.result.pages) + len(running) < self.max_pages
                    and attempts < self.max_pages * _ATTEMPTS_PER_PAGE
                ):
                    item = heapq.heappop(self._frontier)
                    if item.key in self._visited:
                        continue
                    self._visited.add(item.key)
                    attempts += 1
                    running[asyncio.ensure_future(self._visit(item))] = item
                if not running:
                    if self._frontier and attempts >= self.max_pages * _ATTEMPTS_PER_PAGE:
                        self.result.limits.append(f"stopped after {attempts} downloads")
                    break
                done, _ = await asyncio.wait(
                    running, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED
                )
                if not done:
                    self.result.partial = True
                    break
                for task in done:
                    item = running.pop(task)
                    try:
                        page, links = task.result()
                    except WeblensError as exc:
                        self.result.failed.append(
                            FailedPage(url=item.url, depth=item.depth, code=exc.code, message=exc.message)
                        )
                        continue
                    for url, text in links:
                        self._push(url, item.depth + 1, text)
                    if page is not None:
                        self.result.pages.append(page)
                        report(f"crawl: {len(self.result.pages)} of {self.max_pages} pages",
                               done=len(self.result.pages), total=self.max_pages)  # fmt: skip
                        yield page
                if self._tokens_left is not None and self._tokens_left < MIN_PAGE_TOKENS and not running:
                    self.result.limits.append(f"max_tokens={self.max_tokens} spent")
                    break
        finally:
            for task in running:
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*running, return_exceptions=True)
            waiting = [i.url for i in sorted(self._frontier) if i.key not in self._visited]
            left = list(dict.fromkeys([item.url for item in running.values()] + waiting))
            if self.result.partial:
                self.result.left_count = len(left)
                self.result.left = left[:_LEFT_SHOWN]
            if self.relevance is not None:
                self.result.pages.sort(key=lambda p: -(p.score or 0.0))
            if own is not None:
                await own.aclose()

    async def run(self) -> CrawlResult:
        async for _ in self:
            pass
        return self.result


crawl = Crawl
"""`weblens.crawl(url, ...)`: a `Crawl`, to iterate or to `run()`."""
