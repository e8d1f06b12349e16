"""Tavily: `POST /search` with `Authorization: Bearer`; errors are `{"detail": {"error": ...}}`.

Domains, time range, topic and (for general search) country are Tavily parameters;
Tavily takes a country as its lower-case English name ("united states"). It has no
language or safe-search setting.
"""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest, territory_names
from weblens.search.providers.base import HttpProvider, register

__all__ = ["TavilyProvider"]

_MAX_QUERY_CHARS = 400
"""Tavily refuses longer queries: 400 "Query is too long. Max query length is 400 characters."."""
_MAX_INCLUDE = 300
_MAX_EXCLUDE = 150
"""Tavily's limits; longer lists are filtered by weblens instead."""


@register
class TavilyProvider(HttpProvider):
    """The body is seed 004's lean one: basic depth, no answer, raw content or images."""

    name = "tavily"
    kinds = frozenset({"search", "news"})
    native = frozenset({"include_domains", "exclude_domains", "time_range", "country", "topic"})
    quota_statuses = frozenset({402, 432, 433})

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        params = set(self.native)
        if len(request.include_domains) > _MAX_INCLUDE:
            params.discard("include_domains")
        if len(request.exclude_domains) > _MAX_EXCLUDE:
            params.discard("exclude_domains")
        if request.kind == "news":  # Tavily applies country to general search only
            params.discard("country")
        return frozenset(params)

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        body: dict[str, Any] = {
            "query": request.query[:_MAX_QUERY_CHARS],
            "search_depth": "basic",
            "topic": "news" if request.kind == "news" else "general",
            "max_results": self.upstream_count(request),
            "include_answer": False,
            "include_raw_content": False,
            "include_images": False,
        }
        native = self.native_params(request)
        if request.include_domains and "include_domains" in native:
            body["include_domains"] = list(request.include_domains)
        if request.exclude_domains and "exclude_domains" in native:
            body["exclude_domains"] = list(request.exclude_domains)
        if request.time_range:
            body["time_range"] = request.time_range
        if request.country and "country" in native:
            body["country"] = territory_names()[request.country].lower()
        data = await self.send_json("POST", "/search", json=body, headers={"Authorization": f"Bearer {key}"})
        results = self.results(
            data.get("results"),
            self.upstream_count(request),
            snippet=("content",),
            date=("published_date",),
            extras=("score",),
        )
        answer = data.get("answer")
        return ProviderAnswer(results=results, extras={"answer": answer} if isinstance(answer, str) and answer else {})
