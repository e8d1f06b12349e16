"""The guarded HTTP client: it connects only to addresses the SSRF guard has checked.

Its network backend resolves each hostname once, checks every address, and connects to
the checked address itself, so no second lookup (DNS rebinding) can swap it; TLS SNI
and the Host header keep the name. Through a proxy the proxy does the final lookup, so
there the name is resolved and checked just before the request instead.
"""

from __future__ import annotations

import ssl
import urllib.request
import weakref
from collections.abc import Iterable

import httpcore
import httpx

from weblens.errors import BlockedError
from weblens.net.client import DEFAULT_LIMITS
from weblens.net.ssrf import ResolveError, SsrfGuard, default_port

__all__ = ["GuardedTransport", "guarded_client", "is_guarded"]

_SCHEMES = ("http", "https")


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves, checks, and connects to the checked address (the name stays for TLS)."""

    def __init__(self, guard: SsrfGuard) -> None:
        self._guard = guard
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await self._guard.resolve(host, port)
        except ResolveError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        last: Exception | None = None
        for ip in addresses:
            try:
                return await self._inner.connect_tcp(str(ip), port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise BlockedError("refused to fetch: unix sockets are not reachable (SSRF guard)")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(httpx.AsyncBaseTransport):
    """Direct requests go through the guarded backend; proxied ones are checked just before."""

    def __init__(self, guard: SsrfGuard, *, proxy: str | None = None, limits: httpx.Limits = DEFAULT_LIMITS):
        self.guard = guard
        self._direct = httpx.AsyncHTTPTransport(limits=limits, trust_env=False)
        # httpx has no network_backend option, so its pool is replaced by one that has ours.
        self._direct._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl.create_default_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_GuardedBackend(guard),
        )
        self._proxies: dict[str, httpx.AsyncHTTPTransport] = {}
        configured = {"http": proxy, "https": proxy} if proxy else _environment_proxies()
        for scheme, url in configured.items():
            if url:
                self._proxies[scheme] = httpx.AsyncHTTPTransport(proxy=url, limits=limits)
        self._use_env_bypass = proxy is None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        proxied = self._proxies.get(url.scheme)
        if proxied is not None and not (self._use_env_bypass and urllib.request.proxy_bypass(url.host)):
            port = url.port or default_port(url.scheme)
            self.guard.check_url(url)
            try:
                await self.guard.resolve(url.host, port)
            except ResolveError as exc:
                raise httpx.ConnectError(str(exc), request=request) from exc
            return await proxied.handle_async_request(request)
        return await self._direct.handle_async_request(request)

    async def aclose(self) -> None:
        for transport in (self._direct, *self._proxies.values()):
            await transport.aclose()


def _environment_proxies() -> dict[str, str]:
    """HTTP(S)_PROXY / ALL_PROXY as the standard library reads them (NO_PROXY honoured per request)."""
    found = urllib.request.getproxies()
    fallback = found.get("all")
    return {scheme: found.get(scheme) or fallback or "" for scheme in _SCHEMES}


_GUARDED: weakref.WeakSet[httpx.AsyncClient] = weakref.WeakSet()


def guarded_client(
    guard: SsrfGuard,
    *,
    timeout_s: float,
    connect_timeout_s: float,
    user_agent: str,
    proxy: str | None = None,
    limits: httpx.Limits | None = None,
) -> httpx.AsyncClient:
    """A pooled client whose every connection passes `guard`; it never follows redirects itself."""
    transport = GuardedTransport(guard, proxy=proxy, limits=limits or DEFAULT_LIMITS)
    client = httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout_s, connect=min(connect_timeout_s, timeout_s)),
        headers={"User-Agent": user_agent},
        follow_redirects=False,
        trust_env=False,
    )
    _GUARDED.add(client)
    return client


def is_guarded(client: httpx.AsyncClient) -> bool:
    """Whether `client` was built by `guarded_client` (its connections are pinned and checked)."""
    return client in _GUARDED
