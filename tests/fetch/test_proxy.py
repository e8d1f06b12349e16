"""Behind a proxy the guard still decides: the proxy is handed the checked address, never the name.

The proxy is a real one (`weblens.testing.proxy.FakeProxy`) with its own DNS table, so a
rebinding name can answer the guard with a public address and the proxy with loopback.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trustme

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError, NotConfiguredError, UpstreamError
from weblens.fetch import fetch
from weblens.testing import FakeServer, Reply
from weblens.testing.proxy import FakeProxy

PUBLIC = "93.184.216.34"


def answers(mapping: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    """A resolver that hands out each name's answers in turn (the last one repeats): a rebinding DNS."""
    calls: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        queue = mapping[host]
        return [queue.pop(0) if len(queue) > 1 else queue[0]]

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


@dataclass
class TlsOrigin:
    """An https server on 127.0.0.1 with a certificate for `name`; records SNI and Host."""

    port: int = 0
    sni: list[str | None] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)


@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> trustme.CA:
    authority = trustme.CA()
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # weblens' clients trust it, as a user's custom CA
    return authority


@pytest.fixture
async def tls_origin(ca: trustme.CA) -> AsyncIterator[TlsOrigin]:
    origin = TlsOrigin()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("pinned.example").configure_cert(context)
    context.sni_callback = lambda _obj, name, _ctx: origin.sni.append(name)  # type: ignore[assignment,misc,func-returns-value]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        lines = head.split("\r\n")
        origin.hosts += [line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("host:")]
        body = b"secure hello"
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n")
        writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    origin.port = server.sockets[0].getsockname()[1]
    async with server:
        yield origin


@pytest.fixture
def listener() -> Iterator[FakeServer]:
    """A loopback service a rebinding name must never reach."""
    with FakeServer() as server:
        server.route("GET", "/secret", Reply(body="internal secret"))
        server.route("GET", "/page.txt", Reply(body="plain hello"))
        yield server


def no_cache() -> Cache:
    return Cache(None)


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_a_rebinding_name_does_not_reach_loopback_through_an_http_proxy(
    scheme: str, listener: FakeServer
) -> None:
    resolve = answers({"rebind.example": [PUBLIC, "127.0.0.1"]})
    async with FakeProxy(dns={"rebind.example": "127.0.0.1"}) as proxy:
        settings = Settings(fetch={"proxy": proxy.url()})
        with pytest.raises(UpstreamError):
            await fetch(f"{scheme}://rebind.example:{listener.port}/secret", settings=settings, cache=no_cache(),
                        resolver=resolve)  # fmt: skip
    assert listener.requests == []
    assert [(r.kind, r.target, r.reached) for r in proxy.requests] == [
        ("connect" if scheme == "https" else "http", f"{PUBLIC}:{listener.port}", False)
    ]
    assert resolve.calls == ["rebind.example"]  # type: ignore[attr-defined]


async def test_http_through_a_proxy_sends_the_checked_address_and_keeps_the_host_header(listener: FakeServer) -> None:
    resolve = answers({"pinned.example": ["127.0.0.1"]})
    async with FakeProxy() as proxy:  # the proxy cannot resolve the name at all: it must get the address
        settings = Settings(fetch={"proxy": proxy.url(), "allowed_hosts": [f"pinned.example:{listener.port}"]})
        page = await fetch(f"http://pinned.example:{listener.port}/page.txt", settings=settings, cache=no_cache(),
                           resolver=resolve)  # fmt: skip
    assert page.content == "plain hello"
    assert proxy.requests[0].request_line == f"GET http://127.0.0.1:{listener.port}/page.txt HTTP/1.1"
    assert proxy.requests[0].host_header == f"pinned.example:{listener.port}"
    assert listener.requests[0].headers["host"] == f"pinned.example:{listener.port}"


async def test_https_through_a_proxy_connects_to_the_address_and_verifies_the_name(tls_origin: TlsOrigin) -> None:
    resolve = answers({"pinned.example": ["127.0.0.1"]})
    async with FakeProxy() as proxy:
        settings = Settings(fetch={"proxy": proxy.url(), "allowed_hosts": [f"pinned.example:{tls_origin.port}"]})
        page = await fetch(f"https://pinned.example:{tls_origin.port}/", settings=settings, cache=no_cache(),
                           resolver=resolve)  # fmt: skip
    assert page.content == "secure hello"
    assert proxy.requests[0].request_line.startswith(f"CONNECT 127.0.0.1:{tls_origin.port} ")
    assert tls_origin.sni == ["pinned.example"]  # SNI and the certificate check use the name
    assert tls_origin.hosts == [f"pinned.example:{tls_origin.port}"]


@pytest.mark.parametrize("scheme", ["socks5", "socks5h"])
async def test_socks_proxies_get_the_checked_address_too(
    scheme: str, listener: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProxy(dns={"rebind.example": "127.0.0.1"}) as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy.url(scheme))
        resolve = answers({"rebind.example": [PUBLIC, "127.0.0.1"], "pinned.example": ["127.0.0.1"]})
        with pytest.raises(UpstreamError):
            await fetch(f"http://rebind.example:{listener.port}/secret", settings=Settings(), cache=no_cache(),
                        resolver=resolve)  # fmt: skip
        settings = Settings(fetch={"allowed_hosts": [f"pinned.example:{listener.port}"]})
        page = await fetch(f"http://pinned.example:{listener.port}/page.txt", settings=settings, cache=no_cache(),
                           resolver=resolve)  # fmt: skip
    assert page.content == "plain hello"
    assert [(r.kind, r.target) for r in proxy.requests] == [
        ("socks5", f"{PUBLIC}:{listener.port}"),
        ("socks5", f"127.0.0.1:{listener.port}"),
    ]
    assert [r.path for r in listener.requests] == ["/page.txt"]
    assert listener.requests[0].headers["host"] == f"pinned.example:{listener.port}"


async def test_https_through_socks_keeps_the_name_for_tls(
    tls_origin: TlsOrigin, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProxy() as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy.url("socks5"))
        settings = Settings(fetch={"allowed_hosts": [f"pinned.example:{tls_origin.port}"]})
        page = await fetch(f"https://pinned.example:{tls_origin.port}/", settings=settings, cache=no_cache(),
                           resolver=answers({"pinned.example": ["127.0.0.1"]}))  # fmt: skip
    assert page.content == "secure hello"
    assert proxy.requests[0].target == f"127.0.0.1:{tls_origin.port}"
    assert tls_origin.sni == ["pinned.example"]


async def test_a_private_target_is_refused_before_the_proxy_sees_it() -> None:
    async with FakeProxy() as proxy:
        settings = Settings(fetch={"proxy": proxy.url()})
        with pytest.raises(BlockedError, match=r"10\.1\.2\.3"):
            await fetch("http://sneaky.example/", settings=settings, cache=no_cache(),
                        resolver=answers({"sneaky.example": ["10.1.2.3"]}))  # fmt: skip
        with pytest.raises(BlockedError):
            await fetch("http://169.254.169.254/", settings=settings, cache=no_cache())
    assert proxy.requests == []


async def test_environment_proxies_work_and_no_proxy_is_honoured(
    listener: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url())
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{listener.port}", f"pinned.example:{listener.port}"]})
        resolve = answers({"pinned.example": ["127.0.0.1"]})
        via_proxy = await fetch(f"http://pinned.example:{listener.port}/page.txt", settings=settings,
                                cache=no_cache(), resolver=resolve)  # fmt: skip
        direct = await fetch(listener.url("/page.txt"), settings=settings, cache=no_cache())
    assert via_proxy.content == direct.content == "plain hello"
    assert [r.target for r in proxy.requests] == [f"127.0.0.1:{listener.port}"]  # only the proxied one
    assert listener.count("/page.txt") == 2


@pytest.mark.parametrize("variable", ["ALL_PROXY", "https_proxy"])
async def test_a_proxy_url_weblens_cannot_use_is_an_error_naming_the_variable(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, "ftp://127.0.0.1:2121")
    with pytest.raises(NotConfiguredError, match=variable.upper()):
        await fetch("https://pinned.example/", settings=Settings(), cache=no_cache(),
                    resolver=answers({"pinned.example": [PUBLIC]}))  # fmt: skip
