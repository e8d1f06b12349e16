"""Hostile and huge HTML through weblens' extraction: does its own code grow faster than the page?

Each shape is a generated page built at 1x, 4x and 16x its base size (16x is the size named
beside it: 100 000 list items, one 20 MB text node, a 5 000-column table, ...). For each,
`weblens.fetch.extract.extract` (the whole path a fetch takes, from bytes to markdown) is
timed beside `trafilatura.extract` on the same page in the same process (fast pass, tables
kept, markdown: the call weblens makes first), medians of `--rounds`. Linear work shows as
~4x the time per 4x the size; weblens' own work is what the weblens column holds beyond
trafilatura's. A reader past `--limit` seconds is not timed at larger scales (trafilatura itself
is superlinear on some shapes: 12 500 inline tags holding commas take it 1.7 s, 50 000 take 29 s).

    .venv/bin/python bench/hostile_html.py [--rounds 3] [--scales 1,4,16] [--shape NAME ...]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time
from collections.abc import Callable

import trafilatura

from weblens.errors import BlockedError
from weblens.fetch.extract import extract


def _page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>Hostile</title>{head}</head><body>{body}</body></html>"


def _sentence(i: int) -> str:
    return f"Paragraph {i} tells the reader something about item {i} in plain words here."


def list_items(scale: int) -> str:  # 100 000 items at 16x
    return _page("<ul>" + "".join(f"<li>item {i} words here</li>" for i in range(6_250 * scale)) + "</ul>")


def text_node(scale: int) -> str:  # one 20 MB text node at 16x
    return _page("<p>" + "word and more " * (1_250_000 * scale // 14) + "</p>")


def wide_table(scale: int) -> str:  # 5 000 columns at 16x
    columns = 312 * scale
    rows = "".join("<tr>" + "".join(f"<td>r{r}c{c}</td>" for c in range(columns)) + "</tr>" for r in range(4))
    return _page(f"<h1>Table</h1><p>{_sentence(0)}</p><table>{rows}</table>")


def headings(scale: int) -> str:  # 50 000 headings at 16x
    return _page("".join(f"<h2>Heading {i}</h2><p>{_sentence(i)}</p>" for i in range(3_125 * scale)))


def pre_blocks(scale: int) -> str:  # 8 000 one-line <pre> at 16x
    return _page("".join(f"<p>{_sentence(i)}</p><pre>run --step {i}</pre>" for i in range(500 * scale)))


def unclosed_backticks(scale: int) -> str:  # 40 000 paragraphs with an unclosed ` at 16x
    return _page("".join(f"<p>`{_sentence(i)} <sup>{i}</sup> see ``` and</p>" for i in range(2_500 * scale)))


def pipe_line(scale: int) -> str:  # one 8 MB line of | cells at 16x
    return _page("<p>" + "| a " * (125_000 * scale) + "</p>")


def nested_tables(scale: int) -> str:  # 250 nested tables, each level 16 * scale cells before the next
    cells = "".join(f"<td>cell {c}</td>" for c in range(16 * scale))
    return _page(("<table><tr>" + cells + "<td>") * 250 + "deep" + "</td></tr></table>" * 250)


def jsonld_posts(scale: int) -> str:  # JSON-LD with 100 000 posts at 16x
    posts = [{"@type": "Comment", "text": _sentence(i), "author": {"name": f"user{i}"}} for i in range(6_250 * scale)]
    ld = json.dumps({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "comment": posts})
    prose = "".join(f"<p>{_sentence(i)}</p>" for i in range(200))
    return _page(prose, f'<script type="application/ld+json">{ld}</script>')


def hydration_blob(scale: int) -> str:  # an empty shell with ~50 MB of JSON at 16x (in 4.5 MB scripts)
    blob = json.dumps({"items": [_sentence(i) for i in range(50_000)]})
    scripts = "".join(f'<script type="application/json">{blob}</script>' for _ in range(scale))
    return _page('<div id="__next"></div>' + scripts)


def repeated_blocks(scale: int) -> str:  # 16 000 identical cards between kept prose at 16x (the gap fill)
    cards = "<ul><li>Same card text for every one of them</li></ul>" * (1_000 * scale)
    prose = "".join(f"<p>{_sentence(i)} {_sentence(i + 1)}</p>" for i in range(40))
    return _page(f"<article>{prose}{cards}{prose}</article>")


def under_cap(scale: int) -> str:  # ~29 990 elements (just under html.py's cap), each element a text block
    per = 29_990 * scale // 16
    return _page("".join(f"<div><span>{_sentence(i)}</span></div>" for i in range(per // 2)))


def glued_punctuation(scale: int) -> str:  # 200 000 runs of 20 commas in inline tags after one word at 16x
    return _page("<p>word" + "<b></b>,,,,,,,,,,,,,,,,,,,," * (12_500 * scale) + "</p>")


def main_elements(scale: int) -> str:  # 16 000 <main> elements at 16x
    return _page("".join(f"<main><p>{_sentence(i)}</p></main>" for i in range(1_000 * scale)))


def nested_posts(scale: int) -> str:  # 120 nested microdata comments around 200 000 elements at 16x
    post = '<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author">a</span><div itemprop="text">'
    inner = "".join(f"<i>{i}</i> " for i in range(12_500 * scale))
    return _page(post * 120 + inner + "</div></div>" * 120)


def render_flood(scale: int) -> str:  # a short page with a script and a 40 000-attribute tag at 16x
    flood = " ".join(f"a{i}=x" for i in range(2_500 * scale))
    nav = "<nav>" + " ".join(f"menu{i}" for i in range(35)) + "</nav>"
    return _page(f"{nav}<div {flood}>hi</div><script>var x = 1;</script>")


def named_boxes(scale: int) -> str:  # a service page under one div named "modal-open" (sections.py's boxes)
    sections = "".join(f"<h2>Section {i}</h2><p>{_sentence(i)} {_sentence(i + 1)}</p>" for i in range(750 * scale))
    return _page(f'<div class="modal-open"><article><p>{_sentence(0)}</p></article>{sections}</div>')


def _post(kind: str, body: str) -> str:
    return (
        f'<div itemscope itemtype="https://schema.org/{kind}"><span itemprop="author">a</span>'
        f'<div itemprop="text">{body}</div></div>'
    )


def _thread(body: str) -> str:
    return _page(_post("Question", body) + _post("Answer", "a short answer here"))


def nested_emphasis(scale: int) -> str:  # a post's 4 MB of words inside 240 nested <b> at 16x
    return _thread("<b>" * 240 + "word and more " * (18_750 * scale) + "</b>" * 240)


def post_nested_tables(scale: int) -> str:  # a post's 4 MB of words inside 50 nested tables at 16x
    cells = "<table><tr><td>cell</td><td>"
    return _thread(cells * 50 + "word and more " * (18_750 * scale) + "</td></tr></table>" * 50)


def post_nested_quotes(scale: int) -> str:  # 200 nested quotes around 200 000 lines at 16x
    return _thread("<blockquote>" * 200 + "line of words<br>" * (12_500 * scale) + "</blockquote>" * 200)


def deep_hydration(scale: int) -> str:  # an empty shell whose JSON holds 1.6 M short strings 60 levels deep at 16x
    blob = "[" * 60 + json.dumps(["x"] * (100_000 * scale))[1:-1] + "]" * 60
    return _page('<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">' + blob + "</script>")


def product_boxes(scale: int) -> str:  # a product page of 29 000 headings under a named box at 16x (sections merge)
    sentence = "Our team explains each of the services we offer in clear and plain words for you, every day"
    ld = '<script type="application/ld+json">{"@type": "Product", "name": "Thing"}</script>'
    article = "<article>" + "".join(f"<p>{sentence} {i}.</p>" for i in range(100)) + "</article>"
    headings = "".join(f"<h2>h{i}</h2>" for i in range(29_000 * scale // 16))
    return _page(f'<div class="modal-open">{article}{headings}</div>', ld)


def phone_only(scale: int) -> str:  # 28 000 phone-only spans, each with a tail, under one div at 16x (responsive.py)
    return _page("<div>start" + "<span class='d-lg-none'>menu</span>tail " * (28_000 * scale // 16) + "</div>")


def unseen_with_tails(scale: int) -> str:  # 28 000 inline scripts, each with a tail, under one div at 16x
    return _page("<div>start" + "<script>var x = 1;</script>tail " * (28_000 * scale // 16) + "</div>")


def navigation_roles(scale: int) -> str:  # 50 000 spans marked role=navigation, each with a tail, at 16x (page text)
    return _page("<div>start" + "<span role='navigation'>menu</span>tail " * (3_125 * scale) + "</div>")


def past_closing_tags(scale: int) -> str:  # 20 000 paragraphs after `</body></html>`, each a top-level element, at 16x
    return _page("<p>start</p>" + "</div></p></span></td></html></body><p>stray</p>" * (1_250 * scale))


def long_paragraph(scale: int) -> str:  # one paragraph of 1.8 MB of prose with `*`, `_` and `[1]` in it at 16x
    return _page("<p>" + " ".join(f"{_sentence(i)} See [{i}] on *snake_case*." for i in range(1_000 * scale)) + "</p>")


def concatenated_documents(scale: int) -> str:  # 3 200 whole documents one after another at 16x
    return "".join(f"<html><body><p>{_sentence(i)}</p></body></html>" for i in range(200 * scale))


SHAPES: dict[str, Callable[[int], str]] = {
    "list items": list_items,
    "one text node": text_node,
    "wide table": wide_table,
    "headings": headings,
    "pre blocks": pre_blocks,
    "unclosed backticks": unclosed_backticks,
    "pipe line": pipe_line,
    "nested tables": nested_tables,
    "JSON-LD posts": jsonld_posts,
    "hydration blob": hydration_blob,
    "repeated blocks": repeated_blocks,
    "under the element cap": under_cap,
    "glued punctuation": glued_punctuation,
    "main elements": main_elements,
    "nested posts": nested_posts,
    "render check flood": render_flood,
    "named boxes": named_boxes,
    "post: nested emphasis": nested_emphasis,
    "post: nested tables": post_nested_tables,
    "post: nested quotes": post_nested_quotes,
    "deep hydration JSON": deep_hydration,
    "product under a box": product_boxes,
    "phone-only spans": phone_only,
    "scripts with tails": unseen_with_tails,
    "navigation roles": navigation_roles,
    "past closing tags": past_closing_tags,
    "one long paragraph": long_paragraph,
    "concatenated documents": concatenated_documents,
}


def _weblens(raw: bytes) -> str:
    try:
        return extract(raw, "text/html; charset=utf-8").extractor
    except BlockedError:
        return "blocked"


def _trafilatura(html: str) -> None:
    trafilatura.extract(html, fast=True, include_comments=False, include_tables=True, output_format="markdown")


def _median(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scales", default="1,4,16")
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="only these shapes")
    parser.add_argument(
        "--limit", type=float, default=20.0, help="seconds past which a reader is not timed at larger scales"
    )
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    print(f"{'shape':<24}{'scale':>6}{'MB':>8}{'weblens s':>11}{'trafilatura s':>15}{'ratio':>7}  extractor")
    for name in args.shape or list(SHAPES):
        baseline = True  # trafilatura is timed until it takes past the limit itself (it is superlinear on some shapes)
        for scale in scales:
            html = SHAPES[name](scale)
            raw = html.encode()
            extractor = _weblens(raw)  # once untimed: imports and first-use work stay out of the figures
            ours = _median(functools.partial(_weblens, raw), args.rounds)
            theirs = _median(functools.partial(_trafilatura, html), args.rounds) if baseline else None
            shown = f"{theirs:>15.3f}{ours / theirs:>7.2f}" if theirs else f"{'(skipped)':>15}{'':>7}"
            print(f"{name:<24}{scale:>5}x{len(raw) / 1e6:>8.2f}{ours:>11.3f}{shown}  {extractor}", flush=True)
            baseline = theirs is not None and theirs <= args.limit
            if ours > args.limit:
                print(f"{name:<24} past {args.limit:.0f} s: larger scales skipped", flush=True)
                break


if __name__ == "__main__":
    main()
