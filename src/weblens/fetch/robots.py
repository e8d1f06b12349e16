"""Optional robots.txt check, through the same guarded client, cached per site.

Off by default: weblens fetches one page because a person (through their agent) asked
for it, like a browser does; robots.txt governs crawlers. Turn it on with
`fetch.respect_robots` or per call. RFC 9309: a 4xx robots.txt allows everything, a 5xx
or unreachable one disallows everything, and rules match with `*` and `$` wildcards
(`Disallow: /*.pdf$`), which is why the parser is `protego` and not `urllib.robotparser`
(that one treats them as literal characters).
"""

from __future__ import annotations

import httpx
from protego import Protego

from weblens.cache import Cache, cache_key
from weblens.errors import BlockedError, WeblensError
from weblens.fetch.decode import decode_body
from weblens.net import translate_errors
from weblens.net.body import read_capped

__all__ = ["RobotsPolicy"]

_MAX_ROBOTS_BYTES = 512 * 1024
_NAMESPACE = "robots"
_HEADERS = {"Accept-Encoding": "gzip, deflate"}  # the encodings read_capped can decompress


class RobotsPolicy:
    """Raises BlockedError for a URL the site's robots.txt disallows for our user agent."""

    def __init__(self, client: httpx.AsyncClient, cache: Cache, user_agent: str, ttl_s: float) -> None:
        self._client = client
        self._cache = cache
        self._agent = user_agent
        self._ttl = ttl_s

    async def _rules(self, origin: str) -> dict[str, object]:
        async def load() -> dict[str, object]:
            try:
                url = f"{origin}/robots.txt"
                with translate_errors(url):
                    async with self._client.stream("GET", url, headers=_HEADERS, follow_redirects=False) as r:
                        # RFC 9309 reads at least 500 KiB; more is cut, not buffered (a huge or endless file)
                        body = await read_capped(r, _MAX_ROBOTS_BYTES, truncate=True)
                        status, charset = r.status_code, r.charset_encoding
            except BlockedError:
                raise
            except WeblensError:
                return {"status": 599, "text": ""}
            return {"status": status, "text": decode_body(body, f"text/plain; charset={charset or 'utf-8'}")[0]}

        rules, _ = await self._cache.get_or_compute(_NAMESPACE, cache_key(origin), self._ttl, load)
        return rules

    async def rules(self, url: httpx.URL) -> Protego | None:
        """The parsed robots.txt of `url`'s site (its `Sitemap:` lines, `Crawl-delay`); None when
        the site has none, which allows everything. BlockedError when it could not be read."""
        origin = f"{url.scheme}://{url.netloc.decode('ascii')}"
        rules = await self._rules(origin)
        status = int(str(rules["status"]))
        if status >= 500:
            raise BlockedError(
                f"robots.txt of {url.host} could not be read (HTTP {status}), which means no fetching "
                "(respect_robots is on)",
                details={"robots_status": status},  # the site failing, not a rule it set
            )
        if status >= 300:
            return None
        return Protego.parse(str(rules["text"]))

    def allows(self, parser: Protego | None, url: str) -> bool:
        return parser is None or bool(parser.can_fetch(url, self._agent))

    def crawl_delay(self, parser: Protego | None) -> float | None:
        delay = None if parser is None else parser.crawl_delay(self._agent)
        return None if delay is None else float(delay)

    async def __call__(self, url: httpx.URL) -> None:
        parser = await self.rules(url)
        if not self.allows(parser, str(url)):
            raise BlockedError(f"robots.txt of {url.host} disallows fetching {url.path} (respect_robots is on)")
