"""The chat page in headless Chromium (Debian's `chromium`, driven by Playwright).

One test per behaviour a user relies on. Every test fails on a console error or an
uncaught page error, and the main views are saved as screenshots at 1280 px and 390 px
in tests/app/screenshots/ (git-ignored) for a person to look at. Skipped when
/usr/bin/chromium or the playwright package is absent; CI installs the browser with
`apt-get install -y chromium`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from weblens import Settings, Source, ToolResult, Toolset, define_tool
from weblens.testing import FakeServer
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply

from .conftest import Query

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000
SCREENSHOTS = Path(__file__).parent / "screenshots"
WIDE = {"width": 1280, "height": 800}
NARROW = {"width": 390, "height": 844}
QUESTION = "今天 AI 领域有什么新闻？"
TEXT_LONGER_THAN = "(n) => (document.querySelector('.msg.assistant .text')?.textContent || '').length > n"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
playwright_api = pytest.importorskip("playwright.async_api")


class Browser:
    """Opens pages; collects every console error and uncaught exception of every page."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.errors: list[str] = []

    async def page(self, *, viewport: dict[str, int] = WIDE, dark: bool = False) -> Any:
        context = await self.browser.new_context(
            viewport=viewport,
            color_scheme="dark" if dark else "light",
            permissions=["clipboard-read", "clipboard-write"],
        )
        tab = await context.new_page()
        tab.set_default_timeout(WAIT_MS)
        tab.on("console", self._console)
        tab.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        return tab

    def _console(self, message: Any) -> None:
        """A console error, with where it came from: for a failed load, the resource's address."""
        if message.type == "error":
            self.errors.append(f"console: {message.text} ({message.location.get('url', '?')})")


@pytest.fixture
async def browser(serve: Any, llm: ScriptedLLM) -> AsyncIterator[Browser]:
    """Closed before the servers it talks to stop (so no request of a page meets a closed port)."""
    async with playwright_api.async_playwright() as driver:
        launched = await driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        opened = Browser(launched)
        try:
            yield opened
        finally:
            await launched.close()
    assert opened.errors == [], opened.errors  # no console errors, in any test


async def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    for label, size in (("1280", WIDE), ("390", NARROW)):
        await page.set_viewport_size(size)
        await page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=False)
    await page.set_viewport_size(WIDE)


def png_1x1() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\xff\0\0")) + chunk(
        b"IEND", b""
    )


@pytest.fixture
def images() -> Any:
    with FakeServer() as server:
        server.route("GET", "/chart.png", Reply(body=png_1x1(), content_type="image/png"))
        yield server


async def send(page: Any, text: str) -> None:
    await page.fill("#input", text)
    await page.press("#input", "Enter")


async def stopped_midway(browser: Browser, server: Any, question: str, *, shown: int) -> tuple[Any, Any]:
    """Ask `question` on a new page and press Stop once `shown` characters of the answer are on screen;
    the page and its stopped answer."""
    page = await browser.page()
    await page.goto(server.url("/"))
    await send(page, question)
    await page.wait_for_function(TEXT_LONGER_THAN, arg=shown)
    await page.click("#stop")
    stopped = page.locator(".msg.assistant.stopped")
    await stopped.wait_for()
    return page, stopped


async def test_an_answer_streams_then_renders_as_safe_markdown_with_linked_citations(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings], images: Any
) -> None:
    server = serve(make_settings())
    answer = (
        "## Today in AI\n\nThe big story is a **new open model** [1], and a lab result [2].\n\n"
        "<img src=x onerror=alert(1)> <script>alert(2)</script> [a trap](javascript:alert(3))\n\n"
        "```python\ndef answer(question):\n    return 42\n```\n\n"
        f"![a chart]({images.url('/chart.png')})\n"
    )
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news today"})], delay_s=0.8),
        Turn(text=answer, chunk_interval_s=0.03),
    )
    page = await browser.page()
    await page.goto(server.url("/"))
    await send(page, f"{QUESTION} {images.url('/chart.png')}")  # an image the user gave may be shown

    # before the first word: thinking, then the tool with its running time
    await page.locator(".msg.assistant .activity", has_text="Thinking…").wait_for()
    await page.locator(".msg.user .text", has_text=QUESTION).wait_for()
    partial = await page.wait_for_function(
        "(n) => { const t = document.querySelector('.msg.assistant.streaming .text');"
        " return t && t.textContent.length > 0 && t.textContent.length < n && t.textContent; }",
        arg=len(answer),
    )
    assert "Today in AI".startswith((await partial.json_value()).strip()[:11])
    await page.locator(".msg.assistant.finished").wait_for()

    message = page.locator(".msg.assistant")
    tool = message.locator("details.tool")
    assert await tool.get_attribute("open") is None  # collapsed
    summary = await tool.locator("summary").text_content()
    assert "web_search: AI news today" in summary and "✓ 2 results" in summary and " s" in summary
    assert await message.locator("h2").text_content() == "Today in AI"
    assert await message.locator("strong").text_content() == "new open model"
    assert await page.locator("img").count() == 0 and await page.locator(".msg script").count() == 0
    assert "<img src=x onerror=alert(1)>" in await message.locator(".text").text_content()
    assert await message.locator(".text a", has_text="a trap").count() == 0  # not a link at all

    code = message.locator("pre code.hljs")
    assert await code.locator(".hljs-keyword").first.text_content() == "def"
    await message.locator("pre .copy").click()
    await message.locator("pre .copy", has_text="Copied").wait_for()
    assert await page.evaluate("navigator.clipboard.readText()") == "def answer(question):\n    return 42\n"

    cite = message.locator("a.cite").first
    assert await cite.text_content() == "[1]" and await cite.get_attribute("href") == "https://news.example/ai"
    await cite.hover()
    card = page.locator("#cite-card")
    await card.wait_for(state="visible")
    assert await card.locator(".cite-title").text_content() == "AI News Daily"
    assert await card.locator(".cite-site").text_content() == "news.example"
    links = message.locator(".sources a")
    assert await links.count() == 2 and await links.first.get_attribute("rel") == "noopener noreferrer"

    await screenshot(page, "answer")
    load = message.locator("button.load-image")
    assert "a chart" in await load.text_content() and "127.0.0.1" in await load.text_content()
    assert images.count("/chart.png") == 0  # nothing fetched from another site until asked
    await load.click()
    await message.locator("img[alt='a chart']").wait_for()
    assert images.count("/chart.png") == 1


async def test_a_citation_shows_whether_it_was_verified_and_the_passage_on_hover(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news"})]),
        Turn(
            text=(
                'The site calls itself "AI News Daily" [1]. It says "models doubled in size overnight" [1]. '
                "There is big AI news today [1]. Bananas cure colds [1]. "
                "More at [their blog](https://made-up.example/blog). See also [5]."
            )
        ),
    )
    page = await browser.page()
    await page.goto(server.url("/"))
    await send(page, "What is new?")
    await page.locator(".msg.assistant.finished").wait_for()

    message = page.locator(".msg.assistant")
    card = page.locator("#cite-card")
    verified, not_found = message.locator("a.cite").nth(0), message.locator("a.cite").nth(1)
    assert await verified.get_attribute("class") == "cite cite-verified"
    await verified.hover()
    await card.locator(".cite-status").wait_for()
    assert (await card.locator(".cite-status").text_content()).startswith("verified")
    assert await card.locator(".cite-passage").text_content() == "AI News Daily"

    assert await not_found.get_attribute("class") == "cite cite-quote_not_found"
    await not_found.hover()
    await card.locator(".cite-status.cite-quote_not_found").wait_for()
    assert "quoted passage was not found" in await card.locator(".cite-status").text_content()

    cited, unsupported = message.locator("a.cite").nth(2), message.locator("a.cite").nth(3)  # unquoted: never verified
    assert await cited.get_attribute("class") == "cite cite-cited"
    await cited.hover()
    await card.locator(".cite-status.cite-cited").wait_for()
    assert (await card.locator(".cite-status").text_content()).startswith("cited, not quoted")
    assert await unsupported.get_attribute("class") == "cite cite-unsupported"
    await unsupported.hover()
    await card.locator(".cite-status.cite-unsupported").wait_for()
    status = await card.locator(".cite-status").text_content()
    assert status.startswith("unsupported: the source does not seem to say this") and "0 % of the sentence" in status

    unknown = message.locator("span.cite-unknown_source")
    assert await unknown.text_content() == "[5]"
    await unknown.hover()
    await card.locator(".cite-status.cite-unknown_source").wait_for()
    assert await card.locator(".cite-title").text_content() == "Source 5"

    assert await message.locator(".text a", has_text="their blog").count() == 0  # an invented URL is not a link
    assert "https://made-up.example/blog" in await message.locator(".text code").first.text_content()

    await page.reload()  # the checks come back with the saved message
    await page.locator(".msg.assistant a.cite-quote_not_found").wait_for()
    await screenshot(page, "citations")


async def test_stop_cancels_the_answer_and_keeps_what_was_written(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="word " * 300, chunk_interval_s=0.04))
    page, stopped = await stopped_midway(browser, server, "tell me a long story", shown=30)

    assert "Stopped" in await stopped.locator(".status").text_content()
    kept = await stopped.locator(".text").text_content()
    assert kept.startswith("word word") and len(kept) < len("word " * 300)
    assert await page.locator("#send").is_visible() and not await page.locator("#stop").is_visible()
    session_id = page.url.split("session=")[1]
    saved = httpx.get(server.url(f"/api/sessions/{session_id}")).json()["messages"][1]
    assert saved["status"] == "stopped" and saved["content"].startswith(kept.strip()[:20])

    await page.reload()
    await page.locator(".msg.assistant.stopped .status").wait_for()  # the state survives a reload


async def test_reload_during_an_answer_keeps_it_streaming(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    text = " ".join(f"w{n}" for n in range(150))
    llm.add(Turn(text=text, chunk_interval_s=0.03))
    page = await browser.page()
    await page.goto(server.url("/"))
    await send(page, "count for me")
    await page.wait_for_function(TEXT_LONGER_THAN, arg=20)

    await page.reload()

    await page.locator(".msg.user .text", has_text="count for me").wait_for()
    await page.locator(".msg.assistant.streaming").wait_for()
    await page.locator(".msg.assistant.finished").wait_for()
    assert (await page.locator(".msg.assistant .text").text_content()).strip() == text
    assert await page.locator(".msg.assistant").count() == 1


async def test_sessions_appear_at_once_rename_inline_delete_with_undo_and_search(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="slowly " * 60, chunk_interval_s=0.03), Turn(text="About the lighthouse."))
    page = await browser.page()
    await page.clock.install()
    await page.goto(server.url("/"))
    await send(page, "first question")
    await page.locator(".msg.assistant.streaming .text", has_text="slowly").wait_for()
    assert await page.locator("#sessions li .name").all_text_contents() == ["first question"]  # before the end
    await page.locator(".msg.assistant.finished").wait_for()
    await page.click("#new-chat")
    await send(page, "a lighthouse")
    await page.locator(".msg.assistant.finished").wait_for()
    items = page.locator("#sessions li")
    assert await items.locator(".name").all_text_contents() == ["a lighthouse", "first question"]

    await items.nth(1).locator(".rename").click()
    await page.fill("#sessions .rename-field", "Renamed in place")
    await page.press("#sessions .rename-field", "Enter")
    await page.locator("#sessions li .name", has_text="Renamed in place").wait_for()
    titles = [s["title"] for s in httpx.get(server.url("/api/sessions")).json()["sessions"]]
    assert "Renamed in place" in titles

    await page.fill("#session-search", "lighthouse")
    await page.clock.run_for(500)
    await page.wait_for_function("() => document.querySelectorAll('#sessions li').length === 1")
    await page.fill("#session-search", "")
    await page.clock.run_for(500)
    await page.wait_for_function("() => document.querySelectorAll('#sessions li').length === 2")

    target = page.locator("#sessions li", has_text="Renamed in place")
    await target.locator(".delete").click()
    await page.locator("#toast", has_text="Deleted").wait_for()
    assert not await target.is_visible()
    await page.click("#toast .undo")
    assert await target.is_visible()
    await target.locator(".delete").click()
    await page.clock.run_for(7000)
    await page.wait_for_function("() => document.querySelectorAll('#sessions li').length === 1")
    await screenshot(page, "sessions")
    for _ in range(50):
        remaining = [s["title"] for s in httpx.get(server.url("/api/sessions")).json()["sessions"]]
        if remaining == ["a lighthouse"]:
            break
        await page.wait_for_timeout(100)
    assert remaining == ["a lighthouse"]


async def test_everything_works_from_the_keyboard(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="First answer."), Turn(text="long " * 200, chunk_interval_s=0.04))
    page = await browser.page()
    await page.goto(server.url("/"))
    await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.className") == "skip"
    await page.keyboard.press("Enter")  # skip link: to the message box
    await page.keyboard.type("keyboard question")
    await page.keyboard.press("Enter")
    await page.locator(".msg.assistant.finished").wait_for()

    await page.keyboard.press("Alt+N")  # a new chat, the message box focused
    assert await page.evaluate("document.activeElement.id") == "input"
    await page.keyboard.type("a long one")
    await page.keyboard.press("Enter")
    await page.locator(".msg.assistant .text", has_text="long").wait_for()
    await page.keyboard.press("Escape")  # stops the answer
    await page.locator(".msg.assistant.stopped").wait_for()

    await page.locator("body").click(position={"x": 700, "y": 300})  # leave the text box
    await page.keyboard.press("/")
    assert await page.evaluate("document.activeElement.id") == "session-search"
    await page.keyboard.press("Tab")  # the newest chat
    assert await page.evaluate("document.activeElement.className") == "open"
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")  # the older chat
    await page.keyboard.press("Enter")
    await page.locator(".msg.user .text", has_text="keyboard question").wait_for()
    await page.keyboard.press("F2")
    await page.keyboard.press("Control+A")
    await page.keyboard.type("Named by keyboard")
    await page.keyboard.press("Enter")
    await page.locator("#sessions li .name", has_text="Named by keyboard").wait_for()
    focused = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert focused != "none"  # the focus can be seen


async def test_without_a_model_the_page_says_how_to_connect_one_and_runs_tools(
    browser: Browser, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(with_llm=False))
    page = await browser.page()
    await page.goto(server.url("/"))

    banner = page.locator("#banner")
    await banner.locator(".connect").wait_for()
    text = await banner.text_content()
    for name in ("OpenAI", "Ollama", "vLLM"):
        assert name in text
    assert "WEBLENS_LLM_BASE_URL=" in text and "WEBLENS_LLM_MODEL=" in text
    assert await page.locator("#input").is_disabled()

    panel = page.locator("#tool-panel")
    assert await panel.is_visible()
    assert await page.locator("#tool-name").input_value() == "web_search"
    await page.fill("#tool-field-query", "AI news")
    await page.click("#tool-run")
    result = page.locator("#tool-result .tool-text")
    await result.wait_for()
    assert await result.text_content() == "results for AI news"  # what a model would read
    assert await page.locator("#tool-result .sources a").first.get_attribute("href") == "https://news.example/ai"
    await screenshot(page, "no-model")


async def test_dark_mode_follows_the_system(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="Dark **mode** answer with `code`."))
    page = await browser.page(dark=True)
    await page.goto(server.url("/"))
    await send(page, "hello")
    await page.locator(".msg.assistant.finished").wait_for()

    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    channels = [int(part) for part in background.removeprefix("rgb(").rstrip(")").split(",")]
    assert max(channels) < 60, background
    await screenshot(page, "dark")


async def test_at_390_px_the_chat_list_is_a_drawer_and_the_text_box_is_wide(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="A short answer."))
    page = await browser.page(viewport=NARROW)
    await page.goto(server.url("/"))

    assert not await page.locator("#sidebar").is_visible()
    box = await page.locator("#input").bounding_box()
    assert box is not None and box["width"] > 250
    await send(page, "narrow question")
    await page.locator(".msg.assistant.finished").wait_for()
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= NARROW["width"]  # nothing sticks out sideways

    await page.click("#open-sidebar")
    await page.locator("#sidebar #sessions li").wait_for()
    assert await page.locator("#sidebar").is_visible()
    await page.keyboard.press("Escape")
    await page.wait_for_function("() => !document.body.classList.contains('drawer-open')")


async def test_a_stopped_answer_keeps_its_citation_links_and_sources(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news"})]),
        Turn(text="The big story is a new open model [1]." + " word" * 400, chunk_interval_s=0.04),
    )
    page, stopped = await stopped_midway(browser, server, "What is new?", shown=60)

    for _ in range(2):  # as it stopped, and as saved (after a reload)
        cite = stopped.locator("a.cite")
        assert await cite.count() == 1 and await cite.get_attribute("href") == "https://news.example/ai"
        sources = stopped.locator(".footer .sources a")
        assert [await a.text_content() for a in await sources.all()] == ["AI News Daily"]  # only the one it cites
        assert "Stopped" in await stopped.locator(".status").text_content()
        await page.reload()
        await stopped.wait_for()


def long_result_toolset() -> Toolset:
    async def lines(params: Query) -> ToolResult:
        text = "\n".join(f"line {n} about {params.query}" for n in range(80))
        return ToolResult.success(text, sources=[Source(title="A page", url="https://page.example/")], brief="80 lines")

    return Toolset([define_tool(name="web_search", description="Search the web", input_schema=Query, execute=lines)])


SHOWN = """(selector) => {
  const node = document.querySelector(selector);
  const box = node.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + 4, box.top + Math.min(box.height, 40) / 2);
  return node.contains(hit);
}"""
"""Whether the top of `selector` is on screen and not hidden by a box that scrolls or by anything over it."""


async def test_at_390_px_without_a_model_the_banner_is_one_line_and_dismissable_and_a_tool_result_in_view(
    browser: Browser, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(with_llm=False), toolset=long_result_toolset())
    page = await browser.page(viewport=NARROW)
    await page.goto(server.url("/"))

    banner = page.locator("#banner")
    await banner.locator(".connect").wait_for()
    box = await banner.bounding_box()
    assert box is not None and box["height"] < 100, box  # the headline, and how to connect folded
    assert await banner.locator("details").get_attribute("open") is None
    await banner.locator("summary").click()
    assert "WEBLENS_LLM_MODEL=" in await banner.locator("details").text_content()
    empty = page.locator("#empty")
    assert "Chat is off" in await empty.text_content() and "Tools panel" in await empty.text_content()
    await screenshot(page, "no-model-empty")

    await page.set_viewport_size(NARROW)
    await page.fill("#tool-field-query", "phones")
    await page.click("#tool-run")
    await page.locator("#tool-result .tool-text").wait_for()
    assert await page.evaluate(SHOWN, "#tool-result .tool-ok")  # the result's first lines are in view
    assert await page.evaluate(SHOWN, "#tool-result .tool-text")
    await page.screenshot(path=str(SCREENSHOTS / "no-model-tool-result-390.png"))

    await banner.locator(".dismiss").click()
    assert await banner.is_hidden()
    await page.reload()
    await page.locator("#tool-name option").first.wait_for(state="attached")
    assert await banner.is_hidden()  # dismissed stays dismissed in this browser


async def test_at_390_px_the_empty_chat_names_the_model_and_the_copy_button_leaves_the_code_alone(
    browser: Browser, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    llm.add(Turn(text="Run this:\n\n```\nweblens serve --host 127.0.0.1 --port 8765 && open the page\n```\n"))
    page = await browser.page(viewport=NARROW)
    await page.goto(server.url("/"))

    await page.locator("#empty h2").wait_for()
    assert await page.locator("#model-name").text_content() == "scripted-model"
    assert await page.locator("#model-name").is_visible()
    assert "scripted-model answers" in await page.locator("#empty").text_content()
    await page.screenshot(path=str(SCREENSHOTS / "empty-390.png"))

    await send(page, "how do I start it?")
    await page.locator(".msg.assistant.finished").wait_for()
    assert await page.locator("#empty").is_hidden()
    copy = await page.locator(".msg pre .copy").bounding_box()
    code = await page.locator(".msg pre code").bounding_box()
    assert copy is not None and code is not None
    assert copy["y"] + copy["height"] <= code["y"], (copy, code)  # above the code, not over it
    await page.screenshot(path=str(SCREENSHOTS / "code-390.png"))
