"""The guard proxy: the only way out for a rendered page's requests.

A forward HTTP proxy that weblens runs in its own event loop. The browser is pointed at it
(and its own DNS and UDP are turned off), so every request a page makes — the document,
subresources, fetch/XHR, iframes, WebSockets, beacons, prefetches, redirects — arrives here:

- plain `http://` requests (absolute-form) are sent with weblens' guarded client, so they
  pass the SSRF guard with DNS pinning, the allowed hosts and `fetch.proxy`, exactly as
  `web_fetch`'s do; redirects are handed back to the browser, whose next hop comes here again;
- `CONNECT host:port` (https, wss, and ws through a proxy) is checked by the same guard and
  domain policy, and the tunnel is opened to the checked address (through `fetch.proxy`
  when it is an HTTP proxy, asked for the address, not the name).

Anything refused gets a 403 naming the reason; the page sees a failed request.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx

from weblens.errors import WeblensError
from weblens.net import ClientGetter, translate_errors
from weblens.net.guarded import is_guarded
from weblens.net.ssrf import SsrfGuard, default_port
from weblens.net.transport import ProxyTable

__all__ = ["GuardProxy", "Refusal"]

_HEAD_LIMIT = 64 * 1024
_HEAD_TIMEOUT_S = 30.0
_PIPE_CHUNK = 64 * 1024
_MAX_REQUEST_BODY = 10 * 1024 * 1024
_MAX_REFUSALS_KEPT = 200
_HANGUP_POLL_S = 0.1
T = TypeVar("T")
# hop-by-hop headers (RFC 9110 7.6.1) and what the proxy sets itself
_HOP = frozenset(
    {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer",
     "transfer-encoding", "upgrade", "content-length", "host"}
)  # fmt: skip

UrlCheck = Callable[[str], None]


@dataclass(frozen=True)
class Refusal:
    """A request the guard refused: what was asked for and why."""

    target: str
    reason: str


class _BadRequest(Exception):
    pass


async def _read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The request line and headers, or None when the browser closed the connection."""
    try:
        async with asyncio.timeout(_HEAD_TIMEOUT_S):
            return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial.strip():
            raise _BadRequest("incomplete request head") from None
        return None
    except asyncio.LimitOverrunError:
        raise _BadRequest("request head too large") from None
    except TimeoutError:
        return None


def _parse_head(head: bytes) -> tuple[str, str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, _version = lines[0].split(" ", 2)
    except ValueError:
        raise _BadRequest("malformed request line") from None
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise _BadRequest("malformed header")
        headers.append((name.strip(), value.strip()))
    return method.upper(), target, headers


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((value for key, value in headers if key.lower() == name), None)


def _reply(status: int, reason: str, text: str = "", *, close: bool = True) -> bytes:
    body = text.encode()
    connection = "close" if close else "keep-alive"
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: {connection}\r\n\r\n"
    ).encode() + body


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_PIPE_CHUNK):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _while_connected(reader: asyncio.StreamReader, work: Awaitable[T]) -> T:
    """`work`, cancelled when the browser closes its connection meanwhile: its page was closed
    (the render was cancelled or timed out), so the upstream request ends with it instead of
    running on to its own timeout. Raises ConnectionError then. A browser sends nothing more on
    the connection while it waits for the answer, so its end of input is the hang-up."""
    task = asyncio.ensure_future(work)
    try:
        while not task.done():
            if reader.at_eof():
                raise ConnectionError("the browser closed the connection")
            await asyncio.wait({task}, timeout=_HANGUP_POLL_S)
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


class GuardProxy:
    """See the module docstring. `client` returns the guarded client (built on first use);
    `policy` raises for a URL the operator's domain policy forbids. Started on first need."""

    def __init__(
        self,
        guard: SsrfGuard,
        client: ClientGetter,
        policy: UrlCheck,
        *,
        upstream: ProxyTable,
        connect_timeout_s: float,
        max_bytes: int,
        host: str = "127.0.0.1",
    ) -> None:
        self._guard = guard
        self._client = client
        self._policy = policy
        self._upstream = upstream
        self._connect_timeout_s = connect_timeout_s
        self._max_bytes = max_bytes
        self._host = host
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.refusals: list[Refusal] = []
        """The latest refused requests (bounded), for tests and logs."""
        self.requests = 0

    @property
    def url(self) -> str:
        return self.url_at(self._host)

    def url_at(self, host: str) -> str:
        """The proxy's URL with `host` as its address (a remote browser's view of this machine)."""
        if self._server is None:
            raise RuntimeError("the guard proxy is not started")
        port = self._server.sockets[0].getsockname()[1]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    async def start(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, self._host, 0, limit=_HEAD_LIMIT)

    async def aclose(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(Exception):
                await server.wait_closed()

    def _refuse(self, target: str, reason: str) -> bytes:
        self.refusals.append(Refusal(target, reason))
        del self.refusals[:-_MAX_REFUSALS_KEPT]
        return _reply(403, "Forbidden", f"refused by weblens: {reason}\n")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                head = await _read_head(reader)
                if head is None:
                    break
                self.requests += 1
                method, target, headers = _parse_head(head)
                if method == "CONNECT":
                    await self._tunnel(target, reader, writer)
                    return
                if not await self._forward(method, target, headers, reader, writer):
                    break
        except _BadRequest as exc:
            with contextlib.suppress(Exception):
                writer.write(_reply(400, "Bad Request", f"{exc}\n"))
        except (ConnectionError, OSError, asyncio.IncompleteReadError, WeblensError):
            pass  # the browser sees the connection end
        except asyncio.CancelledError:
            # the proxy closing (`aclose`, or the process ending mid-render): the connection just ends. A handler
            # that ends cancelled makes Python 3.11's `start_server` log a traceback to stderr (its done callback
            # asks the task for its exception; 3.12 checks for a cancelled task first)
            pass
        finally:
            self._connections.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _check(self, url: str, host: str, port: int) -> list[str]:
        """The checked addresses for host:port; raises WeblensError (blocked, validation, upstream)."""
        self._guard.check_url(url)
        self._policy(url)
        try:
            addresses = await self._guard.resolve(host, port)
        except OSError as exc:  # ResolveError: the name does not resolve
            raise WeblensError(str(exc)) from None
        return [str(ip) for ip in addresses]

    async def _open(self, address: str, port: int, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the checked address, through `fetch.proxy` when that is an HTTP proxy."""
        proxy = self._upstream.proxy_for(httpx.URL(f"https://{name}:{port}/"))
        async with asyncio.timeout(self._connect_timeout_s):
            if proxy is None:
                return await asyncio.open_connection(address, port)
            if proxy.is_socks:
                raise WeblensError("rendering through a SOCKS fetch.proxy is not supported; use an http:// proxy")
            parts = urllib.parse.urlsplit(proxy.url)
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
            host = f"[{address}]" if ":" in address else address
            writer.write(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            await writer.drain()
            answer = await reader.readuntil(b"\r\n\r\n")
            if answer.split(b" ", 2)[1:2] != [b"200"]:
                writer.close()
                raise WeblensError(f"{proxy.source} refused the tunnel: {answer.splitlines()[0]!r}")
            return reader, writer

    async def _tunnel(self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, sep, port_text = target.rpartition(":")
        host = host.strip("[]")
        if not sep or not port_text.isdigit() or not host:
            writer.write(_reply(400, "Bad Request", "CONNECT needs host:port\n"))
            return
        port = int(port_text)
        shown = f"[{host}]" if ":" in host else host
        try:
            addresses = await self._check(f"https://{shown}:{port}/", host, port)
            upstream_reader, upstream_writer = await self._open(addresses[0], port, host)
        except WeblensError as exc:
            writer.write(self._refuse(target, exc.message))
            await writer.drain()
            return
        except (OSError, TimeoutError) as exc:
            writer.write(_reply(502, "Bad Gateway", f"could not connect to {target}: {exc}\n"))
            await writer.drain()
            return
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    async def _forward(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Send one absolute-form request with the guarded client; whether the connection stays open."""
        keep = (_header(headers, "proxy-connection") or _header(headers, "connection") or "").lower() != "close"
        if _header(headers, "transfer-encoding") is not None or _header(headers, "upgrade") is not None:
            writer.write(_reply(501, "Not Implemented", "chunked uploads and upgrades need CONNECT\n"))
            return False
        length_text = _header(headers, "content-length") or "0"
        if not length_text.isdigit() or int(length_text) > _MAX_REQUEST_BODY:
            writer.write(_reply(413, "Content Too Large", "request body too large\n"))
            return False
        body = await reader.readexactly(int(length_text)) if int(length_text) else b""
        try:
            url = httpx.URL(target)
        except httpx.InvalidURL:
            raise _BadRequest("not an absolute URL") from None
        if url.scheme != "http" or not url.host:
            raise _BadRequest("a proxy request needs an absolute http:// URL")
        forwarded = [(name, value) for name, value in headers if name.lower() not in _HOP]
        client = self._client()
        try:
            self._policy(str(url))
            if not is_guarded(client):  # a caller's own client: check what the name resolves to first
                await self._check(str(url), url.host, url.port or default_port(url.scheme))
            with translate_errors(url.host):
                request = client.build_request(method, url, headers=forwarded, content=body or None)
                response = await _while_connected(reader, client.send(request, stream=True, follow_redirects=False))
        except WeblensError as exc:
            refusal = exc.code in ("blocked", "validation_error")
            writer.write(self._refuse(target, exc.message) if refusal else _reply(502, "Bad Gateway", exc.message))
            await writer.drain()
            return keep
        try:
            await _while_connected(reader, self._relay(method, response, writer, keep))
        finally:
            await response.aclose()
        return keep

    async def _relay(self, method: str, response: httpx.Response, writer: asyncio.StreamWriter, keep: bool) -> None:
        """The response, re-framed chunked (its encoding untouched), cut off past `max_bytes`."""
        no_body = method == "HEAD" or response.status_code in (204, 304) or response.status_code < 200
        lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase or 'OK'}"]
        lines += [f"{name}: {value}" for name, value in response.headers.multi_items() if name.lower() not in _HOP]
        if no_body:
            lines.append("Content-Length: 0")
        else:
            lines.append("Transfer-Encoding: chunked")
        lines.append(f"Connection: {'keep-alive' if keep else 'close'}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace"))
        if no_body:
            await writer.drain()
            return
        sent = 0
        with translate_errors(response.url.host):
            async for chunk in response.aiter_raw():
                sent += len(chunk)
                if sent > self._max_bytes:
                    raise ConnectionError("response larger than fetch.max_bytes")
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
