"""Render one page, or take its screenshot, in a context from the `BrowserPool`.

Waiting: until the network is quiet and the DOM has stopped changing (bounded), or until a
`wait_for` selector is attached; then `scroll` screens, each followed by the same settling,
for content that loads on scroll. Open shadow roots are copied into the light DOM before the
HTML is taken, so their text reaches the reader. Everything runs under one hard deadline:
when it passes, the context is torn down whatever the page's scripts are doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from weblens.browser.pool import VIEWPORT, BrowserPool
from weblens.errors import BlockedError, ToolTimeoutError, ToolValidationError, UpstreamError, WeblensError

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = ["MAX_SCROLL", "Rendered", "Screenshot", "render", "screenshot"]

MAX_SCROLL = 20
_QUIET_S = 0.3
"""No request in flight and no DOM change for this long: the page has settled."""
_POLL_S = 0.05
_SETTLE_MAX_S = 8.0
_MARGIN_S = 1.0
"""Kept back from the deadline for taking the HTML once waiting gives up."""
_COUNT_MUTATIONS = """(() => {
  let n = 0;
  new MutationObserver((records) => { n += records.length; })
    .observe(document, {subtree: true, childList: true, characterData: true});
  Object.defineProperty(window, '__weblensMutations', {get: () => n, configurable: false});
})()"""
_FLATTEN_SHADOW = """() => {
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot) continue;
      visit(el.shadowRoot);
      const copy = document.createElement('div');
      copy.setAttribute('data-weblens-shadow', '');
      copy.innerHTML = el.shadowRoot.innerHTML;
      el.appendChild(copy);
    }
  };
  visit(document);
}"""
_MUTATIONS = "() => window.__weblensMutations || 0"
_SCROLL = "() => window.scrollBy(0, window.innerHeight)"
_PAGE_HEIGHT = "() => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)"


@dataclass
class Rendered:
    """The DOM of a rendered page, serialised, and what happened on the way."""

    url: str
    final_url: str
    status: int
    html: str
    seconds: float
    notes: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    """The page's own response headers (lower-case names), e.g. its Cache-Control."""


@dataclass
class Screenshot:
    image: bytes
    format: Literal["png", "jpeg"]
    width: int
    height: int
    final_url: str
    seconds: float
    full_page: bool
    cut: bool = False
    """The page was taller than `browser.max_screenshot_height` and was cut there."""


class _Requests:
    """Requests of one page still in flight."""

    def __init__(self, page: Page) -> None:
        self.in_flight = 0
        page.on("request", lambda _: self._change(1))
        page.on("requestfinished", lambda _: self._change(-1))
        page.on("requestfailed", lambda _: self._change(-1))

    def _change(self, by: int) -> None:
        self.in_flight = max(0, self.in_flight + by)


async def _settle(page: Page, requests: _Requests, until: float) -> bool:
    """Wait for quiet (no request, no DOM change for `_QUIET_S`) or `until`; whether it came."""
    loop = asyncio.get_running_loop()
    seen = -1
    quiet_since = loop.time()
    while loop.time() < until:
        count = await page.evaluate(_MUTATIONS)
        now = loop.time()
        if count != seen or requests.in_flight:
            seen, quiet_since = count, now
        elif now - quiet_since >= _QUIET_S:
            return True
        await asyncio.sleep(_POLL_S)
    return False


def _translate(exc: Exception, url: str, pool: BrowserPool) -> WeblensError:
    """A Playwright failure as the weblens error a user can act on."""
    text = str(exc).split("\n", 1)[0]
    if "crash" in text.lower():
        return UpstreamError(
            f"the page {url} crashed the browser tab while rendering (over browser.heap_mb of memory?)",
            retryable=False,
        )
    if "ERR_TUNNEL_CONNECTION_FAILED" in text or "ERR_PROXY" in text:
        last = pool.proxy.refusals[-1].reason if pool.proxy.refusals else "the guard refused it or it was unreachable"
        return BlockedError(f"the browser could not load {url}: {last}")
    if "selector" in text.lower() and ("valid" in text.lower() or "syntax" in text.lower()):
        return ToolValidationError(f"wait_for is not a valid CSS selector: {text}")
    return UpstreamError(f"the browser could not load {url}: {text}", retryable=True)


def _check_final(url: str) -> None:
    if not url.startswith(("http://", "https://")):
        raise BlockedError(f"the page navigated to {url.split(':', 1)[0]}: URL, which weblens does not follow")


@contextlib.asynccontextmanager
async def _loaded(
    pool: BrowserPool, url: str, deadline: float, *, media: bool, what: str
) -> AsyncIterator[tuple[Page, _Requests, int, dict[str, str]]]:
    """A page with `url` loaded, within `deadline` (loop time), its context torn down afterwards;
    with the status and headers of its response."""
    from playwright.async_api import Error as PlaywrightError

    loop = asyncio.get_running_loop()
    limit = max(0.0, deadline - loop.time())
    try:
        async with asyncio.timeout_at(deadline), pool.page(media=media) as page:
            requests = _Requests(page)
            await page.add_init_script(_COUNT_MUTATIONS)
            try:
                response = await page.goto(url, wait_until="domcontentloaded", timeout=0)
                if response is None:
                    yield page, requests, 200, {}
                else:
                    yield page, requests, response.status, response.headers
            except PlaywrightError as exc:
                raise _translate(exc, url, pool) from None
    except TimeoutError:
        raise ToolTimeoutError(
            f"{what} {url} took longer than {limit:g} s (fetch.render_timeout); the page was closed",
            retryable=False,
        ) from None


@contextlib.contextmanager
def _recorded(pool: BrowserPool) -> Iterator[None]:
    """The block's outcome (ok, timeout, error) and duration in the pool's metrics."""
    started = time.monotonic()
    outcome = "error"
    try:
        yield
        outcome = "ok"
    except ToolTimeoutError:
        outcome = "timeout"
        raise
    finally:
        if pool.metrics is not None:
            pool.metrics.render_done(outcome, time.monotonic() - started)


def _settle_by(deadline: float) -> float:
    """When waiting for the page gives up: a bounded wait that leaves time to read the page."""
    return min(deadline - _MARGIN_S, asyncio.get_running_loop().time() + _SETTLE_MAX_S)


async def render(
    pool: BrowserPool, url: str, *, deadline: float, wait_for: str | None = None, scroll: int = 0
) -> Rendered:
    """The rendered DOM of `url` (checked by the caller: policy and guard), as HTML."""
    if not 0 <= scroll <= MAX_SCROLL:
        raise ToolValidationError(f"scroll must be between 0 and {MAX_SCROLL} screens")
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    notes: list[str] = []
    with _recorded(pool):
        async with _loaded(pool, url, deadline, media=False, what="rendering") as loaded:
            page, requests, status, headers = loaded
            settle_until = _settle_by(deadline)
            if wait_for:
                wait_ms = max(1.0, (settle_until - loop.time()) * 1000)
                try:
                    await page.wait_for_selector(wait_for, state="attached", timeout=wait_ms)
                except Exception as exc:
                    if "timeout" not in type(exc).__name__.lower() and "Timeout" not in str(exc):
                        raise
                    notes.append(f"wait_for {wait_for!r} did not appear within {wait_ms / 1000:.1f} s")
            elif not await _settle(page, requests, settle_until):
                notes.append("the page was still changing when its text was taken")
            for _ in range(scroll):
                await page.evaluate(_SCROLL)
                await _settle(page, requests, _settle_by(deadline))
            await page.evaluate(_FLATTEN_SHADOW)
            html = await page.content()
            final_url = page.url
        _check_final(final_url)
        return Rendered(url, final_url, status, html, time.monotonic() - started, notes, headers)


async def screenshot(
    pool: BrowserPool,
    url: str,
    *,
    deadline: float,
    full_page: bool = False,
    image_format: Literal["png", "jpeg"] = "png",
    quality: int | None = None,
    wait_for: str | None = None,
) -> Screenshot:
    """A PNG or JPEG of `url`'s viewport or whole page (cut at `browser.max_screenshot_height`)."""
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    with _recorded(pool):
        async with _loaded(pool, url, deadline, media=True, what="taking a screenshot of") as (page, requests, _, _):
            settle_until = _settle_by(deadline)
            if wait_for:
                wait_ms = max(1.0, (settle_until - loop.time()) * 1000)
                await page.wait_for_selector(wait_for, state="visible", timeout=wait_ms)
            else:
                await _settle(page, requests, settle_until)
            width, height = VIEWPORT["width"], VIEWPORT["height"]
            cap = pool.config.max_screenshot_height
            cut = False
            if full_page:
                tall = int(await page.evaluate(_PAGE_HEIGHT))
                height, cut = min(max(tall, 1), cap), tall > cap
            image = await page.screenshot(
                type=image_format,
                quality=quality if image_format == "jpeg" else None,
                full_page=full_page,
                clip={"x": 0, "y": 0, "width": width, "height": height} if full_page else None,
                timeout=0,
            )
            final_url = page.url
        _check_final(final_url)
        return Screenshot(image, image_format, width, height, final_url, time.monotonic() - started, full_page, cut)
