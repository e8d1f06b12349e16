"""`/mcp` keeps no session: memory does not grow with clients, and any replica answers any request."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.mcp.test_http import INITIALIZE, MCP_HEADERS, body_of, post

CALLS = 1500
WARM_UP = 200
MAX_GROWTH_MB = 12.0
"""1500 stateful sessions cost ~50 MB here (about 35 KB each); stateless, the server stays flat."""
BANNER = re.compile(r"http://127\.0\.0\.1:(\d+)/mcp")


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


@pytest.fixture
def gateway_process(gateway_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    log = tmp_path / "stderr.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "weblens", "mcp", "--transport", "http", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, **gateway_env},
        )
    deadline = time.monotonic() + 90  # a loaded machine imports slowly
    while not (found := BANNER.search(log.read_text(errors="replace"))):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")
        time.sleep(0.05)
    yield proc, f"http://127.0.0.1:{found.group(1)}/mcp"
    proc.terminate()
    proc.wait(10)


async def initialize_many(url: str, count: int, concurrency: int = 8) -> None:
    async with httpx.AsyncClient(headers=MCP_HEADERS, timeout=30) as client:

        async def worker(share: int) -> None:
            for _ in range(share):
                response = await client.post(url, json=INITIALIZE)
                assert response.status_code == 200, response.text

        await asyncio.gather(*(worker(count // concurrency) for _ in range(concurrency)))


@pytest.mark.timeout(300)
async def test_many_initialize_calls_leave_memory_flat(
    gateway_process: tuple[subprocess.Popen[bytes], str],
) -> None:
    proc, url = gateway_process
    await initialize_many(url, WARM_UP)
    before = rss_mb(proc.pid)
    await initialize_many(url, CALLS)
    await asyncio.sleep(0.5)
    after = rss_mb(proc.pid)
    print(f"RSS {before:.1f} MB -> {after:.1f} MB after {CALLS} initialize calls")
    assert after - before < MAX_GROWTH_MB, f"{before:.1f} MB -> {after:.1f} MB"


def test_a_request_needs_no_session_from_an_earlier_one(
    gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    """Behind a load balancer the replica that answered `initialize` need not see the next call."""
    first, second = serve_http(gateway_settings()).url(), serve_http(gateway_settings()).url()
    opened = post(first)
    assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "think", "arguments": {
        "thought": "a replica that never saw initialize answers this"}}}
    answered = post(second, call, **{"MCP-Protocol-Version": "2025-06-18"})
    assert answered.status_code == 200, answered.text
    assert body_of(answered)["result"]["isError"] is False


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_are_405_not_a_stream_left_open(
    method: str, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]
) -> None:
    url = serve_http(gateway_settings()).url()
    response = httpx.request(method, url, headers=MCP_HEADERS, timeout=5)
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    assert response.json()["error"]["message"].startswith("Method Not Allowed")
