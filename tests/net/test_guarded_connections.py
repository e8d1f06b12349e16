"""The guard's promises on the aiohttp transport: which sockets a guarded client opens, and reuses.

aiohttp connects with happy eyeballs among the resolver's answers and pools connections:
every answer must have been checked, and a pooled connection must never carry a request
for another name (which the guard has not checked, or whose certificate it does not hold).
The servers here count the connections they accept, so a test sees what was reached.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import trustme

from weblens.errors import BlockedError
from weblens.net.guarded import guarded_client
from weblens.net.ssrf import SsrfGuard
from weblens.testing.dns import MappedResolver


@dataclass
class Origin:
    """A keep-alive HTTP(S) server on 127.0.0.1 that records each connection and each request's Host."""

    port: int = 0
    connections: int = 0
    hosts: list[str] = field(default_factory=list)
    sni: list[str | None] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                self.hosts += [line.split(":", 1)[1].strip() for line in head.split("\r\n")
                               if line.lower().startswith("host:")]  # fmt: skip
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()


async def serve(origin: Origin, context: ssl.SSLContext | None = None) -> asyncio.Server:
    server = await asyncio.start_server(origin.handle, "127.0.0.1", 0, ssl=context)
    origin.port = server.sockets[0].getsockname()[1]
    return server


@pytest.fixture
async def origin() -> AsyncIterator[Origin]:
    found = Origin()
    async with await serve(found):
        yield found


@pytest.fixture
async def tls_origin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Origin]:
    """An https origin whose certificate names only `pinned.example`; weblens trusts its CA."""
    authority = trustme.CA()
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    found = Origin()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("pinned.example").configure_cert(context)
    context.sni_callback = lambda _obj, name, _ctx: found.sni.append(name)  # type: ignore[assignment,misc,func-returns-value]
    async with await serve(found, context):
        yield found


def client(guard: SsrfGuard) -> httpx.AsyncClient:
    return guarded_client(guard, timeout_s=5, connect_timeout_s=5, user_agent="t")


async def test_happy_eyeballs_falls_back_only_among_checked_addresses(origin: Origin) -> None:
    # 127.0.0.2 refuses (nothing listens there), 127.0.0.1 answers: both came from the guard
    resolve = MappedResolver({"two.example": ["127.0.0.2", "127.0.0.1"]})
    guard = SsrfGuard(resolver=resolve, allowed_hosts=[f"two.example:{origin.port}"])
    async with client(guard) as http:
        response = await http.get(f"http://two.example:{origin.port}/")
    assert response.text == "hello"
    assert resolve.calls == ["two.example"]
    assert origin.hosts == [f"two.example:{origin.port}"]


@pytest.mark.parametrize(
    ("answers", "allowed"),
    [
        (["93.184.216.34", "127.0.0.1"], False),  # one private answer among public ones
        (["127.0.0.1", "169.254.169.254"], True),  # metadata stays shut even for an allowed name
    ],
)
async def test_one_refused_answer_means_no_connection_to_any(origin: Origin, answers: list[str], allowed: bool) -> None:
    allowed_hosts = [f"mixed.example:{origin.port}"] if allowed else []
    guard = SsrfGuard(resolver=MappedResolver({"mixed.example": answers}), allowed_hosts=allowed_hosts)
    async with client(guard) as http:
        with pytest.raises(BlockedError):
            await http.get(f"http://mixed.example:{origin.port}/")
    assert origin.connections == 0


async def test_a_pooled_connection_never_carries_a_request_for_another_name(origin: Origin) -> None:
    """`ok.example`'s kept-alive connection goes to 127.0.0.1 too, but `evil.example` is checked on its own."""
    resolve = MappedResolver({name: ["127.0.0.1"] for name in ("ok.example", "evil.example", "also.example")})
    guard = SsrfGuard(resolver=resolve, allowed_hosts=[f"ok.example:{origin.port}", f"also.example:{origin.port}"])
    async with client(guard) as http:
        for _ in range(2):
            assert (await http.get(f"http://ok.example:{origin.port}/")).text == "hello"
        assert origin.connections == 1  # kept alive and reused for the same name
        with pytest.raises(BlockedError, match=r"evil\.example resolves to 127\.0\.0\.1"):
            await http.get(f"http://evil.example:{origin.port}/")
        assert (await http.get(f"http://also.example:{origin.port}/")).text == "hello"
    assert origin.hosts == [f"ok.example:{origin.port}"] * 2 + [f"also.example:{origin.port}"]
    assert origin.connections == 2  # a name of its own, a connection of its own
    assert resolve.calls == ["ok.example", "evil.example", "also.example"]


async def test_https_connects_to_the_checked_address_and_keeps_the_name_for_tls(tls_origin: Origin) -> None:
    resolve = MappedResolver({"pinned.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]})
    guard = SsrfGuard(
        resolver=resolve,
        allowed_hosts=[f"pinned.example:{tls_origin.port}", f"other.example:{tls_origin.port}"],
    )
    async with client(guard) as http:
        assert (await http.get(f"https://pinned.example:{tls_origin.port}/")).text == "hello"
        # same address, a name the certificate does not hold: a new connection, and it fails its check
        with pytest.raises(httpx.ConnectError):
            await http.get(f"https://other.example:{tls_origin.port}/")
    assert tls_origin.sni == ["pinned.example", "other.example"]
    assert tls_origin.hosts == [f"pinned.example:{tls_origin.port}"]
