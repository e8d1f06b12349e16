"""Brave Search: `GET /res/v1/web/search` (and `/news/search`), key in `X-Subscription-Token`."""

from __future__ import annotations

from typing import Any

from weblens.errors import WeblensError
from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, HttpReply, register

__all__ = ["BraveProvider"]

_PATHS = {"search": "/res/v1/web/search", "news": "/res/v1/news/search"}
_MAX_QUERY_CHARS = 400
"""Brave refuses longer queries with a 422."""


@register
class BraveProvider(HttpProvider):
    """Brave documents a bad key as 422 but answers 401; both mean "set BRAVE_API_KEY".
    A 422 about anything but the token is a bad request, reported as such."""

    name = "brave"
    kinds = frozenset({"search", "news"})

    def error(self, reply: HttpReply) -> WeblensError:
        if reply.status == 422 and b"TOKEN" in reply.body.upper():
            reply = HttpReply(401, reply.headers, reply.body, reply.text)
        return super().error(reply)

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        params: dict[str, Any] = {"q": request.query[:_MAX_QUERY_CHARS], "count": request.max_results}
        if request.country:
            params["country"] = request.country
        if request.locale:
            params["search_lang"] = request.locale
        headers = {"X-Subscription-Token": self.api_key(), "Accept": "application/json"}
        data = await self.send_json("GET", _PATHS[request.kind], params=params, headers=headers)
        web = data.get("web")
        items = data.get("results") if request.kind == "news" else web.get("results") if isinstance(web, dict) else None
        results = self.results(
            items,
            request.max_results,
            snippet=("description",),
            date=("page_age", "age"),
            extras=("age", "language", "extra_snippets"),
        )
        return ProviderAnswer(results=results)
