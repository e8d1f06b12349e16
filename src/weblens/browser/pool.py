"""One browser per runtime, handing out one fresh context (and page) per call.

Started on first need and shut down after `browser.idle_s` without a page; replaced after
`browser.max_pages` pages or above `browser.max_rss_mb`, and when it crashes (the call that
hit the crash gets a typed error). At most `browser.concurrency` pages are open at once;
calls beyond wait in order, and the wait counts toward their own deadline. Every context
goes out through the guard proxy, with service workers, downloads and popups refused; the
context is closed on every path, and a browser that cannot close one is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import secrets
import socket
import time
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from weblens.browser.locate import BrowserChoice, choose_browser
from weblens.browser.processes import browser_pids, kill, lower_priority, rss_bytes
from weblens.browser.proxy import GuardProxy, UrlCheck
from weblens.closing import AsyncClosing
from weblens.config import BrowserConfig, Settings
from weblens.errors import UpstreamError
from weblens.metrics import Metrics
from weblens.net import ClientGetter
from weblens.net.guarded import fetch_proxies
from weblens.net.ssrf import SsrfGuard

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route

__all__ = ["BrowserCrashedError", "BrowserPool"]

_CLOSE_TIMEOUT_S = 5.0
_RSS_EVERY = 10
"""Pages between memory checks (a /proc walk)."""
_IDLE_POLL_S = 5.0
_NICENESS = 10
"""A launched browser runs below weblens' own priority: a busy page cannot starve the server."""
_BLOCKED_TYPES = frozenset({"image", "font", "media"})
VIEWPORT = {"width": 1280, "height": 800}


def advertised_host(bind: str, endpoint: str) -> str:
    """The address a remote browser dials for the guard proxy: `bind` itself, or, when that is
    every interface, this machine's address on the route toward the browser's host."""
    if bind not in ("0.0.0.0", "::", ""):
        return bind
    host = urllib.parse.urlsplit(endpoint).hostname or "127.0.0.1"
    family = socket.AF_INET6 if bind == "::" else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:  # connect() on UDP sends nothing
        probe.connect((host, 9))
        return str(probe.getsockname()[0])


class BrowserCrashedError(UpstreamError):
    """The browser died under this call; it is replaced for the next one."""

    default_retryable = True


def launch_args(config: BrowserConfig, proxy_host: str, marker: str | None = None) -> list[str]:
    """Chromium's switches: no DNS but the proxy's address, no UDP (QUIC, WebRTC), a V8 heap cap."""
    return [
        *([marker] if marker else []),
        f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {proxy_host}",
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--js-flags=--max-old-space-size={config.heap_mb}",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-domain-reliability",
        "--disable-sync",
        "--disable-features=DnsOverHttps,NetworkPrediction,InterestFeedContentSuggestions,OptimizationHints",
    ]


@dataclass(eq=False)
class _Instance:
    browser: Browser
    marker: str | None
    """The launch's marker switch (None for a remote browser: its processes are not ours)."""
    pages: int = 0
    open: int = 0
    retired: bool = False
    rss: int = 0
    """Resident memory of its processes when last measured (after the first page, then every few)."""

    def pids(self) -> list[int]:
        return browser_pids(self.marker) if self.marker else []


class BrowserPool(AsyncClosing):
    """See the module docstring. `proxy` is the guard every context is pointed at."""

    def __init__(self, config: BrowserConfig, proxy: GuardProxy, *, metrics: Metrics | None = None) -> None:
        self.config = config
        self.proxy = proxy
        self.metrics = metrics
        self._concurrency = config.concurrency or 2 * (os.cpu_count() or 1)
        self._slots = asyncio.Semaphore(self._concurrency)
        self._lock = asyncio.Lock()
        self._driver: Playwright | None = None
        self._current: _Instance | None = None
        self._retired: set[_Instance] = set()
        self._idle: asyncio.Task[None] | None = None
        self._last_used = time.monotonic()
        self._choice: BrowserChoice | None = None
        self._proxy_url = ""
        """The guard proxy as the browser reaches it (set at launch)."""
        self._closed = False
        self.launches = 0
        self.restarts = 0
        self.open_pages = 0

    @classmethod
    def for_fetches(
        cls,
        settings: Settings,
        guard: SsrfGuard,
        client: ClientGetter,
        policy: UrlCheck,
        *,
        metrics: Metrics | None = None,
    ) -> BrowserPool:
        """A pool whose pages go out through `guard`, `client` and `policy`: those of `web_fetch`."""
        proxy = GuardProxy(
            guard,
            client,
            policy,
            upstream=fetch_proxies(settings.fetch.proxy),
            connect_timeout_s=settings.fetch.connect_timeout,
            max_bytes=settings.fetch.max_bytes,
            host=settings.browser.proxy_host,
        )
        return cls(settings.browser, proxy, metrics=metrics)

    def choice(self) -> BrowserChoice:
        """The browser that would render; NotConfiguredError saying how to get one."""
        if self._choice is None:
            self._choice = choose_browser(self.config)
        return self._choice

    @property
    def running(self) -> bool:
        return self._current is not None

    def rss(self) -> int | None:
        """Resident memory of the launched browser's processes, None when none runs here."""
        instance = self._current
        return rss_bytes(instance.pids()) if instance is not None and instance.marker else None

    def pids(self) -> list[int]:
        """Every process of every browser this pool launched and has not closed."""
        instances = [*self._retired, *([self._current] if self._current else [])]
        return [pid for instance in instances for pid in instance.pids()]

    # -- lifecycle -------------------------------------------------------------------

    async def _launch(self) -> _Instance:
        choice = self.choice()
        await self.proxy.start()
        if self._driver is None:
            # its first import takes a few tenths of a second: not on the event loop
            api = await asyncio.to_thread(importlib.import_module, "playwright.async_api")
            self._driver = await api.async_playwright().start()
        chromium = self._driver.chromium
        if choice.endpoint is not None:
            host = advertised_host(self.config.proxy_host, choice.endpoint)
            self._proxy_url = self.proxy.url_at(host)
            if choice.endpoint.startswith(("ws://", "wss://")):
                # a Playwright server launches the browser with the options this header carries
                args = launch_args(self.config, host)
                options = {"headless": True, "args": args, "proxy": {"server": self._proxy_url}}
                browser = await chromium.connect(
                    choice.endpoint, headers={"x-playwright-launch-options": json.dumps(options)}
                )
            else:  # CDP: the browser was started by someone else, with the switches docs/browser.md lists
                browser = await chromium.connect_over_cdp(choice.endpoint)
            instance = _Instance(browser, None)
        else:
            marker = f"--weblens-browser={secrets.token_hex(8)}"
            self._proxy_url = self.proxy.url
            browser = await chromium.launch(
                executable_path=choice.path,
                headless=True,
                args=launch_args(self.config, self.config.proxy_host, marker),
                proxy={"server": self._proxy_url},
            )
            instance = _Instance(browser, marker)
            await asyncio.to_thread(lambda: lower_priority(instance.pids(), _NICENESS))
        self.launches += 1
        if self._idle is None or self._idle.done():
            self._idle = asyncio.create_task(self._shut_when_idle())
        return instance

    async def _instance(self) -> _Instance:
        async with self._lock:
            current = self._current
            if current is not None and not current.browser.is_connected():
                await self._replace(current, crashed=True)
                current = None
            elif current is not None and self._worn(current):
                await self._replace(current)
                current = None
            if current is None:
                current = self._current = await self._launch()
            return current

    def _worn(self, instance: _Instance) -> bool:
        return instance.pages >= self.config.max_pages or instance.rss > self.config.max_rss_mb * 1024 * 1024

    async def _measure(self, instance: _Instance) -> None:
        """Its memory, after its first page and every `_RSS_EVERY` pages (a /proc walk: off the loop)."""
        if instance.marker is None or instance.pages % _RSS_EVERY != 1:
            return
        instance.rss = await asyncio.to_thread(lambda: rss_bytes(instance.pids()))
        if self.metrics is not None:
            self.metrics.browser_rss(instance.rss)

    async def _replace(self, instance: _Instance, *, crashed: bool = False) -> None:
        """Retire `instance`: closed now if no page is open on it, else when its last page closes."""
        self.restarts += 1
        if self.metrics is not None:
            self.metrics.browser_restart("crash" if crashed else "recycle")
        if self._current is instance:
            self._current = None
        instance.retired = True
        if instance.open == 0 or crashed:
            await self._close_instance(instance)
        else:
            self._retired.add(instance)

    async def _close_instance(self, instance: _Instance) -> None:
        self._retired.discard(instance)
        pids = await asyncio.to_thread(instance.pids)
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT_S):
                await instance.browser.close()
        except Exception:
            pass
        if pids:  # what is left of them (a browser that would not close)
            left = set(await asyncio.to_thread(instance.pids))
            kill([pid for pid in pids if pid in left])

    async def _shut_when_idle(self) -> None:
        while not self._closed:
            await asyncio.sleep(min(_IDLE_POLL_S, self.config.idle_s))
            async with self._lock:
                current = self._current
                if current is None or current.open or self._retired:
                    continue
                if time.monotonic() - self._last_used < self.config.idle_s:
                    continue
                self._current = None
                await self._close_instance(current)
                await self._stop_driver()
                return

    async def _stop_driver(self) -> None:
        driver, self._driver = self._driver, None
        if driver is not None:
            with contextlib.suppress(Exception):
                await driver.stop()

    async def aclose(self) -> None:
        """Close every browser and the driver; no browser process is left afterwards."""
        self._closed = True
        if self._idle is not None:
            self._idle.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle
        async with self._lock:
            for instance in [*self._retired, *([self._current] if self._current else [])]:
                await self._close_instance(instance)
            self._current = None
            await self._stop_driver()
        await self.proxy.aclose()

    # -- pages -----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def page(self, *, media: bool = False) -> AsyncIterator[Page]:
        """A page in a fresh context, closed on the way out whatever happens. Wait for a slot
        under the caller's deadline (`asyncio.timeout`): waiting counts toward it."""
        self.choice()  # not configured: say so before waiting for a slot
        async with self._slots:
            instance = await self._instance()
            instance.pages += 1
            instance.open += 1
            self._opened(1)
            context: BrowserContext | None = None
            try:
                try:
                    context = await self._context(instance.browser, media)
                    page = await context.new_page()
                    context.on("page", lambda other: _close_popup(other, page))
                    yield page
                except Exception as exc:
                    if not instance.browser.is_connected():
                        raise BrowserCrashedError(
                            "the browser crashed while rendering this page; it is replaced for the next call"
                        ) from exc
                    raise
            finally:
                instance.open -= 1
                self._opened(-1)
                self._last_used = time.monotonic()
                if context is not None:
                    await self._close_context(instance, context)
                await self._measure(instance)
                if instance.retired and instance.open == 0 and instance in self._retired:
                    await self._close_instance(instance)

    def _opened(self, change: int) -> None:
        self.open_pages += change
        if self.metrics is not None:
            self.metrics.browser_pages(self.open_pages)

    async def _context(self, browser: Browser, media: bool) -> BrowserContext:
        context = await browser.new_context(
            proxy={"server": self._proxy_url},
            service_workers="block",
            accept_downloads=False,
            viewport=VIEWPORT,  # type: ignore[arg-type]
            user_agent=_user_agent(browser.version),
        )
        if not media:
            await context.route("**/*", _skip_media)
        return context

    async def _close_context(self, instance: _Instance, context: BrowserContext) -> None:
        """Close `context` (its renderer too, even one stuck in a loop); kill the browser if it will not."""
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT_S):
                await context.close()
        except Exception:
            async with self._lock:
                if instance.retired:
                    return
                await self._replace(instance, crashed=True)


def _close_popup(other: Page, ours: Page) -> None:
    """A popup or new window the page opened: closed, never rendered."""
    if other is not ours:
        asyncio.get_running_loop().create_task(other.close())


async def _skip_media(route: Route) -> None:
    if route.request.resource_type in _BLOCKED_TYPES:
        await route.abort("blockedbyclient")
    else:
        await route.fallback()


def _user_agent(version: str) -> str:
    """Chrome's own user agent (headless Chromium names itself HeadlessChrome, which sites refuse)."""
    return f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{version} Safari/537.36"
