"""Optional robots.txt check, through the same guarded client, cached per site.

Off by default: weblens fetches one page because a person (through their agent) asked
for it, like a browser does; robots.txt governs crawlers. Turn it on with
`fetch.respect_robots` or per call. RFC 9309: a 4xx robots.txt allows everything, a 5xx
or unreachable one disallows everything, and rules match with `*` and `$` wildcards
(`Disallow: /*.pdf$`), which is why the parser is `protego` and not `urllib.robotparser`
(that one treats them as literal characters). A redirected robots.txt is followed for up to
five hops, each passing the guard and the policy (RFC 9309 2.3.1.2); past them it is unavailable.
"""

from __future__ import annotations

import re

import httpx
from protego import Protego

from weblens.cache import Cache, cache_key
from weblens.errors import BlockedError, WeblensError
from weblens.fetch.client import REDIRECT_STATUSES, UrlCheck
from weblens.fetch.decode import decode_body
from weblens.net import translate_errors
from weblens.net.body import read_capped
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import SsrfGuard, default_port

__all__ = ["RobotsPolicy"]

_MAX_ROBOTS_BYTES = 512 * 1024
_NAMESPACE = "robots"
_HEADERS = {"Accept-Encoding": "gzip, deflate"}  # the encodings read_capped can decompress
_URL_IN_AGENT = re.compile(r"\+?https?://\S*?(?=[;)\s]|$)")
"""The contact URL of a user agent ("weblens/0.1 (+https://github.com/weblens/weblens)"). protego finds
a group's name anywhere in the string it is given, so with the URL left in, `User-agent: github` or
`User-agent: https` groups ruled weblens; RFC 9309 matches only the product token."""
_MAX_REDIRECTS = 5
"""RFC 9309: follow at least five consecutive redirects, even to another host."""
_UNAVAILABLE = 404
"""What more redirects than that count as: a robots.txt that is not there (everything allowed)."""


class RobotsPolicy:
    """Raises BlockedError for a URL the site's robots.txt disallows for our user agent."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        cache: Cache,
        user_agent: str,
        ttl_s: float,
        *,
        guard: SsrfGuard | None = None,
        policy: UrlCheck | None = None,
    ) -> None:
        """`guard` and `policy` check each redirect hop of robots.txt before it is asked (the first
        one is the caller's to check, as for the page itself)."""
        self._client = client
        self._guard = guard
        self._policy = policy
        self._cache = cache
        self._agent = _URL_IN_AGENT.sub("", user_agent)
        self._ttl = ttl_s

    async def _rules(self, origin: str) -> dict[str, object]:
        async def load() -> dict[str, object]:
            url = httpx.URL(f"{origin}/robots.txt")
            for hop in range(_MAX_REDIRECTS + 1):
                if hop:
                    await self._check_hop(url)
                try:
                    with translate_errors(str(url)):
                        async with self._client.stream("GET", url, headers=_HEADERS, follow_redirects=False) as r:
                            if r.status_code in REDIRECT_STATUSES and "location" in r.headers:
                                url = url.join(r.headers["location"])
                                continue
                            # RFC 9309 reads at least 500 KiB; more is cut, not buffered (a huge or endless file)
                            body = await read_capped(r, _MAX_ROBOTS_BYTES, truncate=True)
                            status, charset = r.status_code, r.charset_encoding
                except BlockedError:
                    raise
                except WeblensError:
                    return {"status": 599, "text": ""}
                return {"status": status, "text": decode_body(body, f"text/plain; charset={charset or 'utf-8'}")[0]}
            return {"status": _UNAVAILABLE, "text": ""}

        rules, _ = await self._cache.get_or_compute(_NAMESPACE, cache_key(origin), self._ttl, load)
        return rules

    async def _check_hop(self, url: httpx.URL) -> None:
        """A redirect target of robots.txt passes what the page's own redirects pass: the SSRF guard
        (a robots.txt redirected to 169.254.169.254 is refused, not read) and the domain policy."""
        if self._guard is not None:
            self._guard.check_url(url)
            if not is_guarded(self._client):
                await self._guard.resolve(url.host, url.port or default_port(url.scheme))
        if self._policy is not None:
            self._policy(str(url))

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
