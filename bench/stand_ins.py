"""weblens' stand-ins inside trafilatura against what they stand in for, on every page of both
benchmark corpora: the Python for its slowest XPath expressions (`weblens.fetch.fast_xpaths`),
the paragraph maker for its jusText second opinion (`weblens.fetch.fast_justext`), its tree
preparation without the copy a fast pass never reads (`weblens.fetch.fast_prepare`), its
measure of a page's whole text without a copy of the page (`weblens.fetch.fast_html2txt`), its
link-density pruning that tests only the elements holding a link (`weblens.fetch.fast_link_density`)
its full cascade started from the fast pass's main extraction (`weblens.fetch.fast_second_opinion`) and
its markdown escaping of text that holds nothing to escape (`weblens.fetch.fast_escape`) and its removal of
unprintable characters from a text whose only unprintable characters are whitespace (`weblens.fetch.fast_printable`).

Per expression: seconds for trafilatura's XPath and for the stand-in over all pages (each page as
weblens parses it and as trafilatura converts it, the two trees the expressions run on), medians
of the rounds, the speed-up, and the pages where the two select different elements (must be 0).
jusText: seconds for its paragraph maker and classifier and for the stand-in's over all pages (each
page as trafilatura cleans it for jusText), and the pages whose paragraphs, classes or paths differ
(must be 0). The page measure: seconds for trafilatura's `html2txt` and for the stand-in over all
pages (each page as weblens parses it, and as trafilatura converts it) and the pages whose text differs
(must be 0). Then weblens' whole extraction with all stand-ins, with each put aside (`stock`) and
with none, interleaved page by page (each setup first on a page as often as the others, the XPath
stand-ins' remembered answers dropped before each read): pages/s of each and the pages whose
markdown differs from the one without stand-ins (must be 0).

    .venv/bin/python bench/stand_ins.py [--rounds 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
from trafilatura.baseline import basic_cleaning, html2txt
from trafilatura.external import jt_stoplist_init
from trafilatura.htmlprocessing import convert_tags
from trafilatura.settings import Extractor

from weblens.errors import BlockedError
from weblens.fetch import (
    fast_escape,
    fast_html2txt,
    fast_justext,
    fast_link_density,
    fast_prepare,
    fast_printable,
    fast_second_opinion,
    fast_xpaths,
)
from weblens.fetch.extract import extract
from weblens.fetch.html import parse_html

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = ("article-extraction", "web-extraction-2026")
OPTIONS = Extractor(output_format="markdown", tables=True)


def pages(data: Path) -> list[bytes]:
    return [gzip.decompress(path.read_bytes()) for path in sorted(data.glob("html/*.html.gz"))]


def trees(raw: bytes) -> list[Any]:
    html = raw.decode("utf-8", "replace")
    tree = parse_html(html)
    return [] if tree is None else [tree, convert_tags(parse_html(html), OPTIONS)]


def expressions(bodies: list[bytes], rounds: int) -> None:
    timed: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"xpath": [0.0] * rounds, "port": [0.0] * rounds})
    differ: dict[str, int] = defaultdict(int)
    for raw in bodies:
        for tree in trees(raw):
            for port, original, replacement in fast_xpaths.pairs():
                name = f"{port.name}[{port.index}]" if port.index is not None else port.name
                for round_ in range(rounds):
                    started = time.perf_counter()
                    expected = original(tree)
                    timed[name]["xpath"][round_] += time.perf_counter() - started
                    fast_xpaths.forget()  # each call as a first read of the page
                    started = time.perf_counter()
                    found = replacement(tree)
                    timed[name]["port"][round_] += time.perf_counter() - started
                differ[name] += found != expected
    print(f"{'expression':<36} {'XPath s':>8} {'stand-in s':>10} {'speed-up':>8} {'differ':>6}")
    totals = [0.0, 0.0]
    for name, times in timed.items():
        xpath, port = statistics.median(times["xpath"]), statistics.median(times["port"])
        totals[0] += xpath
        totals[1] += port
        print(f"{name:<36} {xpath:8.2f} {port:10.2f} {xpath / port:7.1f}x {differ[name]:6d}")
    print(f"{'all':<36} {totals[0]:8.2f} {totals[1]:10.2f} {totals[0] / totals[1]:7.1f}x {sum(differ.values()):6d}")


def _classified(maker: Any, classify: Callable[..., None], tree: Any, stoplist: Any) -> list[Any]:
    """jusText's paragraphs of `tree` as trafilatura makes and classifies them."""
    made = maker.make_paragraphs(tree)
    classify(made, stoplist, 50, 150, 0.1, 0.2, 0.25, True)
    revise_paragraph_classification(made, 150)
    return list(made)


def _fields(made: list[Any]) -> list[tuple[Any, ...]]:
    """Every field of the paragraphs that trafilatura or jusText's callers read (read after the clock stops:
    the stand-in makes a paragraph's paths only when they are read, and trafilatura never reads them)."""
    return [(p.text, p.class_type, p.cf_class, p.dom_path, p.xpath, p.tags_count, p.chars_count_in_links) for p in made]


def paragraphs(bodies: list[bytes], rounds: int) -> None:
    stoplist = jt_stoplist_init()
    sides = {"jusText": (ParagraphMaker, classify_paragraphs), "stand-in": (fast_justext.FastParagraphMaker,
             fast_justext.classify)}  # fmt: skip
    timed = {side: [0.0] * rounds for side in sides}
    differ = 0
    for raw in bodies:
        tree = parse_html(raw.decode("utf-8", "replace"))
        if tree is None:
            continue
        cleaned = basic_cleaning(tree)
        found = {}
        for round_ in range(rounds):
            for side, (maker, classify) in sides.items():
                started = time.perf_counter()
                made = _classified(maker, classify, cleaned, stoplist)
                timed[side][round_] += time.perf_counter() - started
                found[side] = made
        differ += _fields(found["jusText"]) != _fields(found["stand-in"])
    own, stand_in = statistics.median(timed["jusText"]), statistics.median(timed["stand-in"])
    print(f"\n{'jusText, every page':<36} {'jusText s':>8} {'stand-in s':>10} {'speed-up':>8} {'differ':>6}")
    print(f"{'paragraphs made and classified':<36} {own:8.2f} {stand_in:10.2f} {own / stand_in:7.1f}x {differ:6d}")


def page_texts(bodies: list[bytes], rounds: int) -> None:
    sides = {"html2txt": html2txt, "stand-in": fast_html2txt.page_text}
    timed = {side: [0.0] * rounds for side in sides}
    differ = 0
    for raw in bodies:
        for tree in trees(raw):
            found = {}
            for round_ in range(rounds):
                for side, read in sides.items():
                    started = time.perf_counter()
                    found[side] = read(tree)
                    timed[side][round_] += time.perf_counter() - started
            differ += found["html2txt"] != found["stand-in"]
    own, stand_in = statistics.median(timed["html2txt"]), statistics.median(timed["stand-in"])
    print(f"\n{'page measure, every page':<36} {'html2txt s':>8} {'stand-in s':>10} {'speed-up':>8} {'differ':>6}")
    print(f"{'the text of the whole page':<36} {own:8.2f} {stand_in:10.2f} {own / stand_in:7.1f}x {differ:6d}")


def body(raw: bytes) -> str:
    try:
        return extract(raw, "text/html; charset=utf-8").content
    except BlockedError:
        return "(blocked)"


# What is put aside in each configuration, and the one the others are measured against (none in use).
SETUPS: dict[str, tuple[Callable[[], AbstractContextManager[None]], ...]] = {
    "all stand-ins": (),
    "XPath put aside": (fast_xpaths.stock,),
    "jusText put aside": (fast_justext.stock,),
    "preparation put aside": (fast_prepare.stock,),
    "page measure put aside": (fast_html2txt.stock,),
    "link density put aside": (fast_link_density.stock,),
    "second opinion put aside": (fast_second_opinion.stock,),
    "escaping put aside": (fast_escape.stock,),
    "printable put aside": (fast_printable.stock,),
    "none": (
        fast_escape.stock,
        fast_printable.stock,
        fast_xpaths.stock,
        fast_justext.stock,
        fast_prepare.stock,
        fast_html2txt.stock,
        fast_link_density.stock,
        fast_second_opinion.stock,
    ),
}
BASE = "none"


def extraction(bodies: list[bytes], rounds: int) -> None:
    seconds = {name: [0.0] * rounds for name in SETUPS}
    differ = dict.fromkeys(SETUPS, 0)
    names = list(SETUPS)
    for round_ in range(rounds):
        for index, raw in enumerate(bodies):
            outputs = {}
            shift = (index + round_) % len(names)  # each setup reads a page first as often as the others
            for name in names[shift:] + names[:shift]:
                fast_xpaths.forget()  # the same page read again would find its answers remembered
                with contextlib.ExitStack() as stack:
                    for put_aside in SETUPS[name]:
                        stack.enter_context(put_aside())
                    started = time.perf_counter()
                    outputs[name] = body(raw)
                    seconds[name][round_] += time.perf_counter() - started
            if round_ == 0:
                for name in SETUPS:
                    differ[name] += outputs[name] != outputs[BASE]
    rates = {name: len(bodies) / statistics.median(times) for name, times in seconds.items()}
    print(f"\n{'weblens extraction':<22} {'pages/s':>8} {'speed':>6} {'pages that differ':>18}")
    for name, rate in rates.items():
        print(f"{name:<22} {rate:8.1f} {rate / rates[BASE]:5.2f}x {differ[name]:18d}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the folder holding both corpora")
    args = parser.parse_args()
    in_use = fast_xpaths.install()
    print(f"XPath stand-ins in use: {len(in_use)} of {len(fast_xpaths.PORTS)}")
    justext = "yes" if fast_justext.install() else "no (jusText differs from the one it was written against)"
    print(f"jusText stand-in in use: {justext}")
    prepare = "yes" if fast_prepare.install() else "no (trafilatura differs from the one it was written against)"
    print(f"preparation stand-in in use: {prepare}")
    measure = "yes" if fast_html2txt.install() else "no (trafilatura differs from the one it was written against)"
    print(f"page measure stand-in in use: {measure}")
    density = "yes" if fast_link_density.install() else "no (trafilatura differs from the one it was written against)"
    print(f"link density stand-in in use: {density}")
    second = "yes" if fast_second_opinion.install() else "no (trafilatura differs from the one it was written against)"
    print(f"second-opinion stand-in in use: {second}")
    for corpus in CORPORA:
        data = args.data / corpus
        if not data.is_dir():
            print(f"skipped {corpus}: the benchmark data is not at {data} (pass --data DIR)")
            continue
        bodies = pages(data)
        print(f"\n== {corpus}: {len(bodies)} pages, {args.rounds} rounds (medians)")
        expressions(bodies, args.rounds)
        paragraphs(bodies, args.rounds)
        page_texts(bodies, args.rounds)
        extraction(bodies, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
