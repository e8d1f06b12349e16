"""Where the tests' browser is: Debian's `chromium` (CI installs it), driven by Playwright."""

from __future__ import annotations

import importlib.util
import shutil

__all__ = ["INSTALL_HINT", "chromium_path"]

INSTALL_HINT = "needs Chromium and Playwright: apt-get install chromium; pip install -e '.[dev]'"


def chromium_path() -> str | None:
    """The system Chromium when it and Playwright are both installed, else None (skip the test)."""
    if importlib.util.find_spec("playwright") is None:
        return None
    return shutil.which("chromium") or shutil.which("chromium-browser")
