"""SearXNG: `GET /search?format=json` on your own instance; no key, only a base URL."""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, register

__all__ = ["SearxngProvider"]

_CATEGORIES = {"search": "general", "news": "news", "images": "images"}


@register
class SearxngProvider(HttpProvider):
    """An instance answers 403 unless `json` is among its `search.formats`."""

    name = "searxng"
    requires = "base_url"
    kinds = frozenset({"search", "news", "images"})
    auth_statuses = frozenset({401, 403})

    def refusal_hint(self) -> str:
        return "enable `json` in the instance's settings.yml (search: formats: [html, json]) or check its auth"

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        params: dict[str, Any] = {"q": request.query, "format": "json", "categories": _CATEGORIES[request.kind]}
        if request.locale:
            params["language"] = request.locale
        data = await self.send_json("GET", "/search", params=params, headers={"Accept": "application/json"})
        results = self.results(
            data.get("results"),
            request.max_results,
            snippet=("content",),
            date=("publishedDate",),
            extras=("engines", "img_src"),
        )
        extras = {key: data[key] for key in ("answers", "infoboxes") if data.get(key)}
        return ProviderAnswer(results=results, extras=extras)
