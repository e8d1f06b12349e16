"""The guarded HTTP client: it connects only to addresses the SSRF guard has checked.

Direct and SOCKS connections: the connector's resolver is the guard, so each new
connection resolves the name once, checks every address, and connects (happy eyeballs
among them) only to those; TLS SNI, the certificate check and the Host header keep the
name. Connections are pooled per name, never shared between names.

Through an HTTP proxy (`fetch.proxy`, `HTTP(S)_PROXY`, `ALL_PROXY`), the proxy would
resolve the name again, so it is handed the checked address instead: `CONNECT ip:port`
for https (TLS inside the tunnel still uses the name), and `GET http://ip:port/...` with
`Host: name` for http.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx
from aiohttp.abc import AbstractResolver, ResolveResult

from weblens.net.client import DEFAULT_LIMITS, HttpClient
from weblens.net.ssrf import ResolveError, SsrfGuard, default_port
from weblens.net.transport import AiohttpTransport, ProxyTable

__all__ = ["GuardedClient", "GuardedTransport", "fetch_proxies", "guarded_client", "is_guarded"]


class GuardResolver(AbstractResolver):
    """aiohttp's resolver interface over `SsrfGuard.resolve`: only checked addresses come out."""

    def __init__(self, guard: SsrfGuard) -> None:
        self._guard = guard

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_UNSPEC) -> list[ResolveResult]:
        # a refused address raises BlockedError, which aiohttp passes on untouched (it is no OSError)
        try:
            addresses = await self._guard.resolve(host, port)
        except ResolveError as exc:  # aiohttp quotes `strerror` in its "Cannot connect to host" error
            raise OSError(socket.EAI_NONAME, str(exc)) from exc
        return [
            {
                "hostname": host,
                "host": str(ip),
                "port": port,
                "family": socket.AF_INET6 if ip.version == 6 else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
            }
            for ip in addresses
        ]

    async def close(self) -> None:
        return None


class GuardedTransport(AiohttpTransport):
    """Every request is checked by `guard` before any byte leaves; see the module docstring."""

    def __init__(self, guard: SsrfGuard, *, proxies: ProxyTable, limits: httpx.Limits = DEFAULT_LIMITS) -> None:
        super().__init__(limits=limits, proxies=proxies, resolver=GuardResolver(guard))
        self.guard = guard

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = self.guard.check_url(request.url)  # scheme, and literal addresses (aiohttp resolves no literal)
        proxy = self.proxies.proxy_for(url)
        if proxy is None or proxy.is_socks:  # the connector's resolver is the guard
            return await self.send(request, proxy)
        try:
            addresses = await self.guard.resolve(url.host, url.port or default_port(url.scheme))
        except ResolveError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        pinned = url.copy_with(host=str(addresses[0]))
        return await self.send(request, proxy, url=pinned, server_hostname=url.host)


class GuardedClient(HttpClient):
    """An `HttpClient` on a `GuardedTransport` (so `download` need not check names itself)."""

    def __init__(self, guard: SsrfGuard, **kwargs: Any) -> None:
        self.guard = guard
        super().__init__(**kwargs)


def guarded_client(
    guard: SsrfGuard,
    *,
    timeout_s: float,
    connect_timeout_s: float,
    user_agent: str,
    proxy: str | None = None,
    limits: httpx.Limits | None = None,
) -> GuardedClient:
    """A pooled client whose every connection passes `guard`; it never follows redirects itself.

    `proxy` (fetch.proxy) carries every request; without it the environment's proxies do.
    """
    proxies = fetch_proxies(proxy)
    return GuardedClient(
        guard,
        transport=GuardedTransport(guard, proxies=proxies, limits=limits or DEFAULT_LIMITS),
        timeout=httpx.Timeout(timeout_s, connect=min(connect_timeout_s, timeout_s)),
        headers={"User-Agent": user_agent},
        follow_redirects=False,
        trust_env=False,
    )


def fetch_proxies(proxy: str | None) -> ProxyTable:
    """The proxies fetches go through: `proxy` (fetch.proxy) for every URL, else the environment's."""
    return ProxyTable.explicit(proxy, source="WEBLENS_FETCH_PROXY") if proxy else ProxyTable.from_environment()


def is_guarded(client: httpx.AsyncClient) -> bool:
    """Whether `client` was built by `guarded_client` (its connections are pinned and checked)."""
    return isinstance(client, GuardedClient)
