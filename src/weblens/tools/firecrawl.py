"""Seed 003's `firecrawl_tool`: scrape a URL through Firecrawl (hosted or self-hosted)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from weblens.config import get_settings
from weblens.context import ToolContext
from weblens.fetch.client import guard_for
from weblens.fetch.firecrawl import FirecrawlClient
from weblens.policy.domains import DomainPolicy
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.tool import Retry, Tool
from weblens.tools.fetch import untrusted_block

__all__ = ["FirecrawlInput", "FirecrawlMetadata", "FirecrawlOutput", "FirecrawlTool", "firecrawl_tool"]

DESCRIPTION = (
    "Scrape a web page with Firecrawl (a hosted browser that also renders JavaScript) and return "
    "its content as markdown, with the page's links when include_links is true."
)
_MARGIN_S = 10.0


class FirecrawlInput(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    url: str = Field(description="The URL of the page to scrape")
    include_links: bool = Field(
        default=False,
        validation_alias=AliasChoices("include_links", "includeLinks"),
        description="Whether to include the page's links",
    )


class FirecrawlMetadata(BaseModel):
    source_url: str
    status_code: int


class FirecrawlOutput(BaseModel):
    content: str
    title: str
    links: list[str] | None = None
    metadata: FirecrawlMetadata


class FirecrawlTool(Tool[FirecrawlInput]):
    name = "firecrawl"
    description = DESCRIPTION
    params = FirecrawlInput
    output = FirecrawlOutput
    key_param = "url"

    def __init__(
        self,
        client: FirecrawlClient,
        *,
        formats: Sequence[str] = ("markdown",),
        timeout: float | None = None,
        name: str | None = None,
        policy: DomainPolicy | None = None,
    ) -> None:
        self._client = client
        self._policy = policy if policy is not None else DomainPolicy()
        self._formats = tuple(formats)
        self._scrape_timeout = timeout
        super().__init__(name=name, timeout=(timeout or 60.0) + _MARGIN_S, retry=Retry(max_attempts=2))

    async def run(self, params: FirecrawlInput, ctx: ToolContext) -> ToolResult:
        self._policy.check(params.url, action="scrape")  # the operator's domain policy holds for remote fetchers too
        page = await self._client.scrape(
            params.url, formats=self._formats, include_links=params.include_links, timeout_s=self._scrape_timeout
        )
        out = FirecrawlOutput(
            content=page.content,
            title=page.title,
            links=page.links,
            metadata=FirecrawlMetadata(source_url=page.source_url, status_code=page.status_code),
        )
        # the title and links come from the page as much as its text does: all inside the untrusted block
        inner = f"Title: {page.title}\n\n{page.content}" if page.title else page.content
        if page.links:
            inner += "\n\nLinks:\n" + "\n".join(f"- {link}" for link in page.links)
        text = f"URL: {page.source_url} (HTTP {page.status_code}, via Firecrawl)\n\n"
        text += untrusted_block(inner, page.source_url)
        return ToolResult.success(
            text,
            data=out.model_dump(mode="json", exclude_none=True),
            sources=[Source(title=page.title, url=page.source_url)],
            brief=f"{page.title or page.source_url} (Firecrawl)",
        )


def firecrawl_tool(
    api_key: str | None = None,
    formats: Sequence[str] = ("markdown",),
    timeout: float | None = None,
    *,
    runtime: Runtime | None = None,
) -> FirecrawlTool:
    """Seed 003's `firecrawlTool({apiKey, formats, timeout})`; `timeout` in seconds.

    The key defaults to FIRECRAWL_API_KEY, the base URL to `firecrawl.base_url`. Without
    `runtime` the tool stands alone (settings from the environment, a client per call).
    URLs pass web_fetch's policy (`fetch.allow_private`, `fetch.allowed_hosts`, with the
    runtime's resolver) before they are sent.
    """
    if runtime is not None:
        config = runtime.settings.firecrawl
        guard = guard_for(runtime.settings.fetch, runtime.resolver)
        client = FirecrawlClient(config, runtime.client, api_key=api_key, guard=guard)
        policy = runtime.domain_policy
    else:
        settings = get_settings()
        config = settings.firecrawl
        client = FirecrawlClient(config, api_key=api_key, guard=guard_for(settings.fetch))
        policy = settings.policy.domains()
    return FirecrawlTool(client, formats=formats, timeout=timeout or config.timeout, policy=policy)
