"""Without a browser: `render="always"` says how to get one, `auto` reads as before with a note,
and a static page never looks for one. Also which plain reads count as failed (no browser needed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.config import Settings
from weblens.errors import NotConfiguredError
from weblens.fetch import Fetcher
from weblens.fetch.render_need import render_reason
from weblens.testing.apps import AppServer
from weblens.testing.pages import article_html


@pytest.fixture
def apps() -> Iterator[AppServer]:
    with AppServer() as server:
        yield server  # type: ignore[misc]


@pytest.fixture
def no_browser(apps: AppServer, tmp_path: Path) -> Settings:
    missing = tmp_path / "no-such-chromium"
    return Settings(
        data_dir=tmp_path, fetch={"allowed_hosts": [apps.host], "workers": 0}, browser={"path": str(missing)}
    )


async def test_render_always_says_how_to_get_a_browser(apps: AppServer, no_browser: Settings) -> None:
    async with Fetcher.from_settings(no_browser) as fetcher:
        with pytest.raises(NotConfiguredError) as caught:
            await fetcher.fetch(apps.url("/app/json"), render="always")
    message = caught.value.message
    assert "pip install 'weblens[browser]'" in message and "playwright install chromium" in message
    assert "WEBLENS_BROWSER_PATH" in message and "WEBLENS_BROWSER_ENDPOINT" in message
    assert apps.requests == []  # nothing was downloaded before saying so


async def test_auto_reads_the_shell_and_notes_that_a_browser_would_help(
    apps: AppServer, no_browser: Settings
) -> None:
    async with Fetcher.from_settings(no_browser) as fetcher:
        page = await fetcher.fetch(apps.url("/app/json"))
        assert page.rendered is False and page.render_reason == "javascript_shell"
        assert "a browser would read it" in (page.note or "") and "playwright install chromium" in (page.note or "")
        static = await fetcher.fetch(apps.url("/static"))
        assert static.note is None and static.render_reason is None
        assert fetcher.browser.launches == 0


@pytest.mark.parametrize(
    ("html", "content", "visible", "reason"),
    [
        (article_html(), "x" * 2000, 2000, None),
        ("<html><body><div id='root'></div><script src='/app.js'></script></body></html>", "", 0, "javascript_shell"),
        ("<html><body><p>No scripts, just little text.</p></body></html>", "little", 30, None),
        (
            "<html><body><noscript>Please enable JavaScript to continue.</noscript>" + "<p>menu item</p>" * 40
            + "<script src='/a.js'></script></body></html>",
            "menu item " * 20, 400, "noscript_notice",
        ),
        (
            "<html><body>" + "<a href='/x'>navigation link text</a>" * 12 + "<div id='__next'></div>"
            "<script src='/a.js'></script></body></html>",
            "navigation link text " * 12, 300, "empty_app_root",
        ),
        (
            "<html><body>" + "<p>short words here</p>" * 15 + "<script>" + "var a=1;" * 5000 + "</script>",
            "short words here " * 15, 300, "scripts_outweigh_text",
        ),
        (  # a short page of real text is a success, however heavy its scripts
            "<html><body>" + "<p>a stub article with a few real lines</p>" * 20 + "<script>" + "var a=1;" * 5000
            + "</script>",
            "a stub article with a few real lines " * 20, 800, None,
        ),
    ],
    ids=["article", "shell", "no-scripts", "noscript", "app-root", "scripts", "short-static"],
)  # fmt: skip
def test_which_plain_reads_need_a_browser(html: str, content: str, visible: int, reason: str | None) -> None:
    assert render_reason(html, content, visible, "trafilatura") == reason
