"""The web page in headless Chromium (Debian's `chromium`, driven by Playwright).

Skipped when /usr/bin/chromium or the playwright package is absent; CI installs the
browser with `apt-get install -y chromium`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from weblens import Settings
from weblens.testing.llm import ScriptedLLM, Turn, call

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
WAIT_MS = 10_000

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
playwright_api = pytest.importorskip("playwright.async_api")


@pytest.fixture
async def page() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            tab = await browser.new_page()
            tab.set_default_timeout(WAIT_MS)
            yield tab
        finally:
            await browser.close()


async def test_send_see_it_stream_see_links_reload_see_the_session(
    page: Any, llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    answer = "The big AI story today <img src=x onerror=alert(1)> is a new open model [1]. " * 2
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news today"})]),
        Turn(text=answer, chunk_interval_s=0.04),
    )

    await page.goto(server.url("/"))
    await page.fill("#input", "今天 AI 领域有什么新闻？")
    await page.press("#input", "Enter")

    tool_line = page.locator(".msg.assistant .tools li").first
    await tool_line.wait_for()
    assert "web_search: AI news today" in await tool_line.text_content()
    # streaming: part of the text is on the page before the answer is finished
    partial = await page.wait_for_function(
        "(full) => { const m = document.querySelector('.msg.assistant.streaming .text');"
        " return m && m.textContent.length > 0 && m.textContent.length < full && m.textContent; }",
        arg=len(answer),
    )
    assert answer.startswith(await partial.json_value())

    await page.locator(".msg.assistant.finished").wait_for()
    assert await page.locator(".msg.assistant .text").text_content() == answer
    assert await page.locator("img").count() == 0  # model text never becomes HTML
    assert "✓ 2 results" in await tool_line.text_content()
    links = page.locator(".msg.assistant .sources a")
    assert await links.count() == 1
    assert await links.first.get_attribute("href") == "https://news.example/ai"
    assert await links.first.text_content() == "AI News Daily"
    assert await links.first.get_attribute("rel") == "noopener noreferrer"
    await page.locator("#sessions li").first.wait_for()

    await page.reload()

    await page.locator(".msg.user").wait_for()
    assert await page.locator(".msg.user .text").text_content() == "今天 AI 领域有什么新闻？"
    assert await page.locator(".msg.assistant .text").text_content() == answer
    assert await page.locator(".msg.assistant .sources a").first.get_attribute("href") == "https://news.example/ai"
    titles = await page.locator("#sessions li .name").all_text_contents()
    assert titles == ["今天 AI 领域有什么新闻？"]
    assert await page.locator("#sessions li.active").count() == 1


async def test_without_a_model_the_page_says_what_to_set(
    page: Any, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(with_llm=False))

    await page.goto(server.url("/"))

    banner = page.locator("#banner")
    await banner.wait_for()
    assert "WEBLENS_LLM_BASE_URL" in await banner.text_content()
    await page.fill("#input", "hello")
    await page.press("#input", "Enter")
    error = page.locator(".msg.assistant .error")
    await error.wait_for()
    assert "WEBLENS_LLM_MODEL" in await error.text_content()
