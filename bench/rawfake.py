"""A fake upstream that cannot be the bottleneck: a raw asyncio `Protocol`, in its own process.

uvicorn + h11 in a thread (weblens.testing's FakeServer) is itself slow under 100
concurrent requests (a raw-socket client only reached 2.5× one request against it);
this server parses just enough HTTP/1.1 and answers every request LATENCY seconds
later, with keep-alive:

- `POST /html/`: DuckDuckGo's result page (the packaged fixture), counted
- `GET /page/<anything>`: a small text/plain page
- `GET /__count`: how many `/html/` requests were answered, as JSON

Benchmarks start it with `spawn(latency_s)` and talk to it over 127.0.0.1.
`raw_request` is the floor: one request on a fresh socket, no HTTP library at all.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SMALL_PAGE = b"A small page of plain text, as a fetch benchmark's upstream serves it.\n" * 20


def _response(status: str, body: bytes, content_type: str) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


class _Upstream(asyncio.Protocol):
    answered = 0

    def __init__(self, latency_s: float, results_page: bytes) -> None:
        self.latency_s = latency_s
        self.results = _response("200 OK", results_page, "text/html; charset=utf-8")
        self.page = _response("200 OK", SMALL_PAGE, "text/plain; charset=utf-8")
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end]
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            method, target = head.split(b" ", 2)[:2]
            asyncio.get_running_loop().call_later(self.latency_s, self._answer, method, target)

    def _answer(self, method: bytes, target: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        if method == b"POST" and target.startswith(b"/html"):
            type(self).answered += 1
            self.transport.write(self.results)
        elif target.startswith(b"/page/"):
            self.transport.write(self.page)
        elif target == b"/__count":
            self.transport.write(_response("200 OK", b'{"count": %d}' % type(self).answered, "application/json"))
        else:
            self.transport.write(_response("404 Not Found", b"", "text/plain"))


async def _serve(latency_s: float) -> None:
    from weblens.testing.providers import fixture

    page = fixture("duckduckgo_html_ok.html")
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Upstream(latency_s, page), "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await loop.run_in_executor(None, sys.stdin.read)  # until the parent closes our stdin


@contextmanager
def spawn(latency_s: float) -> Iterator[tuple[str, int]]:
    """Start the fake in a child process: yields (base URL, pid)."""
    child = subprocess.Popen(
        [sys.executable, __file__, str(latency_s)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{int(child.stdout.readline())}", child.pid
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(timeout=10)


async def raw_request(port: int, target: str = "/page/raw") -> None:
    """One GET on a fresh socket, read to the end of the body: the floor under any HTTP client."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length"))
    await reader.readexactly(length)
    writer.close()


if __name__ == "__main__":
    asyncio.run(_serve(float(sys.argv[1])))
