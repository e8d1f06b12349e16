"""SearXNG: `GET /search?format=json` on your own instance; no key, only a base URL.

Language, time range, safe search and topic (`categories=news`) are SearXNG parameters;
a country only as the region of a language (`de-DE`), so a country alone cannot be
applied. Domains are filtered by weblens.
"""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, register

__all__ = ["SearxngProvider"]

_CATEGORIES = {"search": "general", "news": "news", "images": "images"}
_SAFESEARCH = {"off": "0", "moderate": "1", "strict": "2"}


@register
class SearxngProvider(HttpProvider):
    """An instance answers 403 unless `json` is among its `search.formats`."""

    name = "searxng"
    requires = "base_url"
    kinds = frozenset({"search", "news", "images"})
    native = frozenset({"time_range", "language", "safesearch", "topic"})
    auth_statuses = frozenset({401, 403})

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        return self.native | {"country"} if request.language else self.native

    def refusal_hint(self) -> str:
        return "enable `json` in the instance's settings.yml (search: formats: [html, json]) or check its auth"

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        params: dict[str, Any] = {"q": request.query, "format": "json", "categories": _CATEGORIES[request.kind]}
        if request.language:
            region = f"-{request.country}" if request.country else ""
            params["language"] = request.language.split("-")[0] + region if region else request.language
        if request.time_range:
            params["time_range"] = request.time_range
        if request.safesearch:
            params["safesearch"] = _SAFESEARCH[request.safesearch]
        data = await self.send_json("GET", "/search", params=params, headers={"Accept": "application/json"})
        results = self.results(
            data.get("results"),
            self.upstream_count(request),
            snippet=("content",),
            date=("publishedDate",),
            extras=("engines", "img_src"),
        )
        extras = {key: data[key] for key in ("answers", "infoboxes") if data.get(key)}
        return ProviderAnswer(results=results, extras=extras)
