"""A call cancelled mid-flight stops its work, over stdio: the browser page that renders it is
closed and its upstream request ends; a client that closes stdin mid-call leaves nothing running."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.mcp.conftest import RawStdio

from weblens.testing.chromium import INSTALL_HINT, chromium_path
from weblens.testing.pages import PageServer
from weblens.testing.server import Reply

CHROMIUM = chromium_path()
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason=INSTALL_HINT), pytest.mark.timeout(180)]
HANGING = "/never-answers"
STARTUP_S = 90.0
"""A loaded machine starts Python, the tools and Chromium slowly."""


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat:
            parents[int(entry.name)] = int(stat[stat.rfind(")") + 2 :].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _render(gateway: RawStdio, url: str) -> None:
    params = {"name": "web_fetch", "arguments": {"url": url, "render": "always"}}
    gateway.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})


@pytest.fixture
def gateway(pages: PageServer, raw_stdio: Callable[..., RawStdio]) -> RawStdio:
    pages.route("GET", HANGING, Reply(body="<html><body>late</body></html>", content_type="text/html", delay_s=60))
    # every timeout well past the test: only the cancel may end the page's request
    timeouts = {"WEBLENS_FETCH_RENDER_TIMEOUT": "60", "WEBLENS_FETCH_TIMEOUT": "60"}
    started = raw_stdio(WEBLENS_BROWSER_PATH=str(CHROMIUM), **timeouts)
    started.initialize()
    return started


def test_a_cancelled_render_closes_its_page_and_upstream_request(gateway: RawStdio, pages: PageServer) -> None:
    _render(gateway, pages.url(HANGING))
    assert _wait_for(lambda: pages.count(HANGING) == 1, STARTUP_S), "the browser never asked for the page"
    gateway.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}})
    # the page is closed, so its request through weblens' guard proxy ends: before, it ran on to its timeout
    assert _wait_for(lambda: pages.disconnects == 1, 15.0), "the upstream request outlived the cancelled call"
    assert gateway.close() == 0
    assert gateway.line(timeout=1) is None  # a cancelled request gets no answer
    assert "Traceback" not in gateway.stderr()


def test_closing_stdin_mid_render_ends_the_process_and_its_browser(gateway: RawStdio, pages: PageServer) -> None:
    _render(gateway, pages.url(HANGING))
    assert _wait_for(lambda: pages.count(HANGING) == 1, STARTUP_S), "the browser never asked for the page"
    children = _descendants(gateway.proc.pid)
    assert children  # the Playwright driver and Chromium's processes
    assert gateway.close() == 0
    assert _wait_for(lambda: not any(_alive(pid) for pid in children), 15.0), [p for p in children if _alive(p)]
    assert pages.disconnects == 1
    while (line := gateway.line(timeout=1)) is not None:  # nothing but JSON-RPC on stdout
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert "Traceback" not in gateway.stderr()
