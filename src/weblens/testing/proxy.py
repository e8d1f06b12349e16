"""A real forward proxy on 127.0.0.1 for tests: HTTP (absolute-form and CONNECT) and SOCKS5.

It records what each client asked it to reach, resolves names with its own table
(`dns=`, standing in for the proxy's DNS, which may answer differently from the
client's), and connects only to loopback addresses: any other target gets a refusal
(502, or SOCKS "host unreachable"), so a test never sends traffic off the machine::

    with FakeProxy(dns={"rebind.example": "127.0.0.1"}) as proxy:
        settings = Settings(fetch={"proxy": proxy.url()})      # or ALL_PROXY=proxy.url("socks5")
        ...
        assert proxy.requests[0].target == "93.184.216.34:80"
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["FakeProxy", "ProxiedRequest"]

_STARTUP_TIMEOUT_S = 10.0
_HEAD_LIMIT = 64 * 1024


@dataclass
class ProxiedRequest:
    """What a client asked the proxy for: `kind` is "http", "connect" or "socks5"."""

    kind: str
    target: str
    """host:port as the client named it (an IPv6 host in brackets)."""
    host_header: str | None = None
    request_line: str = ""
    reached: bool = False
    """Whether the proxy connected to the target."""


class FakeProxy:
    """See the module docstring. Start with `with` / `async with`, or `start()` and `stop()`."""

    def __init__(self, *, dns: Mapping[str, str] | None = None) -> None:
        self.dns = dict(dns or {})
        self.requests: list[ProxiedRequest] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None

    def url(self, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}"

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> FakeProxy:
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)
        self._thread.start()
        if not self._ready.wait(_STARTUP_TIMEOUT_S):
            raise RuntimeError("the proxy did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeProxy:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stopping.wait()

    # -- serving -----------------------------------------------------------------

    def _address(self, host: str) -> str | None:
        """Where the proxy would connect: the literal, or its own DNS answer; only loopback is reached."""
        name = host.strip("[]")
        try:
            ip = ipaddress.ip_address(self.dns.get(name, name))
        except ValueError:
            return None
        return str(ip) if ip.is_loopback else None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            first = await reader.readexactly(1)
            if first == b"\x05":
                await self._socks5(reader, writer)
            else:
                await self._http(first, reader, writer)
        except (OSError, asyncio.IncompleteReadError, ValueError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _http(self, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = first + await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEAD_LIMIT:
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = [line for line in lines[1:] if line]
        host_header = next((h.split(":", 1)[1].strip() for h in headers if h.lower().startswith("host:")), None)
        if method.upper() == "CONNECT":
            record = ProxiedRequest("connect", target, host_header, lines[0])
            self.requests.append(record)
            upstream = await self._open(*_split_authority(target, 443), record)
            if upstream is None:
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                return
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await self._pipe(reader, writer, *upstream)
            return
        scheme, _, rest = target.partition("://")
        authority, _, path = rest.partition("/")
        record = ProxiedRequest("http", authority, host_header, lines[0])
        self.requests.append(record)
        host, port = _split_authority(authority, 443 if scheme == "https" else 80)
        upstream = await self._open(host, port, record)
        if upstream is None:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            return
        # one request per proxied connection: the origin is asked to close after answering
        kept = [h for h in headers if not h.lower().startswith(("connection:", "proxy-", "keep-alive:"))]
        forwarded = [f"{method} /{path} {version}", *kept, "Connection: close", "", ""]
        upstream[1].write("\r\n".join(forwarded).encode("latin-1"))
        await self._pipe(reader, writer, *upstream)

    async def _socks5(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        (count,) = await reader.readexactly(1)
        await reader.readexactly(count)  # offered methods: answer "no authentication"
        writer.write(b"\x05\x00")
        _version, command, _reserved, kind = await reader.readexactly(4)
        if kind == 1:
            host = socket.inet_ntop(socket.AF_INET, await reader.readexactly(4))
        elif kind == 4:
            host = socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
        else:
            (length,) = await reader.readexactly(1)
            host = (await reader.readexactly(length)).decode("idna")
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        shown = f"[{host}]" if ":" in host else host
        record = ProxiedRequest("socks5", f"{shown}:{port}")
        self.requests.append(record)
        upstream = await self._open(host, port, record) if command == 1 else None
        if upstream is None:
            writer.write(b"\x05\x04\x00\x01" + bytes(6))  # host unreachable
            await writer.drain()
            return
        writer.write(b"\x05\x00\x00\x01" + bytes(6))
        await self._pipe(reader, writer, *upstream)

    async def _open(
        self, host: str, port: int, record: ProxiedRequest
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        address = self._address(host)
        if address is None:
            return None
        try:
            upstream = await asyncio.open_connection(address, port)
        except OSError:
            return None
        record.reached = True
        return upstream

    @staticmethod
    async def _pipe(
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream_reader: asyncio.StreamReader,
        upstream_writer: asyncio.StreamWriter,
    ) -> None:
        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while chunk := await source.read(65536):
                    sink.write(chunk)
                    await sink.drain()
            with contextlib.suppress(OSError):
                sink.close()

        await asyncio.gather(copy(reader, upstream_writer), copy(upstream_reader, writer))


def _split_authority(authority: str, default: int) -> tuple[str, int]:
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default
    host, sep, port = authority.rpartition(":")
    return (host, int(port)) if sep else (authority, default)
