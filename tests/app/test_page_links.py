"""Links and images on the chat page go only where the answer's sources and the user's URLs go.

The payloads are the ones that got past the link guard and the page's renderer (marked +
DOMPurify), which made `<a href="https://evil.example/…">` of six of them: `https:/x`, `https:x`,
`https:\\/\\/x`, `https&#58;//x`, reference definitions, `<https:/x>` autolinks, `//x`. Each is also
aimed at a canary server on 127.0.0.1, which must see no request at all. Headless Debian
chromium driven by Playwright; skipped without it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from weblens import Settings
from weblens.testing import FakeServer
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]
LEDGER = "https://news.example/ai"
"""The search result the scripted tool returns: the one URL the answer may link to."""

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium: apt-get install -y chromium")
playwright_api = pytest.importorskip("playwright.async_api")


def payload(canary: str) -> str:
    """The issue's payloads, each at evil.example and again at the canary (`host:port`)."""
    lines = []
    for host in ("evil.example", canary):
        lines += [
            f"[c](https:/{host}/c) [d](https:{host}/d) [e](https:\\/\\/{host}/e) [f](https&#58;//{host}/f)",
            f"[g](//{host}/g) <https:/{host}/auto> <http:/{host}/auto2> ![i](https:/{host}/i.png) ![j](//{host}/j.png)",
            f"[k](http&#58;//{host}/k) [ref one] and [two][r2] https:\\/\\/{host}/bare //{host}/bare2",
            f"<a href='https:/{host}/h'>h</a> <img src='//{host}/h.png'>",
            "",
            f"[ref one]: https:/{host}/r1",
            f"[r2]: //{host}/r2",
            "",
        ]
    lines += [
        f"The source is [AI News]({LEDGER}) [1].",
        f"![ledger image]({LEDGER}?utm_source=SECRET) [tracked]({LEDGER}?utm_source=SECRET) "
        "[with userinfo](https://SECRET:x@news.example/ai)",
    ]
    return "\n".join(lines)


class Seen:
    """Every request the browser made, by URL."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def bad(self, canary: str) -> list[str]:
        return [url for url in self.urls if "evil.example" in url or canary in url]


@pytest.fixture
def canary() -> Any:
    with FakeServer() as server:
        server.route("GET", "/", Reply(body="canary"))
        yield server


@pytest.fixture
async def page(serve: Any, llm: ScriptedLLM) -> AsyncIterator[tuple[Any, Seen]]:
    async with playwright_api.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            tab = await (await browser.new_context()).new_page()
            tab.set_default_timeout(15_000)
            seen = Seen()
            tab.on("request", lambda request: seen.urls.append(request.url))
            yield tab, seen
        finally:
            await browser.close()


async def shown(tab: Any, root: str) -> dict[str, list[str]]:
    """The links, images and enabled image buttons under `root`, as the browser resolved them."""
    found: dict[str, list[str]] = await tab.evaluate(
        """(root) => {
            const box = document.querySelector(root);
            return {
              links: [...box.querySelectorAll("a[href]")].map((a) => a.href),
              images: [...box.querySelectorAll("img")].map((i) => i.src),
              buttons: [...box.querySelectorAll("button.load-image:not([disabled])")].map((b) => b.textContent),
            };
        }""",
        root,
    )
    return found


async def test_the_renderer_links_only_allowed_urls_whatever_the_spelling(
    page: tuple[Any, Seen], serve: Callable[..., Any], make_settings: Callable[..., Settings], canary: Any
) -> None:
    """The page's own check, with the server's guard out of the way: raw payloads straight into
    its renderer, as a hostile or buggy server would send them."""
    tab, seen = page
    server = serve(make_settings())
    await tab.goto(server.url("/"))
    await tab.evaluate(
        """async ([text, allowed]) => {
            const render = await import("/static/render.js");
            const box = document.createElement("div");
            box.id = "rendered";
            box.append(render.renderMarkdown(text, render.allowedUrls(allowed)));
            document.body.append(box);
        }""",
        [payload(f"127.0.0.1:{canary.port}"), [LEDGER]],
    )
    found = await shown(tab, "#rendered")

    assert found["links"] == [LEDGER]  # the ledger link, and nothing else
    assert found["images"] == [] and found["buttons"] == []  # no image loads; none may be loaded by a click
    for button in await tab.locator("#rendered button.load-image").all():
        await button.click(force=True)  # disabled: a click does nothing
    await tab.wait_for_timeout(300)
    assert seen.bad(f"127.0.0.1:{canary.port}") == [] and canary.requests == []


async def test_an_answer_with_the_payloads_links_nothing_but_its_source_streamed_and_saved(
    page: tuple[Any, Seen],
    llm: ScriptedLLM,
    serve: Callable[..., Any],
    make_settings: Callable[..., Settings],
    canary: Any,
) -> None:
    tab, seen = page
    server = serve(make_settings())
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news"})]),
        Turn(text=payload(f"127.0.0.1:{canary.port}"), chunk_interval_s=0.005),
    )
    await tab.goto(server.url("/"))
    await tab.fill("#input", "What is new in AI?")
    await tab.press("#input", "Enter")
    await tab.locator(".msg.assistant.finished").wait_for()

    for when in ("streamed", "saved"):
        found = await shown(tab, ".msg.assistant .text")
        assert set(found["links"]) == {LEDGER}, when  # the markdown link and the citation [1]
        assert found["images"] == [] and found["buttons"] == [], when
        text = await tab.locator(".msg.assistant .text").text_content()
        assert "https:/evil.example/c" in text and "utm_source=SECRET" in text  # shown as text, not dropped
        await tab.reload()
        await tab.locator(".msg.assistant.finished").wait_for()
    assert seen.bad(f"127.0.0.1:{canary.port}") == [] and canary.requests == []
