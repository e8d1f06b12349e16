"""Every download of a site walk — sitemaps, llms.txt, pages — through the fetcher's one
guarded client: the SSRF guard, the operator's domain policy, robots.txt (always, for a
crawler), the `fetch.max_bytes` cap and `fetch.timeout`, and per-host politeness."""

from __future__ import annotations

import asyncio

import httpx
from protego import Protego

from weblens.errors import BlockedError, RateLimitedError, ToolTimeoutError, UpstreamError
from weblens.fetch.client import Downloaded, download
from weblens.fetch.fetcher import Fetcher
from weblens.fetch.robots import RobotsPolicy
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import default_port
from weblens.sites.polite import Gate, GateFactory, HostGate

__all__ = ["DEFAULT_CONCURRENCY", "SiteClient"]

DEFAULT_CONCURRENCY = 2
"""Requests in flight per host at most."""
_RATE_LIMIT_RETRIES = 2


class SiteClient:
    """Downloads for one site walk; the fetcher (and its client, cache and policy) is the caller's."""

    def __init__(
        self, fetcher: Fetcher, *, concurrency: int = DEFAULT_CONCURRENCY, gates: GateFactory | None = None
    ) -> None:
        """`gates` makes each host's gate (default: a `HostGate` of this walk's own)."""
        self.fetcher = fetcher
        self._new_gate: GateFactory = gates or (lambda host, concurrency, interval: HostGate(concurrency, interval))
        config = fetcher.settings.fetch
        self.robots = RobotsPolicy(
            fetcher.http, fetcher.cache, config.user_agent, config.cache_ttl_s,
            guard=fetcher.guard, policy=fetcher.policy.check,
        )  # fmt: skip
        self._concurrency = concurrency
        self._gates: dict[str, Gate] = {}
        self._parsed: dict[str, Protego | None] = {}

    def _target(self, url: str) -> httpx.URL:
        target = self.fetcher.guard.check_url(url)
        self.fetcher.policy.check(str(target))
        return target

    async def rules(self, url: str) -> Protego | None:
        """robots.txt of `url`'s site (None: it has none), read and parsed once per walk (whether or
        not the cache is on); asked only once the policy allows the host."""
        target = self._target(url)
        origin = f"{target.scheme}://{target.netloc.decode('ascii')}"
        if origin not in self._parsed:
            if not is_guarded(self.fetcher.http):
                await self.fetcher.guard.resolve(target.host, target.port or default_port(target.scheme))
            async with asyncio.timeout(self.fetcher.settings.fetch.timeout):
                self._parsed[origin] = await self.robots.rules(target)
        return self._parsed[origin]

    async def _obey(self, url: httpx.URL) -> None:
        """The robots.txt check of each hop of a download (a redirect may lead to a disallowed path)."""
        if not self.allows(await self.rules(str(url)), str(url)):
            raise BlockedError(f"robots.txt of {url.host} disallows {url.path} for weblens")

    def allows(self, parser: Protego | None, url: str) -> bool:
        return self.robots.allows(parser, url)

    async def gate(self, url: str) -> Gate:
        """The host's gate, spaced by its robots.txt `Crawl-delay`."""
        host = httpx.URL(url).netloc.decode("ascii")
        gate = self._gates.get(host)
        if gate is None:
            delay = self.robots.crawl_delay(await self.rules(url))
            gate = self._gates.setdefault(host, self._new_gate(host, self._concurrency, delay or 0.0))
        return gate

    async def get(self, url: str) -> Downloaded:
        """GET `url` politely; a 429, or a 503 with a Retry-After (RFC 9110: "come back then"), slows
        the host and is tried again (twice) after its Retry-After."""
        target = self._target(url)
        gate = await self.gate(str(target))
        config = self.fetcher.settings.fetch
        for attempt in range(_RATE_LIMIT_RETRIES + 1):
            try:
                async with gate.slot():
                    try:
                        async with asyncio.timeout(config.timeout):
                            return await download(
                                target,
                                client=self.fetcher.http,
                                guard=self.fetcher.guard,
                                config=config,
                                robots=self._obey,
                                policy=self.fetcher.policy.check,
                            )
                    except TimeoutError:
                        raise ToolTimeoutError(f"{url} took longer than {config.timeout:g} s") from None
            except (RateLimitedError, UpstreamError) as exc:
                busy = isinstance(exc, RateLimitedError) or (exc.status == 503 and exc.retry_after_s is not None)
                if not busy or attempt == _RATE_LIMIT_RETRIES:
                    raise
                await gate.slow_down(exc.retry_after_s)
        raise AssertionError("unreachable")
