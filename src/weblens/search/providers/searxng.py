"""SearXNG: `GET /search?format=json` on your own instance; no key, only a base URL.

Language, time range, safe search and topic (`categories=news`) are SearXNG parameters;
a country only as the region of a language (`de-DE`), so a country alone cannot be
applied. Domains are filtered by weblens.
"""

from __future__ import annotations

import re
from typing import Any

from weblens.errors import RateLimitedError, UpstreamError, WeblensError
from weblens.search.models import ProviderAnswer, SearchRequest, clean_text
from weblens.search.providers.base import HttpProvider, register

__all__ = ["SearxngProvider"]

_CATEGORIES = {"search": "general", "news": "news", "images": "images"}
_SAFESEARCH = {"off": "0", "moderate": "1", "strict": "2"}
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[a-zA-Z]{2})?")
"""What SearXNG takes as `language` (its VALID_LANGUAGE_CODE); `zh-hans` or `sr-latn` is a 400."""
_BLOCKED_MARKERS = ("too many requests", "captcha", "access denied")
"""SearXNG's words for an engine that refused the instance (its `SearxEngine...` errors)."""
_REASONS_MAX_CHARS = 300


def _language(language: str, country: str | None) -> str:
    """`de` + DE → `de-DE`; `pt-br` stays; a code SearXNG refuses (`zh-hans`) becomes its language (`zh`)."""
    base = language.split("-")[0]
    if country:
        return f"{base}-{country}"
    return language if _LANGUAGE.fullmatch(language) else base


def _engines_failed(unresponsive: Any) -> WeblensError | None:
    """No result because the engines the instance asked failed (`unresponsive_engines`:
    `[["google", "Suspended: too many requests"], ...]`): that is not "no results"."""
    entries = unresponsive if isinstance(unresponsive, list) else []
    failed = [entry for entry in entries if isinstance(entry, list) and entry]
    if not failed:
        return None
    reasons = clean_text("; ".join(": ".join(str(part) for part in entry[:2]) for entry in failed))[:_REASONS_MAX_CHARS]
    said = f"searxng found nothing because its engines failed ({reasons}); this is not 'no results'"
    if any(marker in reasons.lower() for marker in _BLOCKED_MARKERS):
        return RateLimitedError(f"{said}. The engines blocked the instance; another provider may answer")
    return UpstreamError(said, retryable=True)


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
            params["language"] = _language(request.language, request.country)
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
        if not results and not extras and (failed := _engines_failed(data.get("unresponsive_engines"))):
            raise failed
        return ProviderAnswer(results=results, extras=extras)
