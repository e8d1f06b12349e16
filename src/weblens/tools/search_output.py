"""What the search tools say: the text a model reads and the data a program gets.

Every search tool renders through here, so "nothing found", "who answered" and "how each
filter was applied" read the same everywhere. Titles, URLs, snippets and answers are
written by the providers and the pages they index: they reach the model only inside the
same nonce-fenced untrusted block as fetched pages (`untrusted_block`). What weblens
itself says (who answered, who failed, how filters were applied) stays outside it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from weblens.errors import WeblensError
from weblens.net.urls import web_url
from weblens.result import Source, ToolResult
from weblens.search import Rank, SearchResponse
from weblens.tools.fetch import untrusted_block

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
_HOW = {"native": "by", "local": "by weblens on the results of", "not_possible": "NOT applied (unsupported) by"}


class WebSearchHit(BaseModel):
    title: str
    url: str
    snippet: str
    published_at: str | None = None
    found_by: list[Rank] | None = Field(
        default=None, description="fused searches: every provider that found this page and its rank there"
    )
    score: float | None = Field(default=None, description="fused searches: the reciprocal-rank fusion score")


class WebSearchOutput(BaseModel):
    """The data of `standard` results (seed 001): what MCP clients get as structuredContent."""

    query: str
    results: list[WebSearchHit]
    provider: str = Field(description="the provider that answered (fused: all that answered, comma-separated)")
    failures: list[dict[str, Any]] | None = Field(
        default=None, description="providers that failed before this one answered (or beside it), and why"
    )
    providers: list[str] | None = Field(default=None, description="fused searches: the providers that answered")
    partial: bool | None = Field(default=None, description="true when a provider of a fused search failed")
    applied: dict[str, dict[str, str]] | None = Field(
        default=None,
        description="per optional parameter and provider: native, local (filtered by weblens) or not_possible",
    )
    filtered_out: int | None = Field(default=None, description="results the domain filters removed")


def sources(response: SearchResponse) -> list[Source]:
    """The results as citable sources: only http(s) links (a cached answer may predate the provider filter)."""
    return [Source(title=r.title, url=link) for r in response.results if (link := web_url(r.url)) is not None]


def _fenced(response: SearchResponse, text: str) -> str:
    return untrusted_block(text, f"the web search results of {', '.join(response.providers or [response.provider])}")


def _notes(response: SearchResponse) -> str:
    """What weblens says about the search (never a provider's words): fallback, partial, filters."""
    notes: list[str] = []
    if response.failures:
        failed = ", ".join(f"{f.provider} ({f.code})" for f in response.failures)
        if response.partial:
            notes.append(f"Partial results: {failed} failed; only {response.provider} answered.")
        else:
            notes.append(f"Answered by {response.provider} after {failed} failed.")
    for param, by in response.applied.items():
        groups: dict[str, list[str]] = {}
        for provider, how in by.items():
            groups.setdefault(how, []).append(provider)
        said = "; ".join(f"{_HOW[how]} {', '.join(names)}" for how, names in groups.items())
        notes.append(f"{param}: applied {said}." if "native" in groups or "local" in groups else f"{param}: {said}.")
    if response.filtered_out:
        notes.append(f"{response.filtered_out} results outside the domain filters were removed.")
    return "".join(f"\n({note})" for note in notes)


def standard(response: SearchResponse) -> ToolResult:
    """Seed 001's shape: data {query, results[{title,url,snippet,published_at}], provider}."""
    fused = response.fused
    results = []
    for r in response.results:
        hit: dict[str, Any] = {"title": r.title, "url": r.url, "snippet": r.snippet, "published_at": r.published_at}
        if fused:
            hit["found_by"] = [rank.model_dump() for rank in r.found_by]
            hit["score"] = r.score
        results.append(hit)
    data: dict[str, Any] = {"query": response.query, "results": results, "provider": response.provider}
    if response.failures:
        data["failures"] = [f.model_dump() for f in response.failures]
    if fused:
        data["providers"] = response.providers
        data["partial"] = response.partial
    if response.applied:
        data["applied"] = response.applied
    if response.filtered_out:
        data["filtered_out"] = response.filtered_out
    if not results:
        text = f'No results found for "{response.query}" (searched with {response.provider}). {NO_RESULTS_ADVICE}'
        return ToolResult.success(text + _notes(response), data=data, brief=f"No results: {response.query}")
    lines: list[str] = []
    answer = response.extras.get("answer")
    if isinstance(answer, str) and answer:
        lines.append(f"Answer: {answer}\n")
    for r in response.results:
        lines.append(f"{r.position}. {r.title or r.url}\n   {r.url}")
        if r.snippet:
            lines.append(f"   {r.snippet}")
        if r.published_at:
            lines.append(f"   Published: {r.published_at}")
        if fused:
            lines.append("   Found by: " + ", ".join(f"{rank.provider} #{rank.rank}" for rank in r.found_by))
        lines.append("")
    header = f'Search results for "{response.query}" (via {response.provider}):\n\n'
    text = header + _fenced(response, "\n".join(lines).rstrip()) + _notes(response)
    brief = f"{len(results)} results for {response.query} ({response.provider})"
    return ToolResult.success(text, data=data, sources=sources(response), brief=brief)


def markdown(response: SearchResponse) -> ToolResult:
    """Seed 002's "# Search Results for: ..." markdown; the results inside the untrusted block."""
    if not response.results:
        text = f"No results found for: {response.query}\n\n{NO_RESULTS_ADVICE}"
        return ToolResult.success(text, data={"query": response.query, "results": []}, brief="No results")
    lines = []
    for r in response.results:
        lines += [f"## {r.position}. {r.title or 'No Title'}\n", f"**URL**: {r.url}\n", f"**Summary**: {r.snippet}\n"]
        lines.append("---\n")
    text = f"# Search Results for: {response.query}\n\n" + _fenced(response, "\n".join(lines).rstrip())
    data = {"query": response.query, "results": [r.model_dump() for r in response.results]}
    brief = f"Found {len(response.results)} results"
    return ToolResult.success(text + _notes(response), data=data, sources=sources(response), brief=brief)


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
    """Seed 004: a JSON list of at most `limit` {title, url, content}, inside the untrusted block
    (the list alone is the result's `data`)."""
    items = [{"title": r.title, "url": r.url, "content": r.snippet} for r in response.results[:limit]]
    text = _fenced(response, json.dumps(items, ensure_ascii=False))
    return ToolResult.success(text, data=items, sources=sources(response), brief=f"{len(items)} results")


def json_failure(exc: WeblensError) -> ToolResult:
    """Seed 004: the failure as a JSON string the model can read, with the usual error info."""
    result = ToolResult.from_exception(exc)
    message = result.error.message if result.error else exc.message
    result.text = json.dumps({"error": message, "code": exc.code}, ensure_ascii=False)
    return result
