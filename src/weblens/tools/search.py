"""The search tool, once, and the configured instances the seeds name.

`web_search` (seed 001) asks the router (automatic provider choice and fallback);
`brave_web_search`/`tavily_web_search` (seed 000), `WebSearch` (seed 002), `serper_tool`
(seed 003) and `search_web` (seed 004) are the same tool with other parameters, a fixed
provider and their own output shape. Text for the model is written in `search_output`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, Field, SecretStr, field_validator

from weblens.config import Settings, get_settings
from weblens.context import ToolContext
from weblens.errors import WeblensError
from weblens.policy.domains import DomainPolicy
from weblens.redact import register_secret
from weblens.result import ToolResult
from weblens.runtime import Runtime, using
from weblens.search import SearchResponse, SearchRouter, is_configured
from weblens.search.models import MAX_RESULTS, Query, SafeSearch, TimeRange, make_request
from weblens.tool import Tool
from weblens.tools import search_output as render

__all__ = [
    "SEARCH_FACTORIES",
    "SearchTool",
    "SearchWebTool",
    "SerperSearchTool",
    "TavilyWebSearchTool",
    "WebSearch",
    "WebSearchTool",
    "search_web",
    "serper_tool",
]

# -- parameters ---------------------------------------------------------------------------


class SearchParams(BaseModel):
    query: Query = Field(description="What to search the web for")

    def search_fields(self) -> dict[str, Any]:
        return {"query": self.query}

    def fused(self) -> list[str] | None:
        """Providers to ask at once and fuse; None lets the router choose (with fallback)."""
        return None


class WebSearchParams(SearchParams):
    # seed 001's query and max_results, then the optional filters (no docstring: it would reach the schema)
    max_results: int = Field(default=5, ge=1, le=MAX_RESULTS, description="How many results (1-10)")
    include_domains: list[str] | None = Field(
        default=None, description='Only results from these domains, subdomains included (e.g. ["python.org"])'
    )
    exclude_domains: list[str] | None = Field(
        default=None, description="No results from these domains, subdomains included"
    )
    time_range: TimeRange | None = Field(default=None, description="Only pages from the last day, week, month or year")
    country: str | None = Field(default=None, description="Results for this country: a two-letter code (US, DE, CN)")
    language: str | None = Field(default=None, description="Results in this language: a code such as en, de or zh")
    safesearch: SafeSearch | None = Field(default=None, description="Adult-content filtering")
    topic: Literal["general", "news"] | None = Field(
        default=None, description="news: recent news articles instead of web pages"
    )
    providers: list[str] | None = Field(
        default=None,
        description='Ask several search providers at once and merge their results: names such as "brave", '
        '"tavily", or ["all"] for every configured one',
    )

    def search_fields(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "max_results": self.max_results,
            "include_domains": self.include_domains,
            "exclude_domains": self.exclude_domains,
            "time_range": self.time_range,
            "country": self.country,
            "language": self.language,
            "safesearch": self.safesearch,
            "kind": "news" if self.topic == "news" else "search",
        }

    def fused(self) -> list[str] | None:
        return self.providers or None


class CountParams(SearchParams):
    """Seed 000: `count` below 1 is an error, above 10 is treated as 10."""

    count: int = Field(default=10, ge=1, description="How many results (1-10; larger values mean 10)")

    @field_validator("count")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return min(value, MAX_RESULTS)

    def search_fields(self) -> dict[str, Any]:
        return {"query": self.query, "max_results": self.count}


class LimitParams(SearchParams):
    limit: int = Field(default=5, ge=1, le=MAX_RESULTS, description="Number of results (default: 5, max: 10)")

    def search_fields(self) -> dict[str, Any]:
        return {"query": self.query, "max_results": self.limit}


class SerperParams(SearchParams):
    type: Literal["search", "news", "images"] = Field(default="search", description="What kind of results")

    def search_fields(self) -> dict[str, Any]:
        return {"query": self.query, "kind": self.type}


SP = TypeVar("SP", bound=SearchParams)


# -- the tool -------------------------------------------------------------------------------


class _SearchToolBase(Tool[SP]):
    """Validate, ask the router, render. Subclasses set params, provider and `present`."""

    fixed_providers: ClassVar[tuple[str, ...] | None] = None
    """Fixed providers in order; None lets the router choose."""
    request_defaults: ClassVar[Mapping[str, Any]] = {}
    """Request fields the parameters do not set (e.g. seed 004's three results)."""
    key_param = "query"

    def __init__(
        self,
        runtime: Runtime | None = None,
        *,
        providers: tuple[str, ...] | None = None,
        defaults: dict[str, Any] | None = None,
        settings: Settings | None = None,
        policy: DomainPolicy | None = None,
        **options: Any,
    ) -> None:
        """`runtime` None: each call builds a runtime and closes it (seed 003's standalone tools).
        `settings` replaces the runtime's for this tool only (e.g. its own API key); `policy`
        narrows the runtime's domain policy for this tool (the model's own filters narrow it further)."""
        super().__init__(**options)
        self._runtime = runtime
        self._settings = settings
        self.policy = policy
        self._own_router: SearchRouter | None = None
        self.providers = providers if providers is not None else self.fixed_providers
        self.defaults = {**self.request_defaults, **(defaults or {})}

    def _router(self, runtime: Runtime) -> SearchRouter:
        """The runtime's router, or one with this tool's settings that shares the runtime's limits."""
        if self._settings is None or runtime is not self._runtime:
            return runtime.router
        if self._own_router is None:
            self._own_router = runtime.router_with(self._settings)
        return self._own_router

    def provider_order(self, settings: Settings) -> tuple[str, ...] | None:
        return self.providers

    async def run(self, params: SP, ctx: ToolContext) -> ToolResult:
        request = make_request(**{**self.defaults, **params.search_fields()})
        async with using(self._runtime, self._settings) as runtime:
            router = self._router(runtime)
            try:
                response = await router.search(
                    request,
                    provider=self.provider_order(router.settings),
                    providers=params.fused(),
                    policy=self.policy,
                )
            except WeblensError as exc:
                return self.present_failure(exc)
        return self.present(response)

    def present(self, response: SearchResponse) -> ToolResult:
        return render.standard(response)

    def present_failure(self, exc: WeblensError) -> ToolResult:
        return ToolResult.from_exception(exc)


class SearchTool(_SearchToolBase[WebSearchParams]):
    """`web_search` (seed 001): any configured provider, with fallback."""

    name = "web_search"
    description = (
        "Search the web and get titles, URLs and snippets of matching pages, with their sources. "
        "Use it for current events, facts you are unsure of, or anything that may have changed. "
        "Optional filters narrow it (domains, time range, country, language, safe search, news); "
        "the result says which ones each provider applied. "
        "If nothing is found, the result says so: do not repeat the same query."
    )
    params = WebSearchParams
    output = render.WebSearchOutput


class WebSearchTool(_SearchToolBase[CountParams]):
    """Seed 000's existing Brave tool; uses Tavily instead when `[web_search.tavily]` is set (§9)."""

    name = "brave_web_search"
    description = "Search the web with Brave Search. Returns title, URL and description for each result."
    params = CountParams
    output = render.WebSearchOutput
    fixed_providers = ("brave",)

    def provider_order(self, settings: Settings) -> tuple[str, ...] | None:
        if self.providers == self.fixed_providers and settings.web_search.tavily is not None:
            return ("tavily",)
        return self.providers


class TavilyWebSearchTool(_SearchToolBase[CountParams]):
    """Seed 000: the same interface and output as `WebSearchTool`, answered by Tavily."""

    name = "tavily_web_search"
    description = "Search the web with Tavily. Returns title, URL and description for each result."
    params = CountParams
    output = render.WebSearchOutput
    fixed_providers = ("tavily",)


class WebSearch(_SearchToolBase[LimitParams]):
    """Seed 002's DuckDuckGo search with markdown output."""

    name = "WebSearch"
    description = "Search the web with DuckDuckGo (no API key needed). Returns a markdown list of results."
    params = LimitParams
    fixed_providers = ("duckduckgo",)

    def present(self, response: SearchResponse) -> ToolResult:
        return render.markdown(response)


class SerperSearchTool(_SearchToolBase[SerperParams]):
    """Seed 003's `serperTool`: output {organic[{title, link, snippet, position}], knowledge_graph?}."""

    name = "serper_search"
    description = "Search Google through Serper: web pages, news or images for a query."
    params = SerperParams
    fixed_providers = ("serper",)
    request_defaults: ClassVar[Mapping[str, Any]] = {"max_results": 10}

    def present(self, response: SearchResponse) -> ToolResult:
        return render.serper(response)


class SearchWebTool(_SearchToolBase[SearchParams]):
    """Seed 004's `search_web`: Tavily, at most 3 results, a JSON string either way."""

    name = "search_web"
    description = "Search the web for up-to-date information. Returns a JSON list of {title, url, content}."
    params = SearchParams
    fixed_providers = ("tavily",)
    request_defaults: ClassVar[Mapping[str, Any]] = {"max_results": 3}

    def present(self, response: SearchResponse) -> ToolResult:
        return render.json_list(response, limit=3)

    def present_failure(self, exc: WeblensError) -> ToolResult:
        return render.json_failure(exc)


# -- factories ------------------------------------------------------------------------------


def serper_tool(
    api_key: str | None = None,
    country: str | None = None,
    locale: str | None = None,
    num_results: int = 10,
    *,
    runtime: Runtime | None = None,
) -> SerperSearchTool:
    """Seed 003: a Serper tool; `api_key` overrides SERPER_API_KEY for this tool only.

    Without `runtime` the tool stands alone: each call builds one and closes it."""
    settings = None
    if api_key:
        register_secret(api_key)
        base = runtime.settings if runtime is not None else get_settings()
        serper = base.serper.model_copy(update={"api_key": SecretStr(api_key)})
        settings = base.model_copy(update={"serper": serper})
    defaults = {"max_results": min(num_results, MAX_RESULTS), "country": country, "language": locale}
    return SerperSearchTool(runtime, defaults=defaults, settings=settings)


def search_web(runtime: Runtime) -> SearchWebTool | None:
    """Seed 004: registered only when a Tavily key is configured."""
    return SearchWebTool(runtime) if is_configured("tavily", runtime.settings) else None


def _when_configured(make: Callable[[Runtime], _SearchToolBase[Any]], provider: str) -> Callable[..., Any]:
    def factory(runtime: Runtime) -> _SearchToolBase[Any] | None:
        return make(runtime) if is_configured(provider, runtime.settings) else None

    return factory


def _brave_web_search(runtime: Runtime) -> WebSearchTool | None:
    tool = WebSearchTool(runtime)
    order = tool.provider_order(runtime.settings) or ()
    return tool if all(is_configured(name, runtime.settings) for name in order) else None


SEARCH_FACTORIES: list[Callable[[Runtime], Tool[Any] | None]] = [
    SearchTool,
    _brave_web_search,
    _when_configured(TavilyWebSearchTool, "tavily"),
    WebSearch,
    _when_configured(lambda runtime: serper_tool(runtime=runtime), "serper"),
    search_web,
]
