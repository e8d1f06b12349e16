"""What the link guard costs an answer: CPU per streamed answer, beside rendering it once.

The guard parses each paragraph that could hold a link (CommonMark, with everything shown
before it) and resolves its destinations per WHATWG; paragraphs of plain prose and citation
markers pass without a parse. Answers of about 8 KB stream in 4-character deltas, as models do.

    python bench/link_guard.py [--runs 7] [--kb 8]

Prints, per kind of answer: median milliseconds for the guard over the whole stream, for one
markdown-it render of the finished answer (what any renderer spends once), and for scanning it
with `find_urls` (what a text scan costs), with the ratio guard / render.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from markdown_it import MarkdownIt

from weblens.agent.links import LinkGuard, link_key
from weblens.urls import find_urls

SOURCE = "https://news.example/story"
SENTENCE = "The harbour council approved the new sea wall after a long debate about its cost [1]. "


def prose(size: int) -> str:
    paragraph = SENTENCE * 5 + "\n\n"
    return paragraph * (size // len(paragraph) + 1)


def linked(size: int) -> str:
    paragraph = (
        SENTENCE * 3 + f"See [the report]({SOURCE}) and [a made-up one](https:/evil.example/x), "
        "or <https://made-up.example/y> [2].\n\n"
    )
    return paragraph * (size // len(paragraph) + 1)


def one_paragraph(size: int) -> str:
    """The worst case: a single paragraph that holds a link near its start, re-checked as one."""
    return f"See [the report]({SOURCE}). " + SENTENCE * (size // len(SENTENCE))


def guard_ms(text: str) -> float:
    allowed = {link_key(SOURCE)}
    guard = LinkGuard(lambda url: link_key(url) in allowed)
    started = time.perf_counter()
    for i in range(0, len(text), 4):
        guard.feed(text[i : i + 4])
    guard.flush()
    return (time.perf_counter() - started) * 1000


def render_ms(text: str) -> float:
    renderer = MarkdownIt("commonmark")
    started = time.perf_counter()
    renderer.render(text)
    return (time.perf_counter() - started) * 1000


def scan_ms(text: str) -> float:
    started = time.perf_counter()
    find_urls(text, bare=True)
    return (time.perf_counter() - started) * 1000


def median(measure: Callable[[str], float], text: str, runs: int) -> float:
    return statistics.median(measure(text) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--kb", type=int, default=8)
    args = parser.parse_args()
    size = args.kb * 1024
    title = f"answer ({args.kb} KB, 4-char deltas)"
    print(f"{title:<38} {'guard ms':>9} {'render ms':>10} {'scan ms':>8} {'guard/render':>13}")
    for name, make in (
        ("prose with citations", prose),
        ("a link per paragraph", linked),
        ("one long paragraph", one_paragraph),
    ):
        text = make(size)[:size]
        guard, render, scan = (median(m, text, args.runs) for m in (guard_ms, render_ms, scan_ms))
        print(f"{name:<38} {guard:>9.1f} {render:>10.1f} {scan:>8.2f} {guard / render:>12.1f}x")


if __name__ == "__main__":
    main()
