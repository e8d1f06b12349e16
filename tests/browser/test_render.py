"""Rendering pages in real Chromium, every request through weblens' guard proxy.

One fetcher (so one browser) serves the whole module; tests that need a browser of their own
(a crash, the leftover-process check, a different guard) build one.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
import uvicorn

from weblens.browser.processes import kill
from weblens.config import Settings
from weblens.errors import BlockedError, ToolTimeoutError, UpstreamError
from weblens.fetch import Fetcher
from weblens.testing import FakeServer
from weblens.testing.apps import APP_MARKERS, AppServer, app_paragraphs
from weblens.testing.chromium import INSTALL_HINT, chromium_path
from weblens.testing.server import Reply

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason=INSTALL_HINT),
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.timeout(120),
]
OWN_TEXT = "The page's own paragraph, written by its script, reached the reader intact."


def settings_for(tmp: Path, *allowed: str, render_timeout: float = 20.0, **browser: object) -> Settings:
    return Settings(
        data_dir=tmp,
        fetch={"allowed_hosts": list(allowed), "workers": 0, "render_timeout": render_timeout},
        browser={"path": CHROMIUM, **browser},
        cache={"enabled": False},
    )


async def _resolve(host: str, port: int) -> list[str]:
    """A DNS where `private.test` is a private address and no other name exists."""
    if host == "private.test":
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, f"{host} does not exist here")


@pytest.fixture(scope="module")
def canary() -> Iterator[FakeServer]:
    with FakeServer() as server:
        server.route("GET", "/", Reply(body="canary"))
        yield server


@pytest.fixture(scope="module")
def apps(canary: FakeServer) -> Iterator[AppServer]:
    with AppServer() as server:
        server.add_attack(f"127.0.0.1:{canary.port}", "private.test", OWN_TEXT)  # type: ignore[attr-defined]
        yield server  # type: ignore[misc]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def fetcher(apps: AppServer, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Fetcher]:
    settings = settings_for(tmp_path_factory.mktemp("render"), apps.host)
    async with Fetcher.from_settings(settings, resolver=_resolve) as shared:
        yield shared


@pytest.mark.parametrize("path", list(APP_MARKERS))
async def test_auto_renders_client_rendered_pages(fetcher: Fetcher, apps: AppServer, path: str) -> None:
    page = await fetcher.fetch(apps.url(path))
    assert page.rendered is True
    assert page.render_reason in ("javascript_shell", "noscript_notice", "empty_app_root")
    assert page.render_ms is not None and page.render_ms > 0
    assert APP_MARKERS[path] in page.content


async def test_a_static_page_is_not_rendered(fetcher: Fetcher, apps: AppServer) -> None:
    launches = fetcher.browser.launches
    page = await fetcher.fetch(apps.url("/static"))
    assert page.rendered is False and page.render_reason is None
    assert "Skerryvore" in page.content
    assert fetcher.browser.launches == launches


async def test_render_never_returns_the_shell_with_a_note(fetcher: Fetcher, apps: AppServer) -> None:
    page = await fetcher.fetch(apps.url("/app/json"), render="never")
    assert page.rendered is False
    assert "Ledger note 3" not in page.content
    assert "render='never'" in (page.note or "")


async def test_scroll_loads_more_of_an_infinite_page(fetcher: Fetcher, apps: AppServer) -> None:
    first = await fetcher.fetch(apps.url("/app/infinite"), render="always")
    scrolled = await fetcher.fetch(apps.url("/app/infinite"), render="always", scroll=3)
    assert "Infinite note 20" not in first.content
    assert "Infinite note 20" in scrolled.content


async def test_wait_for_waits_for_the_selector(fetcher: Fetcher, apps: AppServer) -> None:
    page = await fetcher.fetch(apps.url("/app/delayed"), wait_for="p")
    assert page.rendered and page.render_reason == "requested"
    assert "Delayed note 0" in page.content
    missing = await fetcher.fetch(apps.url("/app/delayed"), wait_for="#never", timeout=3)
    assert "did not appear" in (missing.note or "")


async def test_no_request_of_a_rendered_page_reaches_the_canary(
    fetcher: Fetcher, apps: AppServer, canary: FakeServer
) -> None:
    """Subresources, fetch/XHR, iframes, WebSockets, beacons, prefetch, a service worker, redirects,
    a popup, a form post, a name resolving to a private address and WebRTC: none gets out."""
    stun = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stun.bind(("127.0.0.1", canary.port))  # the STUN server the page asks for: UDP on the canary's port
    stun.setblocking(False)
    canary.reset()
    try:
        page = await fetcher.fetch(apps.url("/attack"), render="always")
        await asyncio.sleep(0.3)  # anything still on its way
        assert OWN_TEXT in page.content
        assert canary.requests == []
        with pytest.raises(BlockingIOError):
            stun.recv(2048)
    finally:
        stun.close()
    refused = {refusal.target for refusal in fetcher.browser.proxy.refusals}
    assert f"127.0.0.1:{canary.port}" in refused  # the tunnels (websocket, https-style) were asked for
    assert any("private.test" in target for target in refused)
    assert apps.count("/to-canary") >= 1  # the redirect was served; its next hop was refused


async def test_the_canary_sees_requests_when_the_guard_allows_it(
    apps: AppServer, canary: FakeServer, tmp_path: Path
) -> None:
    """The canary test can fail: with the canary allowed, the same page reaches it."""
    canary.reset()
    settings = settings_for(tmp_path, apps.host, f"127.0.0.1:{canary.port}")
    async with Fetcher.from_settings(settings) as open_fetcher:
        page = await open_fetcher.fetch(apps.url("/attack"), render="always")
    assert OWN_TEXT in page.content
    assert {"/fetch", "/xhr"} <= {request.path for request in canary.requests}


async def test_dialogs_popups_and_local_navigations_are_refused(fetcher: Fetcher, apps: AppServer) -> None:
    text = json.dumps(f"<p>{' '.join(app_paragraphs('Dialog', 3))}</p>")
    apps.route("GET", "/dialogs", Reply(
        body=(
            "<html><body><div id='t'></div><a id='d' href='/file.bin' download>get</a><input type='file' id='f'>"
            "<script>alert('stop'); confirm('sure?'); prompt('name?'); window.open('/static');"
            "document.getElementById('d').click(); document.getElementById('f').click();"
            f"document.getElementById('t').innerHTML = {text};"
            "setTimeout(() => { location.href = 'file:///etc/passwd'; }, 50);</script></body></html>"
        ),
        content_type="text/html",
    ))  # fmt: skip
    started = time.monotonic()
    page = await fetcher.fetch(apps.url("/dialogs"), render="always")
    assert time.monotonic() - started < 10
    assert "Dialog note 2" in page.content and "root:x:0" not in page.content
    assert page.final_url == apps.url("/dialogs")
    # the download link's request went through the guard like any other; the file was not kept
    await asyncio.sleep(0.3)
    assert fetcher.browser.open_pages == 0


async def test_a_busy_page_is_torn_down_at_the_deadline(fetcher: Fetcher, apps: AppServer) -> None:
    started = time.monotonic()
    with pytest.raises(ToolTimeoutError):
        await fetcher.fetch(apps.url("/busy"), render="always", timeout=2)
    assert time.monotonic() - started < 2 + 5.5  # the deadline, plus at most the close timeout
    assert fetcher.browser.open_pages == 0
    page = await fetcher.fetch(apps.url("/app/json"), render="always", use_cache=False)
    assert "Ledger note 3" in page.content


async def _health_gaps(client: httpx.AsyncClient, until: Callable[[], bool]) -> list[float]:
    """Seconds between consecutive /health answers, polled every 20 ms until `until()`."""
    gaps: list[float] = []
    last = time.monotonic()
    while not until():
        response = await client.get("/health")
        assert response.status_code == 200
        now = time.monotonic()
        gaps.append(now - last)
        last = now
        await asyncio.sleep(0.02)
    return gaps


async def test_health_stays_responsive_while_a_page_busy_loops(apps: AppServer, tmp_path: Path) -> None:
    """The server rendering a `while(true){}` page answers /health throughout.

    A server whose event loop waited on the page would answer no poll for the whole 3 s render.
    The bound leaves room for what a shared 2-core machine's scheduler costs while Chromium starts
    a renderer that spins (one poll up to ~0.3 s late, measured) and fewer polls when other
    processes take the CPU too: neither is the event loop waiting, and no user notices."""
    from weblens.app.server import create_app
    from weblens.runtime import Runtime

    settings = settings_for(tmp_path, apps.host)
    async with Runtime(settings) as runtime:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(settings, runtime=runtime), log_level="warning"))
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            await client.get("/health")  # the connection is open before the clock starts
            await runtime.fetcher.fetch(apps.url("/static"), render="always")  # the browser is up
            before = time.monotonic() + 1.5
            control = await _health_gaps(client, lambda: time.monotonic() > before)
            render = asyncio.create_task(runtime.fetcher.fetch(apps.url("/busy"), render="always", timeout=3))
            gaps = await _health_gaps(client, render.done)
            after = time.monotonic() + 1.5
            control += await _health_gaps(client, lambda: time.monotonic() > after)
        with pytest.raises(ToolTimeoutError):
            await render
        server.should_exit = True
        await serving
    noise = max(0.0, max(control) - 0.05)  # a quiet machine answers every 20 ms poll within ~25 ms
    assert max(gaps) < 1.0 + noise, f"worst /health gap {max(gaps):.3f} s (with no render: {max(control):.3f} s)"
    assert len(gaps) > 10, f"{len(gaps)} polls answered in {sum(gaps):.1f} s"


async def test_a_crash_is_a_typed_error_and_the_browser_is_replaced(apps: AppServer, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, apps.host)
    async with Fetcher.from_settings(settings) as own:
        await own.fetch(apps.url("/app/json"), render="always")
        render = asyncio.create_task(own.fetch(apps.url("/app/delayed"), wait_for="#never", timeout=15))
        await asyncio.sleep(1.0)
        kill(own.browser.pids())
        with pytest.raises(UpstreamError) as caught:
            await render
        assert caught.value.code == "upstream_error" and "crashed" in caught.value.message
        page = await own.fetch(apps.url("/app/json"), render="always", use_cache=False)
        assert "Ledger note 3" in page.content
        assert own.browser.restarts >= 1 and own.browser.launches == 2


async def test_twenty_renders_leave_no_browser_process(apps: AppServer, tmp_path: Path) -> None:
    # the last calls wait for a slot behind 16 others, within their own deadline
    settings = settings_for(tmp_path, apps.host, render_timeout=90, max_pages=8, concurrency=4)
    async with Fetcher.from_settings(settings) as own:
        pages = await asyncio.gather(
            *(own.fetch(apps.url(f"/app/json?n={n}"), render="always") for n in range(20))
        )
        assert all("Ledger note 3" in page.content for page in pages)
        assert own.browser.launches >= 3  # recycled after every 8 pages
        pids = own.browser.pids()
        assert pids
    assert [pid for pid in pids if _alive(pid)] == []


async def test_an_idle_browser_is_shut_down(apps: AppServer, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, apps.host, idle_s=0.5)
    async with Fetcher.from_settings(settings) as own:
        await own.fetch(apps.url("/app/json"), render="always")
        pids = own.browser.pids()
        assert pids
        for _ in range(40):
            await asyncio.sleep(0.1)
            if not own.browser.running:
                break
        assert not own.browser.running
        assert own.browser.pids() == []
        page = await own.fetch(apps.url("/app/json"), render="always", use_cache=False)  # starts again
        assert "Ledger note 3" in page.content and own.browser.launches == 2


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _png_size(image: bytes) -> tuple[int, int]:
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")


async def test_screenshots_of_the_viewport_and_the_whole_page(fetcher: Fetcher, apps: AppServer) -> None:
    screen = await fetcher.screenshot(apps.url("/app/json"))
    assert _png_size(screen.image) == (1280, 800) == (screen.width, screen.height)
    whole = await fetcher.screenshot(apps.url("/app/lazy"), full_page=True)
    assert 3000 < whole.height < 8000 and _png_size(whole.image) == (1280, whole.height) and not whole.cut
    jpeg = await fetcher.screenshot(apps.url("/static"), image_format="jpeg", quality=60)
    assert jpeg.image[:3] == b"\xff\xd8\xff" and jpeg.format == "jpeg"


async def test_screenshots_pass_the_same_guard(fetcher: Fetcher, apps: AppServer, canary: FakeServer) -> None:
    canary.reset()
    with pytest.raises(BlockedError):
        await fetcher.screenshot(canary.url("/"))
    shot = await fetcher.screenshot(apps.url("/attack"))  # images are loaded for screenshots: still guarded
    await asyncio.sleep(0.3)
    assert shot.image and canary.requests == []
