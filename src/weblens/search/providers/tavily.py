"""Tavily: `POST /search` with `Authorization: Bearer`; errors are `{"detail": {"error": ...}}`."""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, register

__all__ = ["TavilyProvider"]


@register
class TavilyProvider(HttpProvider):
    """The body is seed 004's lean one: basic depth, no answer, raw content or images."""

    name = "tavily"
    kinds = frozenset({"search", "news"})
    quota_statuses = frozenset({432, 433})

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        body: dict[str, Any] = {
            "query": request.query,
            "search_depth": "basic",
            "topic": "news" if request.kind == "news" else "general",
            "max_results": request.max_results,
            "include_answer": False,
            "include_raw_content": False,
            "include_images": False,
        }
        headers = {"Authorization": f"Bearer {self.api_key()}"}
        data = await self.send_json("POST", "/search", json=body, headers=headers)
        results = self.results(
            data.get("results"),
            request.max_results,
            snippet=("content",),
            date=("published_date",),
            extras=("score",),
        )
        answer = data.get("answer")
        return ProviderAnswer(results=results, extras={"answer": answer} if isinstance(answer, str) and answer else {})
