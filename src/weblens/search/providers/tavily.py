"""Tavily: `POST /search` with `Authorization: Bearer`; errors are `{"detail": {"error": ...}}`.

Domains, time range, topic and (for general search) country are Tavily parameters;
Tavily takes a country as its lower-case English name ("united states") from a closed
list (one outside it is not sent). It has no language or safe-search setting.
"""

from __future__ import annotations

from typing import Any

from weblens.search.models import ProviderAnswer, SearchRequest, territory_names
from weblens.search.providers.base import HttpProvider, register

__all__ = ["TAVILY_COUNTRIES", "TavilyProvider", "tavily_country"]

_MAX_QUERY_CHARS = 400
"""Tavily refuses longer queries: 400 "Query is too long. Max query length is 400 characters."."""
TAVILY_COUNTRIES = frozenset({
    "afghanistan", "albania", "algeria", "andorra", "angola", "argentina", "armenia", "australia", "austria",
    "azerbaijan", "bahamas", "bahrain", "bangladesh", "barbados", "belarus", "belgium", "belize", "benin",
    "bhutan", "bolivia", "bosnia and herzegovina", "botswana", "brazil", "brunei", "bulgaria", "burkina faso",
    "burundi", "cambodia", "cameroon", "canada", "cape verde", "central african republic", "chad", "chile",
    "china", "colombia", "comoros", "congo", "costa rica", "croatia", "cuba", "cyprus", "czech republic",
    "denmark", "djibouti", "dominican republic", "ecuador", "egypt", "el salvador", "equatorial guinea", "eritrea",
    "estonia", "ethiopia", "fiji", "finland", "france", "gabon", "gambia", "georgia", "germany", "ghana", "greece",
    "guatemala", "guinea", "haiti", "honduras", "hungary", "iceland", "india", "indonesia", "iran", "iraq",
    "ireland", "israel", "italy", "jamaica", "japan", "jordan", "kazakhstan", "kenya", "kuwait", "kyrgyzstan",
    "latvia", "lebanon", "lesotho", "liberia", "libya", "liechtenstein", "lithuania", "luxembourg", "madagascar",
    "malawi", "malaysia", "maldives", "mali", "malta", "mauritania", "mauritius", "mexico", "moldova", "monaco",
    "mongolia", "montenegro", "morocco", "mozambique", "myanmar", "namibia", "nepal", "netherlands", "new zealand",
    "nicaragua", "niger", "nigeria", "north korea", "north macedonia", "norway", "oman", "pakistan", "panama",
    "papua new guinea", "paraguay", "peru", "philippines", "poland", "portugal", "qatar", "romania", "russia",
    "rwanda", "saudi arabia", "senegal", "serbia", "singapore", "slovakia", "slovenia", "somalia", "south africa",
    "south korea", "south sudan", "spain", "sri lanka", "sudan", "sweden", "switzerland", "syria", "taiwan",
    "tajikistan", "tanzania", "thailand", "togo", "trinidad and tobago", "tunisia", "turkey", "turkmenistan",
    "uganda", "ukraine", "united arab emirates", "united kingdom", "united states", "uruguay", "uzbekistan",
    "venezuela", "vietnam", "yemen", "zambia", "zimbabwe",
})  # fmt: skip
"""The `country` names Tavily takes (its documented list); any other is a 400 "Invalid country"."""
_COUNTRY_NAMES = {
    "BA": "bosnia and herzegovina", "CG": "congo", "CZ": "czech republic", "MM": "myanmar",
    "TT": "trinidad and tobago", "TR": "turkey",
}  # fmt: skip
"""Where Tavily's name is not the English name babel gives (`Czechia`, `Türkiye`, `Bosnia & Herzegovina`)."""
_MAX_INCLUDE = 300
_MAX_EXCLUDE = 150
"""Tavily's limits; longer lists are filtered by weblens instead."""


def tavily_country(code: str) -> str | None:
    """Tavily's name for an ISO 3166-1 code (`US` → `united states`), or None when it has none."""
    name = _COUNTRY_NAMES.get(code) or territory_names().get(code, "").lower()
    return name if name in TAVILY_COUNTRIES else None


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
        if request.kind == "news" or (request.country and tavily_country(request.country) is None):
            params.discard("country")  # Tavily applies country to general search only, and knows ~170
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
            body["country"] = tavily_country(request.country)
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
