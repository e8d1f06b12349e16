"""httpx requests carried by aiohttp: the httpx API weblens uses, on a pool that scales.

httpcore 1.0.9's pool walks every connection on each request arrival and close, so 100
concurrent requests cost 14× one (`bench/search.py`); aiohttp's connector does not. This
transport keeps weblens on httpx types (clients, requests, responses, errors) and hands
the I/O to aiohttp sessions, created in the running loop on first use.

Why not the `httpx-aiohttp` package: its error table reports a refused connection as a
timeout and lets other aiohttp errors escape untranslated, and it takes one proxy per
transport. Here the proxy is chosen per request (`ProxyTable`), so the guarded transport
(`weblens.net.guarded`) can hand an HTTP proxy the checked address.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver
from yarl import URL

from weblens.errors import NotConfiguredError
from weblens.net.socks import SOCKS_SCHEMES, PassThroughResolver, SocksConnector, remote_dns

__all__ = ["DEFAULT_LIMITS", "AiohttpTransport", "Proxy", "ProxyTable"]

DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=30.0)
_MAX_HEADER_BYTES = 64 * 1024
"""Per header line (h11's limit for the whole block): real Content-Security-Policy headers pass 8 KiB."""
_SCHEMES = ("http", "https")
_DECODABLE = frozenset({"identity", "gzip", "x-gzip", "deflate"})
"""Content encodings whose decoders work in bounded steps (zlib: at most ~1 000:1 a chunk). httpx also
decodes `br` and `zstd` when `brotli` or `zstandard` is installed, each chunk whole: a few hundred bytes
of brotli become gigabytes. Those are neither asked for nor accepted."""
_VARIABLES = {"http": "HTTP_PROXY", "https": "HTTPS_PROXY", "all": "ALL_PROXY"}

# Most specific first: the first matching class wins. Every aiohttp failure becomes an httpx one,
# so `weblens.net.errors.translate_errors` sees only httpx types.
_ERRORS: tuple[tuple[type[BaseException], type[httpx.TransportError]], ...] = (
    (aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),
    (aiohttp.ServerTimeoutError, httpx.ReadTimeout),
    (TimeoutError, httpx.TimeoutException),
    (aiohttp.ClientProxyConnectionError, httpx.ProxyError),
    (aiohttp.ClientHttpProxyError, httpx.ProxyError),
    (aiohttp.ClientConnectorError, httpx.ConnectError),
    (aiohttp.ServerFingerprintMismatch, httpx.ConnectError),
    (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError),
    (aiohttp.ClientPayloadError, httpx.RemoteProtocolError),
    (aiohttp.ClientResponseError, httpx.RemoteProtocolError),  # a status line or header aiohttp cannot parse
    (aiohttp.InvalidURL, httpx.UnsupportedProtocol),
    (aiohttp.NonHttpUrlClientError, httpx.UnsupportedProtocol),
    (aiohttp.ClientConnectionError, httpx.ReadError),
    (aiohttp.ClientError, httpx.TransportError),
    (OSError, httpx.NetworkError),
)


def translate(exc: BaseException, request: httpx.Request) -> httpx.TransportError:
    """The httpx error for an aiohttp (or socket) failure."""
    for source, target in _ERRORS:
        if isinstance(exc, source):
            return target(str(exc) or type(exc).__name__, request=request)
    return httpx.TransportError(str(exc) or type(exc).__name__, request=request)


def _accepted(name: str, value: str) -> tuple[str, str]:
    """An `Accept-Encoding` header cut to what weblens decodes boundedly (httpx adds br and zstd
    when their decoders are installed); any other header as it is."""
    if name.lower() != "accept-encoding":
        return name, value
    kept = [token for token in value.split(",") if token.split(";")[0].strip().lower() in _DECODABLE]
    return name, ", ".join(token.strip() for token in kept) or "identity"


def _undecodable(values: Iterable[str]) -> str | None:
    """The first content encoding of a response that weblens does not decode, if any."""
    for value in values:
        for token in value.split(","):
            if token.strip() and token.strip().lower() not in _DECODABLE:
                return token.strip()
    return None


@contextmanager
def _translated(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
        raise translate(exc, request) from exc


@dataclass(frozen=True)
class Proxy:
    """A proxy URL and the setting it came from (named in errors)."""

    url: str
    source: str

    @property
    def scheme(self) -> str:
        return urllib.parse.urlsplit(self.url).scheme.lower()

    @property
    def is_socks(self) -> bool:
        return self.scheme in SOCKS_SCHEMES

    def check(self) -> None:
        """A clear error naming the setting for a URL no connector can use (never its password)."""
        try:
            parts = urllib.parse.urlsplit(self.url)
            usable = bool(parts.hostname) and (parts.port is not None or not self.is_socks)
        except ValueError:  # a port that is not a number
            usable = False
        if self.scheme not in _SCHEMES and not self.is_socks:
            kind = f"a {self.scheme}:// one" if self.scheme else "one without a scheme"
            raise NotConfiguredError(
                f"{self.source} must be an http://, socks5://, socks5h://, socks4:// or socks4a:// proxy URL, "
                f"not {kind}",
                details={"setting": self.source},
            )
        if not usable:
            raise NotConfiguredError(
                f"{self.source} must name the proxy's host and port, e.g. {self.scheme}://127.0.0.1:1080",
                details={"setting": self.source},
            )


@dataclass(frozen=True)
class ProxyTable:
    """Which proxy carries a request: one explicit proxy for every URL, or the environment's.

    From the environment: `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` (either case), with
    `NO_PROXY` checked per request, as the standard library reads them.
    """

    by_scheme: dict[str, Proxy] = field(default_factory=dict)
    honour_no_proxy: bool = False

    @classmethod
    def explicit(cls, proxy: str | None, *, source: str = "the proxy setting") -> ProxyTable:
        return cls({scheme: Proxy(proxy, source) for scheme in _SCHEMES} if proxy else {})

    @classmethod
    def from_environment(cls) -> ProxyTable:
        found = urllib.request.getproxies()
        table: dict[str, Proxy] = {}
        for scheme in _SCHEMES:
            key = scheme if found.get(scheme) else "all"
            if found.get(key):
                table[scheme] = Proxy(found[key], _VARIABLES[key])
        return cls(table, honour_no_proxy=True)

    def proxy_for(self, url: httpx.URL) -> Proxy | None:
        proxy = self.by_scheme.get(url.scheme)
        if proxy is None or (self.honour_no_proxy and urllib.request.proxy_bypass(url.host)):
            return None
        proxy.check()
        return proxy


class _Body(httpx.AsyncByteStream):
    """The response body as aiohttp reads it; closing it returns the connection to the pool."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _translated(self._request):
            async for chunk in self._response.content.iter_any():
                yield chunk

    async def aclose(self) -> None:
        self._response.release()  # an unfinished body closes the connection instead of reusing it


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An `httpx.AsyncBaseTransport` over aiohttp (HTTP/1.1, pooled, keep-alive).

    `resolver` replaces name resolution for direct and SOCKS connections (the SSRF
    guard's); `proxies` picks a proxy per request. Redirects, cookies and decompression
    are left to httpx and weblens: aiohttp follows, stores and decodes nothing.
    """

    def __init__(
        self,
        *,
        limits: httpx.Limits = DEFAULT_LIMITS,
        proxies: ProxyTable | None = None,
        resolver: AbstractResolver | None = None,
        verify: ssl.SSLContext | None = None,
    ) -> None:
        self.proxies = proxies or ProxyTable()
        self._limits = limits
        self._resolver = resolver
        # made now, as httpx does: loading the CA bundle inside a rate-limit slot would delay the first request
        self._verify = verify or httpx.create_ssl_context()
        self._sessions: dict[str | None, aiohttp.ClientSession] = {}
        """One per route: None for direct connections, "http" for HTTP proxies, each SOCKS proxy's URL."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timeouts: dict[tuple[float | None, ...], aiohttp.ClientTimeout] = {}

    def _connector(self, route: str | None) -> aiohttp.TCPConnector:
        limit, keepalive = self._limits.max_connections or 0, self._limits.keepalive_expiry
        if route is None:
            # with the guard's resolver, each new connection is resolved and checked once; no second cache
            return aiohttp.TCPConnector(
                limit=limit, keepalive_timeout=keepalive, ssl=self._verify,
                resolver=self._resolver, use_dns_cache=self._resolver is None,
            )  # fmt: skip
        if route == "http":  # the proxy's own address is the operator's choice: the default resolver finds it
            return aiohttp.TCPConnector(limit=limit, keepalive_timeout=keepalive, ssl=self._verify)
        resolver = self._resolver or (PassThroughResolver() if remote_dns(route) else None)
        return SocksConnector(
            route, limit=limit, keepalive_timeout=keepalive, ssl=self._verify, resolver=resolver, use_dns_cache=False
        )

    async def _session(self, route: str | None) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # sessions belong to the loop they were made in
            await self._retire()
            self._loop = loop
        session = self._sessions.get(route)
        if session is None or session.closed:
            session = self._sessions[route] = aiohttp.ClientSession(
                connector=self._connector(route),
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                trust_env=False,  # proxies come from `ProxyTable`; no ~/.netrc credentials are sent
                timeout=aiohttp.ClientTimeout(total=None),
                max_line_size=_MAX_HEADER_BYTES,
                max_field_size=_MAX_HEADER_BYTES,
            )
        return session

    def _timeout(self, timeout: dict[str, float | None]) -> aiohttp.ClientTimeout:
        key = (timeout.get("pool"), timeout.get("connect"), timeout.get("read"))
        found = self._timeouts.get(key)
        if found is None:  # a handful of distinct timeouts per process: build each once
            found = self._timeouts[key] = aiohttp.ClientTimeout(
                total=None, connect=key[0], sock_connect=key[1], sock_read=key[2]
            )
        return found

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.send(request, self.proxies.proxy_for(request.url))

    async def send(
        self,
        request: httpx.Request,
        proxy: Proxy | None,
        *,
        url: httpx.URL | None = None,
        server_hostname: str | None = None,
    ) -> httpx.Response:
        """Send `request`, to `url` when given (its Host header and `server_hostname` keep the name)."""
        route = None if proxy is None else proxy.url if proxy.is_socks else "http"
        session = await self._session(route)
        headers = [_accepted(name, value) for name, value in request.headers.multi_items()]
        data: bytes | httpx.AsyncByteStream | None
        try:
            data = request.content or None
        except httpx.RequestNotRead:  # a streamed upload: aiohttp sends it chunked
            data = request.stream  # type: ignore[assignment]
            headers = [(name, value) for name, value in headers if name.lower() != "transfer-encoding"]
        target = url or request.url
        if target.userinfo:  # httpx already sent it as Basic auth; aiohttp refuses both at once
            target = target.copy_with(username=None, password=None)
        with _translated(request):
            response = await session.request(
                request.method,
                URL(str(target), encoded=True),
                headers=headers,
                data=data,
                allow_redirects=False,
                proxy=proxy.url if route == "http" and proxy is not None else None,
                server_hostname=server_hostname,
                timeout=self._timeout(request.extensions.get("timeout", {})),
            )
        encoding = _undecodable(response.headers.getall("Content-Encoding", ()))
        if encoding is not None:
            response.close()
            raise httpx.DecodingError(
                f"it answered in Content-Encoding {encoding[:40]!r}, which weblens neither asks for nor reads "
                "(only gzip and deflate are decompressed in bounded steps)",
                request=request,
            )
        extensions: dict[str, object] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("latin-1", "replace")
        return httpx.Response(
            status_code=response.status,
            headers=response.raw_headers,
            stream=_Body(response, request),
            request=request,
            extensions=extensions,
        )

    async def _retire(self) -> None:
        """Close the sessions of the loop they were made in, from that loop or once it is closed.

        After `asyncio.run` has closed that loop, closing only marks them closed (their sockets
        close with them); left alone, each would log "Unclosed client session" whenever collected.
        A loop still open may still be using them: they are left to it.
        """
        sessions, self._sessions, loop = self._sessions, {}, self._loop
        if loop is None or loop is asyncio.get_running_loop() or loop.is_closed():
            for session in sessions.values():
                await session.close()

    async def aclose(self) -> None:
        await self._retire()
