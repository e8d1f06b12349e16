"""Serper (Google results): `POST /search|/news|/images` with `X-API-KEY`; a bad key is 403."""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, register

__all__ = ["SerperProvider"]

_ITEMS = {"search": "organic", "news": "news", "images": "images"}
_ANSWER_EXTRAS = {"knowledgeGraph": "knowledge_graph", "answerBox": "answer_box"}


@register
class SerperProvider(HttpProvider):
    name = "serper"
    kinds = frozenset({"search", "news", "images"})

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        body: dict[str, Any] = {"q": request.query, "num": request.max_results}
        if request.country:
            body["gl"] = request.country
        if request.locale:
            body["hl"] = request.locale
        headers = {"X-API-KEY": self.api_key()}
        data = await self.send_json("POST", f"/{request.kind}", json=body, headers=headers)
        results = self.results(
            data.get(_ITEMS[request.kind]),
            request.max_results,
            url="link",
            snippet=("snippet", "source"),
            date=("date",),
            extras=("sitelinks", "source", "imageUrl", "thumbnailUrl"),
        )
        extras = {ours: data[theirs] for theirs, ours in _ANSWER_EXTRAS.items() if isinstance(data.get(theirs), dict)}
        return ProviderAnswer(results=results, extras=extras)
