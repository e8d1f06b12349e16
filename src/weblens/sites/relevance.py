"""How well a URL's words, title and link text match a query: the order of a map, and of a
best-first crawl's frontier, before any page is read."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from weblens.fetch.ranking import query_terms, terms

__all__ = ["Relevance"]

_TITLE_WEIGHT = 3.0
_URL_WEIGHT = 2.0


class Relevance:
    """Scores against one query, in [0, 1]: the share of its words found, titles counting most."""

    def __init__(self, query: str) -> None:
        self.words = query_terms(query)

    def score(self, url: str, title: str | None = None, text: str | None = None) -> float:
        if not self.words:
            return 0.0
        parts = urlsplit(url)
        in_url = set(terms(unquote(f"{parts.path} {parts.query}").replace("_", " ")))
        in_title = set(terms(f"{title or ''} {text or ''}"))
        got = sum(_TITLE_WEIGHT if word in in_title else _URL_WEIGHT if word in in_url else 0.0 for word in self.words)
        return round(got / (_TITLE_WEIGHT * len(self.words)), 4)
