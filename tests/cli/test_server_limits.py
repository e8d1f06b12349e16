"""`weblens serve` and `weblens mcp --transport http` outlast clients that hold connections open.

The real command runs in a subprocess with a low open-file limit, as on many machines
(`ulimit -n`); the attack is many sockets that send half a request and then nothing.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

FILE_LIMIT = 256
HEADER_TIMEOUT_S = 2.0
ATTACKERS = 400
"""More half-open requests than the server may have open files."""
GARBAGE = 200
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
BANNER = re.compile(r"http://127\.0\.0\.1:(\d+)/")


class Running:
    def __init__(self, argv: list[str], tmp_path: Path) -> None:
        self.log = tmp_path / "stderr.log"
        env = {
            **os.environ,
            "WEBLENS_DATA_DIR": str(tmp_path / "data"),
            "WEBLENS_CACHE_ENABLED": "false",
            "WEBLENS_SERVER_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S),
        }
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "weblens", *argv, "--port", "0"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT)),
            )
        deadline = time.monotonic() + 90  # a loaded machine imports slowly
        while not (found := BANNER.search(self.log.read_text(errors="replace"))):
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text(errors="replace")
            time.sleep(0.05)
        self.port = int(found.group(1))

    def lines(self) -> int:
        return len(self.log.read_text(errors="replace").splitlines())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture(params=[["serve"], ["mcp", "--transport", "http"]], ids=["serve", "mcp"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Running]:
    running = Running(request.param, tmp_path)
    yield running
    running.stop()


def half_requests(port: int, count: int) -> list[socket.socket]:
    """Sockets that each sent a request line and one header, and will never send the rest."""
    opened = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        opened.append(sock)
    return opened


def first_answer(server: Running, within_s: float) -> tuple[httpx.Response | None, float]:
    """The first answer to a normal client (retrying refused or dropped attempts), and how long it took:
    `GET /health` for `serve`, an MCP `initialize` for the gateway."""
    start = time.monotonic()
    while time.monotonic() - start < within_s:
        try:
            if "serve" in server.proc.args:
                return httpx.get(f"http://127.0.0.1:{server.port}/health", timeout=2), time.monotonic() - start
            return httpx.post(
                f"http://127.0.0.1:{server.port}/mcp", json=INITIALIZE, timeout=2,
                headers={"Accept": "application/json, text/event-stream"},
            ), time.monotonic() - start
        except httpx.TransportError:
            time.sleep(0.1)
    return None, time.monotonic() - start


def test_idle_half_requests_do_not_lock_clients_out(server: Running) -> None:
    before = server.lines()
    attackers = half_requests(server.port, ATTACKERS)
    try:
        answer, waited = first_answer(server, HEADER_TIMEOUT_S + 10)
        assert answer is not None, f"no answer in {waited:.1f} s; log: {server.log.read_text()[-2000:]}"
        assert answer.status_code == 200, answer.text
        time.sleep(HEADER_TIMEOUT_S + 1)  # the half requests still open are dropped by now
        again, _ = first_answer(server, 5)
        assert again is not None and again.status_code == 200
    finally:
        for sock in attackers:
            sock.close()
    for _ in range(GARBAGE):  # uvicorn warns about each one: a flood of them is a line a minute
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            sock.recv(1024)
    assert server.proc.poll() is None
    assert server.lines() - before < 20, server.log.read_text()[-3000:]


def test_a_connection_that_never_finishes_its_headers_is_closed(server: Running) -> None:
    (sock,) = half_requests(server.port, 1)
    sock.settimeout(HEADER_TIMEOUT_S + 10)
    start = time.monotonic()
    assert sock.recv(1024) == b""  # the server closed it
    assert HEADER_TIMEOUT_S - 0.5 < time.monotonic() - start < HEADER_TIMEOUT_S + 10
    sock.close()
