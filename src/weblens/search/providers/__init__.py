"""The search providers, one module each; importing this package fills `PROVIDERS`."""

from weblens.search.providers import brave, duckduckgo, searxng, serper, tavily
from weblens.search.providers.base import PROVIDERS, HttpProvider, SearchProvider, is_configured

__all__ = [
    "PROVIDERS",
    "HttpProvider",
    "SearchProvider",
    "brave",
    "duckduckgo",
    "is_configured",
    "searxng",
    "serper",
    "tavily",
]
