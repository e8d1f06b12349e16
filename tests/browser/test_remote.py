"""A browser weblens did not start (WEBLENS_BROWSER_ENDPOINT, CDP): the guard holds for it too,
because every context it opens for weblens is pointed at weblens' guard proxy."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.browser.pool import launch_args
from weblens.config import BrowserConfig, Settings
from weblens.fetch import Fetcher
from weblens.testing import FakeServer
from weblens.testing.apps import AppServer
from weblens.testing.chromium import INSTALL_HINT, chromium_path
from weblens.testing.server import Reply

CHROMIUM = chromium_path()
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason=INSTALL_HINT), pytest.mark.timeout(120)]
OWN_TEXT = "Remote browsers read the page's own text through the guard as well."


@pytest.fixture
def remote_cdp(tmp_path: Path) -> Iterator[str]:
    """A Chromium started apart from weblens with a CDP port and docs/browser.md's switches."""
    assert CHROMIUM is not None
    process = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--remote-debugging-port=0", f"--user-data-dir={tmp_path / 'profile'}",
         *launch_args(BrowserConfig(), "127.0.0.1"), "about:blank"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        assert process.stderr is not None
        while time.monotonic() < deadline:
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", process.stderr.readline())
            if found:
                yield f"http://127.0.0.1:{found.group(1)}"
                break
        else:
            pytest.fail("the remote Chromium did not start")
    finally:
        process.kill()
        process.wait()


async def test_a_remote_browser_goes_out_through_the_guard(remote_cdp: str, tmp_path: Path) -> None:
    with AppServer() as apps, FakeServer() as canary:
        canary.route("GET", "/", Reply(body="canary"))
        apps.add_attack(f"127.0.0.1:{canary.port}", "private.test", OWN_TEXT)  # type: ignore[attr-defined]
        settings = Settings(
            data_dir=tmp_path, fetch={"allowed_hosts": [apps.host], "workers": 0}, browser={"endpoint": remote_cdp}
        )
        async with Fetcher.from_settings(settings) as fetcher:
            page = await fetcher.fetch(apps.url("/attack"), render="always")
            rendered = await fetcher.fetch(apps.url("/app/json"))
            assert fetcher.browser.pids() == []  # not weblens' processes: nothing of it is killed
        assert OWN_TEXT in page.content and "Ledger note 3" in rendered.content and rendered.rendered
        assert canary.requests == []
