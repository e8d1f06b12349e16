"""What a search asks and answers, the same for every provider.

Titles and snippets arrive with `<strong>` tags and `&amp;` entities from some
providers; they are cleaned here, once, so nothing downstream has to.
"""

from __future__ import annotations

import html
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints, ValidationError

from weblens.errors import ToolValidationError

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "ProviderAnswer",
    "ProviderFailure",
    "Query",
    "SearchKind",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "clean_text",
    "make_request",
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


Query = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUERY_CHARS),
    AfterValidator(lambda q: _SPACE.sub(" ", q)),
]
CleanText = Annotated[str, AfterValidator(clean_text)]


class SearchRequest(BaseModel):
    """A normalised search; its JSON form is the cache key, whoever answers it."""

    model_config = {"frozen": True}

    query: Query
    max_results: int = Field(default=5, ge=1, le=MAX_RESULTS)
    kind: SearchKind = "search"
    country: str | None = None
    locale: str | None = None

    def cache_parts(self) -> dict[str, Any]:
        parts = self.model_dump()
        parts["query"] = self.query.casefold()
        return parts


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
    """The outcome of a search: who answered, who failed before it and why."""

    query: str
    provider: str
    results: list[SearchResult] = Field(default_factory=list)
    extras: dict[str, Any] = Field(default_factory=dict)
    failures: list[ProviderFailure] = Field(default_factory=list)
    cached: bool = False
