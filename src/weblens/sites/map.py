"""`map_site(url)`: the URLs of a site, from its sitemaps, its llms.txt and its start page.

Every file comes through `SiteClient` (guard, policy, robots.txt, size cap). A sitemap
bomb is bounded three ways — files read, nesting depth, and URLs kept — and a loop of
indexes by the set of sitemaps already read; each bound that stops the map is said in
`limits`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal, TypedDict, Unpack
from urllib.parse import urlsplit

from protego import Protego
from pydantic import BaseModel, Field

from weblens.errors import NotFoundError, ToolValidationError, WeblensError
from weblens.fetch.fetcher import Fetcher
from weblens.progress import report
from weblens.sites.client import SiteClient
from weblens.sites.parse import Link, inflate, llms_links, page_links, sitemap_entries
from weblens.sites.relevance import Relevance
from weblens.sites.scope import Scope
from weblens.urls import canonical_url

__all__ = ["MAX_MAP_URLS", "MapOptions", "MappedUrl", "SiteMap", "SiteMapper", "map_site"]

MAX_MAP_URLS = 5_000
MAX_SITEMAP_FILES = 50
MAX_SITEMAP_DEPTH = 3
"""An index of indexes of sitemaps is as deep as real sites go."""
_RANKING_POOL = 20
"""With a query, up to this many times `max_urls` candidates are gathered before ranking."""
MAX_ROBOTS_HOSTS = 10
"""With subdomains, the robots.txt of at most this many hosts is read."""

Found = Literal["sitemap", "llms.txt", "page"]


class MappedUrl(BaseModel):
    url: str
    found_in: Found
    """Where it was first found: a sitemap, the site's llms.txt, or a link on the start page."""
    lastmod: str | None = None
    title: str | None = None
    """The llms.txt or link text that names it, when there is one."""
    score: float | None = None
    """Relevance to the query, 0–1; None without a query."""


class SiteMap(BaseModel):
    url: str
    query: str | None = None
    urls: list[MappedUrl] = Field(default_factory=list)
    sources: dict[str, int] = Field(default_factory=dict)
    """How many URLs each source gave (before the cut to max_urls)."""
    left_out: dict[str, int] = Field(default_factory=dict)
    """URLs dropped, by reason: off_site, filtered, robots, duplicate, policy."""
    limits: list[str] = Field(default_factory=list)
    """Each bound that stopped the map early (max_urls, sitemap files, depth, size)."""
    errors: list[str] = Field(default_factory=list)
    """Files that could not be read (a missing /sitemap.xml or /llms.txt is not an error)."""


class SiteMapper:
    """One map of one site."""

    def __init__(
        self,
        client: SiteClient,
        url: str,
        *,
        query: str | None = None,
        max_urls: int = 200,
        include_paths: Sequence[str] = (),
        exclude_paths: Sequence[str] = (),
        subdomains: bool = False,
        start_page: bool = True,
        time_budget_s: float | None = None,
    ) -> None:
        """`start_page=False` leaves the start page's links to the caller (a crawl reads it anyway).
        `time_budget_s`: past it no more files are read and the map is what was found so far (a site
        of 50 slow sitemaps took a crawl's whole budget, which then read no page)."""
        if not 1 <= max_urls <= MAX_MAP_URLS:
            raise ToolValidationError(f"max_urls must be 1 to {MAX_MAP_URLS}")
        self.client = client
        self.url = url
        self.scope = Scope(url, subdomains=subdomains, include_paths=include_paths, exclude_paths=exclude_paths)
        self.relevance = Relevance(query) if query else None
        self.max_urls = max_urls
        self.pool = max_urls * _RANKING_POOL if query else max_urls
        self.found: dict[str, MappedUrl] = {}
        self.result = SiteMap(url=url, query=query)
        self._robots: dict[str, Protego | None] = {}
        self._start_page = start_page
        self.time_budget_s = time_budget_s

    def _count(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1

    def full(self) -> bool:
        return len(self.found) >= self.pool

    async def _allowed(self, url: str) -> bool:
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
        if origin not in self._robots:
            if len(self._robots) >= MAX_ROBOTS_HOSTS:
                return False
            try:
                self._robots[origin] = await self.client.rules(url)
            except WeblensError:
                self._robots[origin] = Protego.parse("User-agent: *\nDisallow: /")
        return self.client.allows(self._robots[origin], url)

    async def add(self, link: Link, found_in: Found) -> None:
        """Keep `link` if it is on the site, through the filters, allowed, and new; a duplicate
        lends what it knows (a title, a lastmod) to the entry already kept."""
        key = canonical_url(link.url)
        known = self.found.get(key)
        if known is not None:
            known.title = known.title or link.text or None
            known.lastmod = known.lastmod or link.lastmod
            self._count(self.result.left_out, "duplicate")
            return
        if self.full():
            return
        if not self.scope.on_site(link.url):
            self._count(self.result.left_out, "off_site")
            return
        if not self.scope.wanted(link.url):
            self._count(self.result.left_out, "filtered")
            return
        try:
            self.client.fetcher.policy.check(link.url)
        except WeblensError:
            self._count(self.result.left_out, "policy")
            return
        if not await self._allowed(link.url):
            self._count(self.result.left_out, "robots")
            return
        self.found[key] = MappedUrl(url=link.url, found_in=found_in, lastmod=link.lastmod, title=link.text or None)
        self._count(self.result.sources, found_in)

    async def _file(self, url: str) -> tuple[str, bytes] | None:
        """A site file's final URL (what its relative links resolve against, after redirects) and
        body, or None when it is missing or unreadable (said in `errors`)."""
        try:
            got = await self.client.get(url)
            return got.final_url, inflate(got.body, self.client.fetcher.settings.fetch.max_bytes)
        except NotFoundError:
            return None
        except WeblensError as exc:
            self.result.errors.append(f"{url}: {exc.code}: {exc.message}")
            return None

    async def _sitemaps(self, robots: Protego | None) -> None:
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(self.url))
        listed = list(robots.sitemaps) if robots is not None else []
        queue: list[tuple[str, int]] = [(u, 0) for u in [*listed, f"{origin}/sitemap.xml"]]
        seen: set[str] = set()
        read = 0
        while queue and not self.full():
            url, depth = queue.pop(0)
            key = canonical_url(url)
            if key in seen or not self.scope.on_site(url):
                continue
            seen.add(key)
            if read >= MAX_SITEMAP_FILES:
                self.result.limits.append(f"stopped after {MAX_SITEMAP_FILES} sitemap files")
                return
            read += 1
            report(f"map: reading sitemap {url}", done=len(self.found), total=self.pool)
            got = await self._file(url)
            if got is None:
                continue
            entries = sitemap_entries(got[1], got[0], self.pool)
            for page in entries.pages:
                await self.add(page, "sitemap")
            if entries.sitemaps and depth + 1 > MAX_SITEMAP_DEPTH:
                self.result.limits.append(f"sitemap indexes nested deeper than {MAX_SITEMAP_DEPTH} were not read")
                continue
            fresh = [u for u in entries.sitemaps if canonical_url(u) not in seen]
            if len(fresh) < len(entries.sitemaps) and not fresh:
                self.result.limits.append(f"{url} lists only sitemaps already read (a loop)")
            queue.extend((u, depth + 1) for u in fresh)

    async def run(self) -> SiteMap:
        start = None
        budget = asyncio.timeout(self.time_budget_s)
        try:
            async with budget:
                # read first, added last: a start URL that redirects off-site says where the site is
                if self._start_page:
                    report("map: reading the start page")
                    start = await self._file(self.url)
                if start is not None and not self.scope.on_site(start[0]):  # the site moved: map where it went
                    self.url, self.scope = start[0], self.scope.moved_to(start[0])
                robots = await self.client.rules(self.url)
                await self._sitemaps(robots)
                await self._llms()
        except TimeoutError:
            if not budget.expired():
                raise
            self.result.limits.append(
                f"stopped reading the site's files after {self.time_budget_s:.1f} s (time budget)"
            )
        if start is not None and not self.full():
            title, links = page_links(start[1], start[0])
            await self.add(Link(self.url, title), "page")
            for link in links:
                await self.add(link, "page")
        return self._finish()

    async def _llms(self) -> None:
        if self.full():
            return
        report("map: reading llms.txt", done=len(self.found), total=self.pool)
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(self.url))
        got = await self._file(f"{origin}/llms.txt")
        if got is not None:
            for link in llms_links(got[1].decode("utf-8", "replace"), got[0]):
                await self.add(link, "llms.txt")

    def _finish(self) -> SiteMap:
        urls = list(self.found.values())
        if self.relevance is not None:
            for entry in urls:
                entry.score = self.relevance.score(entry.url, entry.title)
            urls.sort(key=lambda e: -(e.score or 0.0))  # stable: ties keep the order the site gave
        if len(urls) >= self.pool or len(urls) > self.max_urls:
            self.result.limits.append(f"max_urls={self.max_urls} reached; the site has more")
        self.result.urls = urls[: self.max_urls]
        return self.result


class MapOptions(TypedDict, total=False):
    query: str | None
    max_urls: int
    include_paths: Sequence[str]
    exclude_paths: Sequence[str]
    subdomains: bool
    time_budget_s: float | None


async def map_site(url: str, *, fetcher: Fetcher | None = None, **options: Unpack[MapOptions]) -> SiteMap:
    """The URLs of `url`'s site (see the module docstring and `SiteMapper` for the options); pass
    `fetcher=runtime.fetcher` to share a runtime's client and cache, else one is built from the
    settings for this call."""
    if fetcher is None:
        async with Fetcher.from_settings() as own:
            return await SiteMapper(SiteClient(own), url, **options).run()
    return await SiteMapper(SiteClient(fetcher), url, **options).run()
