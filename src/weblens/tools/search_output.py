"""What the search tools say: the text a model reads and the data a program gets.

Every search tool renders through here, so "nothing found" and "who answered" read the
same everywhere.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from weblens.errors import WeblensError
from weblens.net.urls import web_url
from weblens.result import Source, ToolResult
from weblens.search import SearchResponse

__all__ = [
    "NO_RESULTS_ADVICE",
    "WebSearchHit",
    "WebSearchOutput",
    "json_failure",
    "json_list",
    "markdown",
    "serper",
    "sources",
    "standard",
]

NO_RESULTS_ADVICE = (
    "The search worked but found nothing. Do not repeat the same query: try different words, "
    "or answer without web results and say so."
)


class WebSearchHit(BaseModel):
    title: str
    url: str
    snippet: str
    published_at: str | None = None


class WebSearchOutput(BaseModel):
    """The data of `standard` results (seed 001): what MCP clients get as structuredContent."""

    query: str
    results: list[WebSearchHit]
    provider: str = Field(description="the provider that answered")
    failures: list[dict[str, Any]] | None = Field(
        default=None, description="providers that failed before this one answered, and why"
    )


def sources(response: SearchResponse) -> list[Source]:
    """The results as citable sources: only http(s) links (a cached answer may predate the provider filter)."""
    return [Source(title=r.title, url=link) for r in response.results if (link := web_url(r.url)) is not None]


def _fallback_note(response: SearchResponse) -> str:
    if not response.failures:
        return ""
    failed = ", ".join(f"{f.provider} ({f.code})" for f in response.failures)
    return f"\n(Answered by {response.provider} after {failed} failed.)"


def standard(response: SearchResponse) -> ToolResult:
    """Seed 001's shape: data {query, results[{title,url,snippet,published_at}], provider}."""
    results = [
        {"title": r.title, "url": r.url, "snippet": r.snippet, "published_at": r.published_at}
        for r in response.results
    ]
    data: dict[str, Any] = {"query": response.query, "results": results, "provider": response.provider}
    if response.failures:
        data["failures"] = [f.model_dump() for f in response.failures]
    if not results:
        text = f'No results found for "{response.query}" (searched with {response.provider}). {NO_RESULTS_ADVICE}'
        return ToolResult.success(text + _fallback_note(response), data=data, brief=f"No results: {response.query}")
    lines = [f'Search results for "{response.query}" (via {response.provider}):']
    answer = response.extras.get("answer")
    if isinstance(answer, str) and answer:
        lines.append(f"\nAnswer: {answer}")
    for r in response.results:
        lines.append(f"\n{r.position}. {r.title or r.url}\n   {r.url}")
        if r.snippet:
            lines.append(f"   {r.snippet}")
        if r.published_at:
            lines.append(f"   Published: {r.published_at}")
    text = "\n".join(lines) + _fallback_note(response)
    brief = f"{len(results)} results for {response.query} ({response.provider})"
    return ToolResult.success(text, data=data, sources=sources(response), brief=brief)


def markdown(response: SearchResponse) -> ToolResult:
    """Seed 002's "# Search Results for: ..." markdown."""
    if not response.results:
        text = f"No results found for: {response.query}\n\n{NO_RESULTS_ADVICE}"
        return ToolResult.success(text, data={"query": response.query, "results": []}, brief="No results")
    lines = [f"# Search Results for: {response.query}\n"]
    for r in response.results:
        lines += [f"## {r.position}. {r.title or 'No Title'}\n", f"**URL**: {r.url}\n", f"**Summary**: {r.snippet}\n"]
        lines.append("---\n")
    data = {"query": response.query, "results": [r.model_dump() for r in response.results]}
    brief = f"Found {len(response.results)} results"
    return ToolResult.success("\n".join(lines), data=data, sources=sources(response), brief=brief)


def serper(response: SearchResponse) -> ToolResult:
    """Seed 003's data {organic[{title, link, snippet, position}], knowledge_graph?}; standard text."""
    result = standard(response)
    organic = [
        {"title": r.title, "link": r.url, "snippet": r.snippet, "position": r.position} for r in response.results
    ]
    data: dict[str, Any] = {"organic": organic}
    graph = response.extras.get("knowledge_graph")
    if isinstance(graph, dict):
        data["knowledge_graph"] = {"title": graph.get("title", ""), "description": graph.get("description", "")}
    result.data = data
    return result


def json_list(response: SearchResponse, *, limit: int) -> ToolResult:
    """Seed 004: a JSON string of at most `limit` {title, url, content}."""
    items = [{"title": r.title, "url": r.url, "content": r.snippet} for r in response.results[:limit]]
    text = json.dumps(items, ensure_ascii=False)
    return ToolResult.success(text, data=items, sources=sources(response), brief=f"{len(items)} results")


def json_failure(exc: WeblensError) -> ToolResult:
    """Seed 004: the failure as a JSON string the model can read, with the usual error info."""
    result = ToolResult.from_exception(exc)
    message = result.error.message if result.error else exc.message
    result.text = json.dumps({"error": message, "code": exc.code}, ensure_ascii=False)
    return result
