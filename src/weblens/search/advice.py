"""What a search error tells a newcomer to do when keyless search fails: DuckDuckGo's HTML
endpoint answers many servers with bot checks after a handful of queries, and a machine
without DNS or internet reaches no provider at all. One wording, used by the router and the
DuckDuckGo provider (docs/keyless-search.md says the same at length)."""

from __future__ import annotations

__all__ = ["ANOTHER_PROVIDER", "SEARXNG_DOCKER_RUN"]

SEARXNG_DOCKER_RUN = (
    'docker run -d --name searxng -p 127.0.0.1:8888:8080 -v "$PWD/deploy/searxng:/etc/searxng" '
    "-e SEARXNG_SECRET=$(openssl rand -hex 32) searxng/searxng"
)
"""SearXNG with the JSON API on (deploy/searxng/settings.yml in a checkout; docs/keyless-search.md shows the file)."""
ANOTHER_PROVIDER = (
    "a key (TAVILY_API_KEY, BRAVE_API_KEY or SERPER_API_KEY), or your own SearXNG "
    f"(`{SEARXNG_DOCKER_RUN}`, then WEBLENS_SEARXNG_BASE_URL=http://127.0.0.1:8888; docs/keyless-search.md)"
)
"""The ways to reliable search, for an error to end with."""
