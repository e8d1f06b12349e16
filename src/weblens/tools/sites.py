"""`web_map` and `web_crawl`: a site's URLs, and its pages within one budget, for a model.

Thin: parameters and rendering; the walking is `weblens.sites`, over the runtime's fetcher.
What sites wrote (titles, text) reaches the model only inside an untrusted block.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from weblens.context import ToolContext
from weblens.fetch.fetcher import MAX_QUERY_CHARS
from weblens.fetch.tokens import TOKENIZER_NAME
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.sites import Crawl, CrawlResult, SiteMap, map_site
from weblens.sites.crawl import MAX_CRAWL_DEPTH, MAX_CRAWL_PAGES
from weblens.sites.map import MAX_MAP_URLS
from weblens.tool import Tool
from weblens.tools.fetch import untrusted_block

__all__ = ["SITES_FACTORIES", "WebCrawl", "WebMap"]

MAX_TIME_BUDGET_S = 300.0
DEFAULT_CRAWL_TOKENS = 8_000
"""The whole crawl's text when the model gives no max_tokens: ten pages of ~800 tokens."""
_TOOL_MARGIN_S = 10.0
_FILTER_HELP = "Shell-style globs matched against the URL path, e.g. '/docs/*' ('*' also crosses '/'); not regexes"


def _counts(table: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in table.items()) or "none"


class WebMapParams(BaseModel):
    url: str = Field(description="The site's start URL (http or https)")
    query: str | None = Field(
        default=None, max_length=MAX_QUERY_CHARS, description="Rank the URLs by relevance to this, best first"
    )
    max_urls: int = Field(default=200, ge=1, le=MAX_MAP_URLS, description="Most URLs to return")
    include_paths: list[str] = Field(default_factory=list, description=f"Keep only these paths. {_FILTER_HELP}")
    exclude_paths: list[str] = Field(default_factory=list, description=f"Leave these paths out. {_FILTER_HELP}")
    subdomains: bool = Field(default=False, description="Also list URLs on subdomains of the start host")


class WebCrawlParams(BaseModel):
    url: str = Field(description="The site's start URL (http or https)")
    query: str | None = Field(
        default=None,
        max_length=MAX_QUERY_CHARS,
        description=(
            "What you want from the site. The crawl goes best-first towards it and returns, per page, "
            "only the passages that answer it, pages ranked best first"
        ),
    )
    max_pages: int = Field(default=10, ge=1, le=MAX_CRAWL_PAGES, description="Most pages to read")
    max_depth: int = Field(default=2, ge=0, le=MAX_CRAWL_DEPTH, description="Most links away from the start URL")
    include_paths: list[str] = Field(default_factory=list, description=f"Read only these paths. {_FILTER_HELP}")
    exclude_paths: list[str] = Field(default_factory=list, description=f"Never read these paths. {_FILTER_HELP}")
    max_tokens: int | None = Field(
        default=None,
        ge=200,
        le=200_000,
        description=(
            f"Tokens ({TOKENIZER_NAME}) for all pages' text together, split fairly between them; "
            f"default {DEFAULT_CRAWL_TOKENS}"
        ),
    )
    time_budget_s: float = Field(
        default=60.0,
        ge=1,  # not gt=0: Gemini refuses `exclusiveMinimum`, and clients forward MCP schemas to it as they are
        le=MAX_TIME_BUDGET_S,
        description="Seconds the crawl may take; past it you get the pages read so far, marked partial",
    )


def render_map(found: SiteMap) -> str:
    head = [f"Map of {found.url}: {len(found.urls)} URLs (found in: {_counts(found.sources)})."]
    if found.query:
        head.append(f"Ranked by relevance to the query: {found.query}")
    if found.left_out:
        head.append(f"Left out: {_counts(found.left_out)}.")
    head += [f"Limit: {limit}" for limit in found.limits]
    head += [f"Could not read {error}" for error in found.errors]
    lines = []
    for entry in found.urls:
        said = [entry.found_in] + ([f"lastmod {entry.lastmod}"] if entry.lastmod else [])
        if entry.score is not None:
            said.append(f"score {entry.score:.2f}")
        title = f" — {entry.title}" if entry.title else ""
        lines.append(f"- {entry.url}{title} ({'; '.join(said)})")
    return "\n".join(head) + "\n\n" + untrusted_block("\n".join(lines) or "(no URLs)", "the mapped site")


def render_crawl(result: CrawlResult) -> str:
    head = [
        f"Crawled {result.url}: {len(result.pages)} pages" + (f" for the query: {result.query}" if result.query else "")
    ]
    if result.query:
        head.append("Pages are ranked best first; cite them by their [n].")
    if result.partial:
        head.append(
            f"PARTIAL: the time budget ran out with {result.left_count} URLs still to read"
            + (f", first: {', '.join(result.left[:5])}" if result.left else "")
        )
    head += [f"Limit: {limit}" for limit in result.limits]
    if result.skipped:
        head.append(f"Not read: {_counts(result.skipped)}.")
    head += [f"Failed: {failed.url}: {failed.code}: {failed.message}" for failed in result.failed]
    sections = []
    for n, page in enumerate(result.pages, 1):
        more = " (more on the page)" if page.truncated else ""
        sections.append(f"[{n}] {page.title or page.final_url}\nURL: {page.final_url} (depth {page.depth}){more}\n\n"
                        f"{page.text or '(no text)'}")  # fmt: skip
    body = "\n\n---\n\n".join(sections) or "(no pages)"
    return "\n".join(head) + "\n\n" + untrusted_block(body, "the crawled pages")


class _SiteTool(Tool[Any]):
    """What both tools share: the runtime whose fetcher they walk with."""

    def __init__(self, runtime: Runtime, **overrides: Any) -> None:
        overrides.setdefault("timeout", self.default_timeout(runtime))
        super().__init__(**overrides)
        self._runtime = runtime

    @staticmethod
    def default_timeout(runtime: Runtime) -> float:
        return MAX_TIME_BUDGET_S + _TOOL_MARGIN_S


class WebMap(_SiteTool):
    name = "web_map"
    description = (
        "List the URLs of a website from its sitemaps, its llms.txt and its start page, without reading "
        "the pages. Use it to find which pages of a site to read; with query the URLs come ranked by "
        "relevance. Each URL says where it was found, with lastmod and a title when known."
    )
    params = WebMapParams
    output = SiteMap
    key_param: ClassVar[str | None] = "url"

    @staticmethod
    def default_timeout(runtime: Runtime) -> float:
        return runtime.settings.fetch.timeout * 4 + _TOOL_MARGIN_S  # robots.txt, sitemaps, llms.txt, start page

    async def run(self, params: WebMapParams, ctx: ToolContext) -> ToolResult:
        found = await map_site(
            params.url,
            query=params.query,
            max_urls=params.max_urls,
            include_paths=params.include_paths,
            exclude_paths=params.exclude_paths,
            subdomains=params.subdomains,
            fetcher=self._runtime.fetcher,
            time_budget_s=max(1.0, self.timeout - _TOOL_MARGIN_S),  # what was found, before the call times out
        )
        return ToolResult.success(
            render_map(found), data=found.model_dump(mode="json"), brief=f"{len(found.urls)} URLs on {found.url}"
        )


class WebCrawl(_SiteTool):
    name = "web_crawl"
    description = (
        "Read several pages of one website (e.g. a library's documentation) in one call: it follows the "
        "site's sitemaps, llms.txt and links, politely and within robots.txt, and returns each page's text "
        "as markdown — or, with query, only the passages that answer it, pages ranked best first — all "
        "within max_tokens. Each page is a numbered source [n]."
    )
    params = WebCrawlParams
    output = CrawlResult
    key_param: ClassVar[str | None] = "url"

    async def run(self, params: WebCrawlParams, ctx: ToolContext) -> ToolResult:
        walk = Crawl(
            params.url,
            fetcher=self._runtime.fetcher,
            query=params.query,
            max_pages=params.max_pages,
            max_depth=params.max_depth,
            include_paths=params.include_paths,
            exclude_paths=params.exclude_paths,
            max_tokens=params.max_tokens or DEFAULT_CRAWL_TOKENS,
            time_budget_s=params.time_budget_s,
        )
        result = await walk.run()
        partial = ", partial" if result.partial else ""
        return ToolResult.success(
            render_crawl(result),
            data=result.model_dump(mode="json"),
            sources=[Source(title=page.title, url=page.final_url) for page in result.pages],
            brief=f"{len(result.pages)} pages of {result.url}{partial}",
        )


def _web_map(runtime: Runtime) -> Tool[Any]:
    return WebMap(runtime)


def _web_crawl(runtime: Runtime) -> Tool[Any]:
    return WebCrawl(runtime)


SITES_FACTORIES = (_web_map, _web_crawl)
