"""Reciprocal-rank fusion: several providers' ranked lists become one.

A page's score is the sum of 1 / (k + rank) over the providers that returned it (k = 60,
as in Cormack et al. 2009): found high by one or found by many both count, and no
provider's own scores need to be comparable. Pages are the same when their canonical
URLs are (`weblens.urls.canonical_url`); the title and snippet come from the provider
that ranked the page highest.
"""

from __future__ import annotations

from weblens.search.models import Rank, SearchResult
from weblens.urls import canonical_url

__all__ = ["RRF_K", "fuse", "numbered"]

RRF_K = 60


def numbered(results: list[SearchResult], limit: int) -> list[SearchResult]:
    """The first `limit` results, positions renumbered 1..n."""
    return [result.model_copy(update={"position": i}) for i, result in enumerate(results[:limit], start=1)]


def fuse(lists: list[tuple[str, list[SearchResult]]], limit: int) -> list[SearchResult]:
    """One list from per-provider lists (in provider order), best fused score first."""
    best: dict[str, SearchResult] = {}
    ranks: dict[str, list[Rank]] = {}
    order: dict[str, tuple[int, int]] = {}
    for index, (provider, results) in enumerate(lists):
        for result in results:
            page = canonical_url(result.url)
            rank = Rank(provider=provider, rank=result.position)
            ranks.setdefault(page, []).append(rank)
            seen = order.get(page)
            if seen is None or (result.position, index) < seen:
                best[page], order[page] = result, (result.position, index)
    scored = []
    for page, found in ranks.items():
        score = sum(1.0 / (RRF_K + rank.rank) for rank in found)
        scored.append((-score, order[page], page))
    scored.sort()
    fused = [
        best[page].model_copy(update={"found_by": ranks[page], "score": round(-negative, 6)})
        for negative, _, page in scored
    ]
    return numbered(fused, limit)
