"""The rendering tier: pages that need a browser, read through weblens' own guard.

One `BrowserPool` per runtime (built by the fetcher) launches Chromium through Playwright on
first need, or connects to a remote one; every request a page makes leaves through the
`GuardProxy`, which applies the SSRF guard, the allowed hosts and the domain policy exactly as
`web_fetch` does. `render` returns a page's DOM for the reading pipeline; `screenshot` an image.
Playwright is imported only when a page is rendered (`pip install 'weblens[browser]'`).
"""

from weblens.browser.locate import HOW_TO_GET_ONE, BrowserChoice, choose_browser
from weblens.browser.pool import BrowserCrashedError, BrowserPool
from weblens.browser.proxy import GuardProxy, Refusal
from weblens.browser.render import MAX_SCROLL, Rendered, Screenshot, render, screenshot

__all__ = [
    "HOW_TO_GET_ONE",
    "MAX_SCROLL",
    "BrowserChoice",
    "BrowserCrashedError",
    "BrowserPool",
    "GuardProxy",
    "Refusal",
    "Rendered",
    "Screenshot",
    "choose_browser",
    "render",
    "screenshot",
]
