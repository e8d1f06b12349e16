"""weblens' stand-ins for trafilatura's slowest XPath expressions (`weblens.fetch.fast_xpaths`)
against the expressions themselves, on every page of both benchmark corpora.

Per expression: seconds for trafilatura's XPath and for the stand-in over all pages (each page as
weblens parses it and as trafilatura converts it, the two trees the expressions run on), medians
of the rounds, the speed-up, and the pages where the two select different elements (must be 0).
Then weblens' whole extraction with the stand-ins and with trafilatura's own expressions
(`fast_xpaths.stock`), interleaved page by page: pages/s of each and the pages whose markdown
differs (must be 0).

    .venv/bin/python bench/fast_xpaths.py [--rounds 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from trafilatura.htmlprocessing import convert_tags
from trafilatura.settings import Extractor

from weblens.errors import BlockedError
from weblens.fetch import fast_xpaths
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


def body(raw: bytes) -> str:
    try:
        return extract(raw, "text/html; charset=utf-8").content
    except BlockedError:
        return "(blocked)"


def extraction(bodies: list[bytes], rounds: int) -> None:
    seconds: dict[str, list[float]] = {"stand-ins": [0.0] * rounds, "trafilatura's XPath": [0.0] * rounds}
    differ = 0
    for round_ in range(rounds):
        for raw in bodies:
            order = [False, True] if round_ % 2 == 0 else [True, False]
            outputs = {}
            for use_stock in order:
                started = time.perf_counter()
                if use_stock:
                    with fast_xpaths.stock():
                        outputs[use_stock] = body(raw)
                else:
                    outputs[use_stock] = body(raw)
                seconds["trafilatura's XPath" if use_stock else "stand-ins"][round_] += time.perf_counter() - started
            differ += round_ == 0 and outputs[True] != outputs[False]
    rates = {name: len(bodies) / statistics.median(times) for name, times in seconds.items()}
    base = rates["trafilatura's XPath"]
    for name, rate in rates.items():
        print(f"weblens extraction, {name:<20} {rate:7.1f} pages/s {rate / base:5.2f}x")
    print(f"pages whose markdown differs: {differ} of {len(bodies)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the folder holding both corpora")
    args = parser.parse_args()
    in_use = fast_xpaths.install()
    print(f"stand-ins in use: {len(in_use)} of {len(fast_xpaths.PORTS)}")
    for corpus in CORPORA:
        data = args.data / corpus
        if not data.is_dir():
            print(f"skipped {corpus}: the benchmark data is not at {data} (pass --data DIR)")
            continue
        bodies = pages(data)
        print(f"\n== {corpus}: {len(bodies)} pages, {args.rounds} rounds (medians)")
        expressions(bodies, args.rounds)
        extraction(bodies, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
