"""Brave Search: `GET /res/v1/web/search` (and `/news/search`), key in `X-Subscription-Token`.

Country, language (`search_lang`), safe search and time range (`freshness`) are Brave
parameters, each a closed list (a code outside it is a 422: those are not sent); Brave has
none for domains, so weblens filters those itself.
"""

from __future__ import annotations

import math
from typing import Any

from weblens.errors import WeblensError
from weblens.search.models import ProviderAnswer, SearchRequest
from weblens.search.providers.base import HttpProvider, HttpReply, register

__all__ = ["BRAVE_COUNTRIES", "BRAVE_LANGUAGES", "BraveProvider", "search_lang"]

_PATHS = {"search": "/res/v1/web/search", "news": "/res/v1/news/search"}
_MAX_QUERY_CHARS = 400
_MAX_QUERY_WORDS = 50
"""Brave refuses longer queries (in characters or in words) with a 422."""
_MAX_COUNT = 20
_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
BRAVE_COUNTRIES = frozenset({
    "AR", "AU", "AT", "BE", "BR", "CA", "CL", "DK", "FI", "FR", "DE", "HK", "IN", "ID", "IT", "JP", "KR", "MY",
    "MX", "NL", "NZ", "NO", "CN", "PL", "PT", "PH", "RU", "SA", "ZA", "ES", "SE", "CH", "TW", "TR", "GB", "US",
})  # fmt: skip
"""The `country` codes Brave takes (its documented list); any other is a 422, so those search `ALL`."""
BRAVE_LANGUAGES = frozenset({
    "ar", "eu", "bn", "bg", "ca", "zh-hans", "zh-hant", "hr", "cs", "da", "nl", "en", "en-gb", "et", "fi", "fr",
    "gl", "de", "gu", "he", "hi", "hu", "is", "it", "jp", "kn", "ko", "lv", "lt", "ms", "ml", "mr", "nb", "pl",
    "pt-br", "pt-pt", "pa", "ro", "ru", "sr", "sk", "sl", "es", "sv", "ta", "te", "th", "tr", "uk", "vi",
})  # fmt: skip
"""The `search_lang` codes Brave takes (its documented list); any other is a 422."""
_LANGUAGE_ALIASES = {
    "ja": "jp", "zh": "zh-hans", "zh-cn": "zh-hans", "zh-sg": "zh-hans", "zh-tw": "zh-hant", "zh-hk": "zh-hant",
    "zh-mo": "zh-hant", "pt": "pt-br", "no": "nb",
}  # fmt: skip
"""Common codes in Brave's spelling: Japanese is `jp`, Chinese names its script, Portuguese its country."""


def search_lang(language: str) -> str | None:
    """Brave's `search_lang` for a language code (`zh` → `zh-hans`, `ja` → `jp`, `de-at` → `de`), or
    None when Brave has no such language."""
    parts = language.split("-")
    for size in range(len(parts), 0, -1):
        code = "-".join(parts[:size])
        code = _LANGUAGE_ALIASES.get(code, code)
        if code in BRAVE_LANGUAGES:
            return code
    return None


def _longest_reset(reply: HttpReply) -> float | None:
    """The last (longest) window of `X-RateLimit-Reset: 1, 1419704`: when the monthly quota returns."""
    windows = reply.headers.get("x-ratelimit-reset", "").split(",")
    try:
        waits = [float(window) for window in windows if window.strip()]
    except ValueError:
        return None
    return max(waits) if waits and all(map(math.isfinite, waits)) else None  # `inf` would bench a key for ever


@register
class BraveProvider(HttpProvider):
    """Brave documents a bad key as 422 but answers 401; both mean "set BRAVE_API_KEY".
    A 422 about anything but the token is a bad request, reported as such. A 429 whose
    code is QUOTA_LIMITED is the key's monthly quota, not a rate limit."""

    name = "brave"
    kinds = frozenset({"search", "news"})
    native = frozenset({"time_range", "country", "language", "safesearch", "topic"})

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        params = set(self.native)
        if request.country and request.country not in BRAVE_COUNTRIES:
            params.discard("country")
        if request.language and search_lang(request.language) is None:
            params.discard("language")
        return frozenset(params)

    def error(self, reply: HttpReply) -> WeblensError:
        if reply.status == 422 and b"TOKEN" in reply.body.upper():
            reply = HttpReply(401, reply.headers, reply.body, reply.text)
        if reply.status == 429 and b"QUOTA_LIMITED" in reply.body:
            reset = _longest_reset(reply)  # unreadable: the configured cool-down, not the per-second window
            return self.quota_error(reply, reset if reset is not None else self.settings.search.key_quota_cooldown_s)
        return super().error(reply)

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        count = min(self.upstream_count(request), _MAX_COUNT)
        query = " ".join(request.query.split()[:_MAX_QUERY_WORDS])[:_MAX_QUERY_CHARS]
        params: dict[str, Any] = {"q": query, "count": count}
        if request.country:  # one Brave does not know: all regions rather than its default, the US
            params["country"] = request.country if request.country in BRAVE_COUNTRIES else "ALL"
        if request.language and (language := search_lang(request.language)):
            params["search_lang"] = language
        if request.safesearch:
            params["safesearch"] = request.safesearch
        if request.time_range:
            params["freshness"] = _FRESHNESS[request.time_range]
        headers = {"X-Subscription-Token": key or "", "Accept": "application/json"}
        data = await self.send_json("GET", _PATHS[request.kind], params=params, headers=headers)
        web = data.get("web")
        items = data.get("results") if request.kind == "news" else web.get("results") if isinstance(web, dict) else None
        results = self.results(
            items,
            count,
            snippet=("description",),
            date=("page_age", "age"),
            extras=("age", "language", "extra_snippets"),
        )
        return ProviderAnswer(results=results)
