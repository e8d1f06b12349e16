"""Which browser renders pages: a remote one, `browser.path`, Playwright's own, or the system's.

Nothing here downloads a browser: when none is found, the answer says how to get one.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from weblens.config import BrowserConfig
from weblens.errors import NotConfiguredError
from weblens.redact import mask_url

__all__ = ["HOW_TO_GET_ONE", "BrowserChoice", "choose_browser"]

HOW_TO_GET_ONE = (
    "pip install 'weblens[browser]' and run `playwright install chromium`, or install a system Chromium "
    "(e.g. apt-get install chromium), or set WEBLENS_BROWSER_PATH to a Chromium executable, "
    "or WEBLENS_BROWSER_ENDPOINT to a remote browser (Playwright server or CDP)"
)
_SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


@dataclass(frozen=True)
class BrowserChoice:
    """Where the browser comes from: `path` launched here, or `endpoint` connected to."""

    path: str | None = None
    endpoint: str | None = None
    source: str = ""

    def describe(self) -> str:
        if self.endpoint is not None:
            return f"remote browser at {mask_url(self.endpoint)} ({self.source})"
        return f"{self.path} ({self.source})"


def _playwright_chromium() -> str | None:
    """Playwright's own download (`playwright install chromium`), where Playwright keeps it."""
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    patterns = ("chromium-*/chrome-linux*/chrome", "chromium_headless_shell-*/chrome-linux*/headless_shell",
                "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium")  # fmt: skip
    for pattern in patterns:
        found = sorted(root.glob(pattern), reverse=True)  # the newest revision first
        if found:
            return str(found[0])
    return None


def choose_browser(config: BrowserConfig) -> BrowserChoice:
    """The browser to use; NotConfiguredError naming how to get one when there is none."""
    if importlib.util.find_spec("playwright") is None:
        raise NotConfiguredError(f"rendering needs Playwright, which is not installed: {HOW_TO_GET_ONE}")
    if config.endpoint:
        return BrowserChoice(endpoint=config.endpoint, source="WEBLENS_BROWSER_ENDPOINT")
    if config.path:
        if not os.access(config.path, os.X_OK):
            raise NotConfiguredError(
                f"WEBLENS_BROWSER_PATH is {config.path}, which is not an executable file; {HOW_TO_GET_ONE}"
            )
        return BrowserChoice(path=config.path, source="WEBLENS_BROWSER_PATH")
    own = _playwright_chromium()
    if own is not None:
        return BrowserChoice(path=own, source="Playwright's chromium")
    for name in _SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return BrowserChoice(path=found, source="system browser")
    raise NotConfiguredError(f"no browser found for rendering: {HOW_TO_GET_ONE}")
