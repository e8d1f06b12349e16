"""A generated documentation site on a real local HTTP server, for map and crawl tests.

`DocsSite(pages=N)` serves N pages under `/docs/`, a start page, `robots.txt` (with a
`Sitemap:` line, optional `Crawl-delay` and disallowed paths), a sitemap index pointing at
a gzipped and a plain sitemap, `/llms.txt`, a duplicate of a page under another URL, and
two traps (an endless calendar and a relative-link loop). The server measures what a polite
crawler is judged by: the most requests in flight at once, and when each page request came.

`LinkFarm(links=N)` is the trap a depth limit does not stop: every page links N pages never
seen before (a generated listing, a tag cloud of a tag cloud).
"""

from __future__ import annotations

import asyncio
import gzip
import itertools
import threading
from collections.abc import Sequence

from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = ["TOPICS", "DocsSite", "LinkFarm", "topic_of"]

TOPICS = (
    "installation", "configuration", "authentication", "caching", "pagination", "webhooks",
    "logging", "deployment", "migrations", "encryption", "backups", "monitoring",
)  # fmt: skip
_HTML = "text/html; charset=utf-8"


def topic_of(index: int) -> str:
    return TOPICS[index % len(TOPICS)]


def _fact(index: int) -> str:
    """A sentence only page `index` holds, so a test can tell which pages were read."""
    return f"The {topic_of(index)} code of page {index} is K{index * 7919 % 100_003:05d}."


class DocsSite(FakeServer):
    """See the module docstring. `latency_s`: how long each page takes to answer; `llms_pages`:
    how many pages `/llms.txt` lists (with their titles)."""

    def __init__(
        self,
        pages: int = 20,
        *,
        latency_s: float = 0.0,
        crawl_delay: float | None = None,
        disallow: Sequence[str] = (),
        llms: bool = True,
        llms_pages: int = 5,
        traps: bool = True,
    ) -> None:
        super().__init__()
        self.pages = pages
        self.page_latency_s = latency_s
        self.in_flight = 0
        self.max_in_flight = 0
        self._count_lock = threading.Lock()
        robots = ["User-agent: *", *(f"Disallow: {path}" for path in disallow)]
        if crawl_delay is not None:
            robots.append(f"Crawl-delay: {crawl_delay:g}")
        robots.append("Sitemap: /sitemap.xml")  # made absolute in _robots
        self._robots_lines = robots
        self.route("GET", "/robots.txt", self._robots)
        self.route("GET", "/sitemap.xml", self._sitemap_index)
        half = pages // 2
        self.route("GET", "/sitemaps/docs-1.xml.gz", lambda r: Reply(
            body=gzip.compress(self._urlset(range(half)).encode()), content_type="application/gzip"))  # fmt: skip
        self.route("GET", "/sitemaps/docs-2.xml", lambda r: Reply(
            body=self._urlset(range(half, pages)), content_type="application/xml"))  # fmt: skip
        if llms:
            self.route("GET", "/llms.txt", self._llms)
        self.route("GET", "/", self._home)
        for index in range(pages):
            self.route("GET", f"/docs/page-{index}", self._page)
        if pages > 3:
            self.route("GET", "/docs/page-3/print", self._page)  # the same text under another URL
        self.traps = traps
        self.llms_pages = llms_pages

    # -- measuring ---------------------------------------------------------------

    def page_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.startswith(("/docs/", "/calendar", "/loop"))]

    def page_paths(self) -> list[str]:
        return [r.path for r in self.page_requests()]

    def gaps(self) -> list[float]:
        """Seconds between the starts of consecutive page requests."""
        times = sorted(r.received_at for r in self.page_requests())
        return [b - a for a, b in itertools.pairwise(times)]

    async def _measured(self, reply: Reply) -> Reply:
        with self._count_lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.page_latency_s)
        finally:
            with self._count_lock:
                self.in_flight -= 1
        return reply

    # -- content -----------------------------------------------------------------

    def _answer_for(self, request: RecordedRequest):  # type: ignore[no-untyped-def]
        if self.traps and request.path == "/calendar":
            return self._calendar
        if self.traps and request.path.startswith("/loop/"):
            return self._loop
        return super()._answer_for(request)

    def _robots(self, request: RecordedRequest) -> Reply:
        lines = [line.replace("Sitemap: /", f"Sitemap: {self.url('/')}") for line in self._robots_lines]
        return Reply(body="\n".join(lines) + "\n")

    def _sitemap_index(self, request: RecordedRequest) -> Reply:
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<sitemap><loc>{self.url('/sitemaps/docs-1.xml.gz')}</loc></sitemap>"
            f"<sitemap><loc>{self.url('/sitemaps/docs-2.xml')}</loc></sitemap></sitemapindex>"
        )
        return Reply(body=body, content_type="application/xml")

    def _urlset(self, indexes: range) -> str:
        entries = "".join(
            f"<url><loc>{self.url(f'/docs/page-{i}')}</loc><lastmod>2026-01-{1 + i % 28:02d}</lastmod></url>"
            for i in indexes
        )
        return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'

    def title(self, index: int) -> str:
        return f"{topic_of(index).capitalize()} guide, part {index}"

    def _llms(self, request: RecordedRequest) -> Reply:
        lines = ["# Docs", "", "> The documentation.", "", "## Guides", ""]
        lines += [
            f"- [{self.title(i)}](/docs/page-{i}): about {topic_of(i)}" for i in range(min(self.llms_pages, self.pages))
        ]
        return Reply(body="\n".join(lines) + "\n", content_type="text/markdown")

    def _wrap(self, title: str, body: str) -> Reply:
        html = (
            f"<!DOCTYPE html><html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<main><article><h1>{title}</h1>{body}</article></main></body></html>"
        )
        return Reply(body=html, content_type=_HTML)

    def _home(self, request: RecordedRequest) -> Reply:
        links = "".join(f"<li><a href='/docs/page-{i}'>{self.title(i)}</a></li>" for i in range(min(4, self.pages)))
        traps = "<p><a href='/calendar?month=1'>Calendar</a> <a href='/loop/a/'>Loop</a></p>" if self.traps else ""
        intro = "<p>Welcome to the documentation of the Example service. Start with the guides below.</p>"
        return self._wrap("Example docs", f"{intro}<ul>{links}</ul>{traps}")

    async def _page(self, request: RecordedRequest) -> Reply:
        index = int(request.path.split("/")[2].removeprefix("page-"))
        topic = topic_of(index)
        paragraphs = "".join(
            f"<p>{_fact(index)} This part explains {topic} in the Example service, step {step}: "
            f"how {topic} behaves, what to set, and what to check afterwards.</p>"
            for step in range(1, 4)
        )
        links = [f"<a href='/docs/page-{j}'>{self.title(j)}</a>" for j in (index - 1, index + 1)
                 if 0 <= j < self.pages]  # fmt: skip
        if index == 3:
            links.append("<a href='/docs/page-3/print'>Print view</a>")
        return await self._measured(self._wrap(self.title(index), paragraphs + "<p>" + " ".join(links) + "</p>"))

    async def _calendar(self, request: RecordedRequest) -> Reply:
        month = int(request.query.get("month", "1") or 1)
        body = (f"<p>Events of month {month}: nothing planned in month {month} of the Example calendar.</p>"
                f"<p><a href='/calendar?month={month + 1}'>Next month</a></p>")  # fmt: skip
        return await self._measured(self._wrap(f"Calendar {month}", body))

    async def _loop(self, request: RecordedRequest) -> Reply:
        depth = request.path.count("/a")
        body = f"<p>Loop level {depth} of the relative-link trap, reached again.</p><p><a href='a/'>Deeper</a></p>"
        return await self._measured(self._wrap(f"Loop {depth}", body))

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def fact(self, index: int) -> str:
        return _fact(index)


class LinkFarm(FakeServer):
    """Every path is a page (after `latency_s`) linking `links` new ones; no robots.txt, sitemap or llms.txt."""

    def __init__(self, links: int = 300, *, latency_s: float = 0.0) -> None:
        super().__init__()
        self.links = links
        self.page_latency_s = latency_s

    def _answer_for(self, request: RecordedRequest):  # type: ignore[no-untyped-def]
        if request.path in ("/robots.txt", "/sitemap.xml", "/llms.txt"):
            return Reply(status=404, body="not here", content_type="text/plain")
        return self._page

    async def _page(self, request: RecordedRequest) -> Reply:
        await asyncio.sleep(self.page_latency_s)
        name = request.path.strip("/").replace("/", "-") or "home"
        links = "".join(f"<a href='/{name}-{i}'>Item {i} of {name}</a> " for i in range(self.links))
        body = f"<p>The listing {name} holds {self.links} items, each a page of its own.</p><p>{links}</p>"
        return Reply(body=f"<html><head><title>{name}</title></head><body>{body}</body></html>", content_type=_HTML)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"
