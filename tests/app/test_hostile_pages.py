"""Hostile pages fetched through the real server while a client polls /health: the server
never stalls (issue 9 §1), and a page whose reading outlasts its deadline is a `timeout`
that says what was done, with the worker killed and the server still answering.

The machine running the tests may be busy, and the page server shares this process (and
its GIL) with the app: the bound is the issue's 200 ms on top of the slowest poll of the
same server left idle for as long, measured in the same test (on a quiet 2-core machine the
worst poll was 53-100 ms with the idle one at 8-27 ms; with extraction in threads, polls
stalled for seconds).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest

from weblens.app.server import create_app
from weblens.config import Settings
from weblens.testing import FakeServer, ServedApp
from weblens.testing.hostile import SLOW_PDF_PATH, hostile_pages

pytestmark = pytest.mark.timeout(300)

POLL_LIMIT_S = 0.2
EXTRACT_TIMEOUT_S = 4.0


class _Poller:
    """Polls /health from its own thread and keeps the slowest answer."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.slowest = 0.0
        self.polls = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(timeout=30) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    status = client.get(self.url).status_code
                    if status != 200:
                        self.failures.append(f"status {status}")
                except httpx.HTTPError as exc:
                    self.failures.append(repr(exc))
                self.slowest = max(self.slowest, time.perf_counter() - started)
                self.polls += 1
                time.sleep(0.02)

    def __enter__(self) -> _Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


@pytest.fixture
def pages() -> FakeServer:
    with FakeServer() as server:
        for path, reply in hostile_pages().items():
            server.route("GET", path, reply)
        yield server


async def test_hostile_pages_never_stall_the_server(pages: FakeServer, tmp_path: object) -> None:
    settings = Settings(
        fetch={"allowed_hosts": [f"127.0.0.1:{pages.port}"], "extract_timeout": EXTRACT_TIMEOUT_S, "workers": 2},
        cache={"enabled": False},
        data_dir=str(tmp_path),
    )
    paths = list(hostile_pages())
    served = ServedApp(create_app(settings))
    try:
        async with httpx.AsyncClient(base_url=served.url(), timeout=120) as client:

            async def fetch(path: str) -> dict[str, object]:
                answer = await client.post("/api/tools/web_fetch", json={"arguments": {"url": pages.url(path)}})
                assert answer.status_code == 200
                return dict(answer.json())

            await fetch("/comment-flood")  # start the workers before the clock matters
            started = time.monotonic()
            with _Poller(served.url("/health")) as poller:
                results = dict(zip(paths, await asyncio.gather(*map(fetch, paths)), strict=True))
                after = await client.get("/health")
            with _Poller(served.url("/health")) as idle:
                await asyncio.sleep(time.monotonic() - started)
            # the killed worker was replaced: a normal page still reads
            pages.route("GET", "/fine", _article())
            fine = await fetch("/fine")
        assert poller.polls > 10 and not poller.failures
        limit = POLL_LIMIT_S + idle.slowest
        assert poller.slowest < limit, (
            f"a /health poll took {poller.slowest * 1000:.0f} ms (idle: {idle.slowest * 1000:.0f} ms)"
        )
        assert after.status_code == 200
        slow = results.pop(SLOW_PDF_PATH)
        assert not slow["ok"] and slow["error"]["code"] == "timeout", slow
        message = slow["error"]["message"]
        assert "downloaded" in message and "bytes" in message and f"{EXTRACT_TIMEOUT_S:g} s" in message, message
        for path, result in results.items():  # each is read, or a clear error: never a crash
            assert result["ok"] or result["error"]["code"] in ("timeout", "unsupported_content"), (path, result)
        assert len(served_runtime(served).workers.pids) <= 2
        assert fine["ok"] and "Skerryvore" in fine["text"], fine
    finally:
        served.stop()


def served_runtime(served: ServedApp) -> Any:
    return served._server.config.app.state.runtime  # type: ignore[attr-defined]


def _article() -> object:
    from weblens.testing.pages import article_html
    from weblens.testing.server import Reply

    return Reply(body=article_html(), content_type="text/html; charset=utf-8")
