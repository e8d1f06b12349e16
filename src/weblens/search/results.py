"""What happens to one provider's answer before anyone sees it, and how each parameter was applied.

Results outside the domain filters are dropped here, whatever the provider was told, so
the operator's policy and a caller's `include_domains`/`exclude_domains` hold even where
a provider has no such parameter (or ignores it). Two results for the same page (the same
canonical URL) keep the better-ranked one.
"""

from __future__ import annotations

from weblens.policy.domains import DomainPolicy
from weblens.search.models import Applied, Rank, SearchRequest, SearchResult
from weblens.search.providers.base import SearchProvider
from weblens.urls import canonical_url

__all__ = ["LOCAL_PARAMS", "applied", "domain_filter", "kept_results"]

LOCAL_PARAMS = frozenset({"include_domains", "exclude_domains"})
"""Parameters weblens can apply to any provider's results itself."""


def domain_filter(request: SearchRequest) -> DomainPolicy:
    """The domain filter a request carries (the operator's policy is already merged into it)."""
    return DomainPolicy(frozenset(request.include_domains) or None, frozenset(request.exclude_domains))


def kept_results(provider: str, results: list[SearchResult], request: SearchRequest) -> tuple[list[SearchResult], int]:
    """(the results that pass the domain filter, one per page, each knowing its provider rank;
    how many were dropped by the filter)."""
    allowed = domain_filter(request)
    kept: list[SearchResult] = []
    seen: set[str] = set()
    dropped = 0
    for result in results:
        if not allowed.allows(result.url):
            dropped += 1
            continue
        page = canonical_url(result.url)
        if page in seen:
            continue
        seen.add(page)
        kept.append(result.model_copy(update={"found_by": [Rank(provider=provider, rank=result.position)]}))
    return kept, dropped


def applied(request: SearchRequest, answered: list[SearchProvider]) -> dict[str, dict[str, Applied]]:
    """For each optional parameter the request sets: how each provider that answered applied it."""
    report: dict[str, dict[str, Applied]] = {}
    for param in request.requested():
        report[param] = {}
        for provider in answered:
            how: Applied
            if param in provider.native_params(request):
                how = "native"
            elif param in LOCAL_PARAMS:
                how = "local"
            else:
                how = "not_possible"
            report[param][provider.name] = how
    return report
