"""Which Python URL resolver agrees with a browser, and what it costs: the link guard's choice.

Resolves link destinations a model may write (the link-guard payloads and ordinary links)
against a page's address with Chromium's own `new URL(href, base)` (Debian chromium through
Playwright) and with three Python candidates: `ada-url` (WHATWG URL, C++), `urllib.parse.urljoin`
and `yarl.URL.join`. Prints how many each resolves exactly as Chromium does, and microseconds per
resolution (median of several runs).

    python bench/url_resolution.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import urllib.parse
from collections.abc import Callable

import ada_url
import yarl
from playwright.async_api import async_playwright

BASES = ("http://127.0.0.1:8765/", "https://chat.example/c/1")
DESTINATIONS = (
    "https:/evil.example/c", "https:evil.example/d", "https://evil.example/e", "//evil.example/g",
    "https:\\\\evil.example\\x", "https://evil.exa\tmple/t", "https://evil.example/\nn", "  https://evil.example/s  ",
    "HTTPS://EVIL.EXAMPLE:443/p", "https://straße.example/", "https://ＥＸ.example/", "https://evil.example/%2e%2e/x",
    "https://evil.example/a/../b", "/relative", "relative", "?q=1", "#frag", "https://user:pw@evil.example/",
    "http:evil.example/h", "https://evil.example/a b", "https://[::1]/", "https://0x7f.1/", "javascript:alert(1)",
    "https://news.example/ai?utm_source=x", "https://news.example/caf\u00e9",
)  # fmt: skip


def with_ada(href: str, base: str) -> str:
    try:
        return str(ada_url.URL(href, base).href)
    except ValueError:
        return "<error>"


def with_urllib(href: str, base: str) -> str:
    try:
        return urllib.parse.urljoin(base, href)
    except ValueError:
        return "<error>"


def with_yarl(href: str, base: str) -> str:
    try:
        return str(yarl.URL(base).join(yarl.URL(href)))
    except ValueError:
        return "<error>"


async def browser_resolutions() -> dict[tuple[str, str], str]:
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = await browser.new_page()
        pairs = [[href, base] for base in BASES for href in DESTINATIONS]
        found = await page.evaluate(
            """(pairs) => pairs.map(([href, base]) => { try { return new URL(href, base).href; }
                                                     catch (_) { return "<error>"; } })""",
            pairs,
        )
        await browser.close()
    return {(href, base): result for (href, base), result in zip(pairs, found, strict=True)}


def micros(resolve: Callable[[str, str], str], runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(20):
            for base in BASES:
                for href in DESTINATIONS:
                    resolve(href, base)
        timings.append((time.perf_counter() - started) / (20 * len(BASES) * len(DESTINATIONS)) * 1e6)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    truth = asyncio.run(browser_resolutions())
    total = len(truth)
    print(f"{'resolver':<22} {'as Chromium':>12} {'µs each':>8}")
    for name, resolve in (("ada-url", with_ada), ("urllib.parse.urljoin", with_urllib), ("yarl.URL.join", with_yarl)):
        same = sum(resolve(href, base) == expected for (href, base), expected in truth.items())
        print(f"{name:<22} {f'{same}/{total}':>12} {micros(resolve, args.runs):>8.2f}")
        for (href, base), expected in truth.items():
            got = resolve(href, base)
            if got != expected and name == "ada-url":
                print(f"    differs: {href!r} on {base}: {got!r}, Chromium {expected!r}")


if __name__ == "__main__":
    main()
