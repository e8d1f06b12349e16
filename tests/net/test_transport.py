"""weblens' HTTP clients (httpx API, aiohttp transport) against real local servers."""

from __future__ import annotations

import asyncio
import gc
import socket
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from weblens.errors import ToolTimeoutError, UpstreamError
from weblens.net import create_client, translate_errors
from weblens.testing import FakeServer, Reply
from weblens.testing.proxy import FakeProxy

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def raw_server(handler: Handler) -> tuple[asyncio.Server, str]:
    """A server that answers with bytes written by hand (for replies no framework would send)."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await handler(reader, writer)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_is_a_connect_error_not_a_timeout() -> None:
    async with create_client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{closed_port()}/")
        with pytest.raises(UpstreamError, match="could not connect") as info, translate_errors("upstream"):
            await client.get(f"http://127.0.0.1:{closed_port()}/")
    assert info.value.retryable


async def test_a_body_cut_short_is_a_protocol_error() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")
        await writer.drain()

    server, url = await raw_server(cut)
    async with server, create_client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(url)


async def test_a_garbled_status_line_is_a_protocol_error() -> None:
    async def garbled(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")
        await writer.drain()

    server, url = await raw_server(garbled)
    async with server, create_client() as client:
        with pytest.raises(UpstreamError), translate_errors("upstream"):
            await client.get(url)


async def test_a_silent_server_is_a_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(2)

    server, url = await raw_server(silent)
    async with server, create_client(timeout=httpx.Timeout(0.3)) as client:
        with pytest.raises(ToolTimeoutError), translate_errors("upstream"):
            await client.get(url)


async def test_no_cookie_set_by_one_response_rides_on_the_next_request() -> None:
    async with FakeServer() as server:
        server.route("GET", "/set", Reply(body="set", headers={"Set-Cookie": "session=secret-123; Path=/"}))
        server.route("GET", "/next", Reply(body="next"))
        async with create_client() as client:
            first = await client.get(server.url("/set"))
            await client.get(server.url("/next"))
            with pytest.raises(TypeError):
                client.cookies = {"a": "b"}
    assert first.headers["set-cookie"].startswith("session=")  # the caller still sees it
    assert "cookie" not in server.requests[1].headers


async def test_headers_past_aiohttps_8_kib_default_are_read() -> None:
    policy = "default-src 'self'; " + "; ".join(f"img-src https://cdn{i}.example.com" for i in range(700))
    assert len(policy) > 20_000  # real Content-Security-Policy headers get this long
    async with FakeServer() as server:
        server.route("GET", "/", Reply(body="ok", headers={"Content-Security-Policy": policy}))
        async with create_client() as client:
            response = await client.get(server.url("/"))
    assert response.text == "ok" and response.headers["content-security-policy"] == policy


async def test_gzip_bodies_are_decoded_and_uploads_may_stream() -> None:
    async with FakeServer() as server:
        server.route("GET", "/zipped", Reply(body="squeezed " * 100, gzip=True))
        server.route("POST", "/upload", lambda request: Reply(body=request.body))

        async def chunks() -> AsyncIterator[bytes]:
            for part in (b"one ", b"two ", b"three"):
                yield part

        async with create_client() as client:
            zipped = await client.get(server.url("/zipped"))
            echoed = await client.post(server.url("/upload"), content=chunks())
    assert zipped.text == "squeezed " * 100
    assert echoed.content == b"one two three"


def test_one_client_serves_one_event_loop_after_another() -> None:
    gc.collect()  # what earlier tests left is collected before this one listens
    with FakeServer() as server:
        server.route("GET", "/", Reply(body="hi"))
        client = create_client()

        async def get() -> str:
            return (await client.get(server.url("/"))).text

        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert asyncio.run(get()) == "hi"
            assert asyncio.run(get()) == "hi"  # a new loop gets its own connections
            asyncio.run(client.aclose())  # closes them from a third loop
            gc.collect()
    # what aiohttp logs for a session nobody closed, at whatever moment the collector finds it
    assert not [w for w in seen if str(w.message).startswith(("Unclosed client session", "Unclosed connector"))]


@pytest.mark.parametrize(("scheme", "named"), [("socks5h", "search.example"), ("socks5", "127.0.0.1")])
async def test_socks_proxies_from_the_environment_carry_upstream_requests(
    scheme: str, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeServer() as upstream, FakeProxy(dns={"search.example": "127.0.0.1"}) as proxy:
        upstream.route("GET", "/q", Reply(body="answer"))
        monkeypatch.setenv("ALL_PROXY", proxy.url(scheme))
        async with create_client() as client:
            host = "search.example" if scheme == "socks5h" else "127.0.0.1"
            response = await client.get(f"http://{host}:{upstream.port}/q")
    assert response.text == "answer"
    assert [(r.kind, r.target) for r in proxy.requests] == [("socks5", f"{named}:{upstream.port}")]


async def test_an_explicit_proxy_carries_every_request() -> None:
    async with FakeServer() as upstream, FakeProxy() as proxy:
        upstream.route("GET", "/q", Reply(body="via proxy"))
        async with create_client(proxy=proxy.url()) as client:
            response = await client.get(upstream.url("/q"))
    assert response.text == "via proxy"
    assert proxy.requests[0].request_line == f"GET {upstream.url('/q')} HTTP/1.1"
