"""Serper (Google results): `POST /search|/news|/images` with `X-API-KEY`; a bad key is 403.

Country (`gl`), language (`hl`) and time range (`tbs=qdr:…`) are Serper parameters;
domains go into the query as Google's `site:` operators (up to `_MAX_SITE_OPERATORS`
of them, beyond that weblens filters). Serper has no safe-search setting.
"""

from __future__ import annotations

from typing import Any

from weblens.errors import WeblensError
from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, HttpReply, register

__all__ = ["SerperProvider"]

_ITEMS = {"search": "organic", "news": "news", "images": "images"}
_ANSWER_EXTRAS = {"knowledgeGraph": "knowledge_graph", "answerBox": "answer_box"}
_TIME = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
_MAX_SITE_OPERATORS = 10
"""Google caps a query at 32 words; a few `site:` operators fit beside the words."""


def _with_sites(query: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> str:
    parts = [query]
    if include:
        parts.append(" OR ".join(f"site:{domain}" for domain in include))
    parts.extend(f"-site:{domain}" for domain in exclude)
    return " ".join(parts)


@register
class SerperProvider(HttpProvider):
    """Out of credits, Serper answers 400 "Not enough credits": that is the key's quota."""

    name = "serper"
    kinds = frozenset({"search", "news", "images"})
    native = frozenset({"include_domains", "exclude_domains", "time_range", "country", "language", "topic"})

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        if len(request.include_domains) + len(request.exclude_domains) > _MAX_SITE_OPERATORS:
            return self.native - {"include_domains", "exclude_domains"}
        return self.native

    def error(self, reply: HttpReply) -> WeblensError:
        if reply.status == 400 and b"credits" in reply.body.lower():
            return self.quota_error(reply)
        return super().error(reply)

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        query = request.query
        if "include_domains" in self.native_params(request):
            query = _with_sites(query, request.include_domains, request.exclude_domains)
        body: dict[str, Any] = {"q": query, "num": self.upstream_count(request)}
        if request.country:
            body["gl"] = request.country.lower()
        if request.language:
            body["hl"] = request.language
        if request.time_range:
            body["tbs"] = _TIME[request.time_range]
        data = await self.send_json("POST", f"/{request.kind}", json=body, headers={"X-API-KEY": key or ""})
        results = self.results(
            data.get(_ITEMS[request.kind]),
            self.upstream_count(request),
            url="link",
            snippet=("snippet", "source"),
            date=("date",),
            extras=("sitelinks", "source", "imageUrl", "thumbnailUrl"),
        )
        extras = {ours: data[theirs] for theirs, ours in _ANSWER_EXTRAS.items() if isinstance(data.get(theirs), dict)}
        return ProviderAnswer(results=results, extras=extras)
