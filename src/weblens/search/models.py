"""What a search asks and answers, the same for every provider.

Titles and snippets arrive with `<strong>` tags and `&amp;` entities from some
providers; they are cleaned here, once, so nothing downstream has to.
"""

from __future__ import annotations

import functools
import html
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, StringConstraints, ValidationError

from weblens.errors import ToolValidationError
from weblens.policy.domains import normalise_domain

__all__ = [
    "MAX_DOMAINS",
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "MAX_SNIPPET_CHARS",
    "MAX_TITLE_CHARS",
    "SEARCH_PARAMS",
    "Applied",
    "ProviderAnswer",
    "ProviderFailure",
    "Query",
    "Rank",
    "SafeSearch",
    "SearchKind",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "TimeRange",
    "clean_text",
    "make_request",
    "shortened",
]

MAX_RESULTS = 10
MAX_QUERY_CHARS = 2000
SearchKind = Literal["search", "news", "images"]

_SPACE = re.compile(r"\s+")


def _strip_tags(value: str) -> str:
    """`value` without its `<...>` tags, in one pass: a `<` that is never closed stays as text.

    A regex such as `<[^>]*>` rescans the rest of the string from every unclosed `<`
    (60 000 of them took seconds); each `find` here starts where the last one stopped.
    """
    parts: list[str] = []
    done = 0
    while (start := value.find("<", done)) >= 0:
        end = value.find(">", start)
        if end < 0:
            break
        parts.append(value[done:start])
        done = end + 1
    parts.append(value[done:])
    return "".join(parts)


def clean_text(value: str | None) -> str:
    """Plain text from a provider's snippet: tags dropped, entities decoded, spaces collapsed."""
    if not value:
        return ""
    return " ".join(html.unescape(_strip_tags(value)).split())


MAX_TITLE_CHARS = 300
MAX_SNIPPET_CHARS = 2000
MAX_DATE_CHARS = 64
"""What a result's fields are cut to: a snippet is a few sentences (Tavily's longest, three
500-character chunks), and a provider that sends 200 kB per snippet must not fill a model's context."""


def shortened(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, at a space when one is near the end, with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit * 0.8 else cut).rstrip() + "…"


Query = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUERY_CHARS),
    AfterValidator(lambda q: _SPACE.sub(" ", q)),
]
CleanText = Annotated[str, AfterValidator(clean_text)]

MAX_DOMAINS = 100
"""Most domains one search may include or exclude."""
TimeRange = Literal["day", "week", "month", "year"]
SafeSearch = Literal["off", "moderate", "strict"]
Applied = Literal["native", "local", "not_possible"]
"""How a search parameter was applied by one provider: in its own API, by weblens on its
results, or not at all (the provider has no such thing and it cannot be checked locally)."""
SEARCH_PARAMS = ("include_domains", "exclude_domains", "time_range", "country", "language", "safesearch", "topic")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8}){0,2}")


def _country(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    code = value.strip().upper()
    if code == "UK":  # the common spelling of GB
        code = "GB"
    if len(code) != 2 or not code.isalpha() or code not in territory_names():
        raise ValueError(f"{value!r} is not an ISO 3166-1 two-letter country code (e.g. US, DE, CN)")
    return code


def _language(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    code = value.strip().lower().replace("_", "-")
    if not _LANGUAGE.fullmatch(code):
        raise ValueError(f"{value!r} is not a language code (e.g. en, de, pt-br, zh-hans)")
    return code


def _domain_list(value: Any) -> Any:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [part for part in value.split(",") if part.strip()]
    if isinstance(value, list | tuple) and len(value) > MAX_DOMAINS:
        raise ValueError(f"at most {MAX_DOMAINS} domains")
    if isinstance(value, list | tuple):
        return tuple(sorted({normalise_domain(str(item)) for item in value}))
    return value


@functools.cache
def territory_names() -> dict[str, str]:
    """ISO 3166-1 alpha-2 codes and their English names (e.g. "US": "United States"): constant data."""
    from babel import Locale  # loaded only when a country is given

    names = Locale("en").territories
    return {code: str(name) for code, name in names.items() if len(code) == 2 and code.isalpha()}


Country = Annotated[str | None, BeforeValidator(_country)]
Language = Annotated[str | None, BeforeValidator(_language)]
Domains = Annotated[tuple[str, ...], BeforeValidator(_domain_list)]


class SearchRequest(BaseModel):
    """A normalised search; its JSON form is the cache key, whoever answers it.

    `include_domains`/`exclude_domains` hold domain names (subdomains included),
    `country` an ISO 3166-1 code, `language` a language code; each provider maps them onto
    its own API where it has them, and weblens filters domains locally where it has not.
    """

    model_config = {"frozen": True}

    query: Query
    max_results: int = Field(default=5, ge=1, le=MAX_RESULTS)
    kind: SearchKind = "search"
    country: Country = None
    language: Language = None
    include_domains: Domains = ()
    exclude_domains: Domains = ()
    time_range: TimeRange | None = None
    safesearch: SafeSearch | None = None

    def cache_parts(self) -> dict[str, Any]:
        parts = self.model_dump()
        parts["query"] = self.query.casefold()
        return parts

    def requested(self) -> list[str]:
        """The optional parameters this search sets (names from `SEARCH_PARAMS`)."""
        asked = [name for name in SEARCH_PARAMS if name != "topic" and getattr(self, name)]
        return [*asked, "topic"] if self.kind == "news" else asked


def make_request(**fields: Any) -> SearchRequest:
    """A `SearchRequest`, or `ToolValidationError` naming the bad field (empty query, bad count)."""
    try:
        return SearchRequest(**fields)
    except ValidationError as exc:
        issues = [
            {"field": ".".join(str(p) for p in err["loc"]), "message": err["msg"], "type": err["type"]}
            for err in exc.errors(include_url=False)
        ]
        detail = "; ".join(f"{i['field']}: {i['message']}" for i in issues)
        raise ToolValidationError(f"invalid search: {detail}", issues) from None


class Rank(BaseModel):
    """Where one provider ranked a result (1 is its first)."""

    provider: str
    rank: int


class SearchResult(BaseModel):
    """One hit, in the shape every provider is mapped to."""

    title: CleanText = ""
    url: str
    snippet: CleanText = ""
    published_at: str | None = None
    position: int = Field(ge=1)
    provider: str
    extras: dict[str, Any] = Field(default_factory=dict)
    """Provider-specific fields worth keeping (e.g. Serper's sitelinks, an image URL)."""
    found_by: list[Rank] = Field(default_factory=list)
    """Every provider that returned this page (by canonical URL) and at which rank."""
    score: float | None = None
    """Reciprocal-rank fusion score when several providers were fused."""


class ProviderAnswer(BaseModel):
    """What one provider returned: results plus answer-level extras (answer box, knowledge graph)."""

    results: list[SearchResult] = Field(default_factory=list)
    extras: dict[str, Any] = Field(default_factory=dict)


class ProviderFailure(BaseModel):
    """Why a provider did not answer: its error code, message and HTTP status when known."""

    provider: str
    code: str
    message: str
    status: int | None = None


class SearchResponse(BaseModel):
    """The outcome of a search: who answered, who failed before it and why.

    A fused search (several providers at once) names all who answered in `providers`
    and is `partial` when one of them failed; `applied` says, per parameter and provider,
    how each optional parameter was applied (`native`, `local` or `not_possible`).
    """

    query: str
    provider: str
    results: list[SearchResult] = Field(default_factory=list)
    extras: dict[str, Any] = Field(default_factory=dict)
    failures: list[ProviderFailure] = Field(default_factory=list)
    cached: bool = False
    providers: list[str] = Field(default_factory=list)
    fused: bool = False
    """Several providers were asked at once (`providers=`), whether or not all answered."""
    partial: bool = False
    applied: dict[str, dict[str, Applied]] = Field(default_factory=dict)
    filtered_out: int = 0
    """Results the providers returned that the domain filters removed."""
