"""HTML extraction quality and speed on the article-extraction benchmark.

Runs weblens' extraction (the same `extract()` a fetch uses, from the page's bytes to
the markdown body the model reads) and, in the same run, trafilatura
`extract(html, include_comments=False)` as the baseline (and `fast=True` for
reference), single-threaded. Scores with the benchmark's own `score.py`.
Targets: F1 >= baseline, pages/s >= 1.5x baseline. Prints medians of several rounds.

    .venv/bin/python bench/extraction.py [--rounds 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import trafilatura

from weblens.fetch.extract import extract

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "article-extraction"
CONTENT_TYPE = "text/html; charset=utf-8"


def load_score(data: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("article_score", data / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pages(data: Path) -> dict[str, bytes]:
    """id -> the page's UTF-8 bytes, as a server would send them."""
    files = sorted((data / "html").glob("*.html.gz"))
    return {path.name.split(".")[0]: gzip.decompress(path.read_bytes()) for path in files}


def weblens_body(raw: bytes) -> str:
    return extract(raw, CONTENT_TYPE).content


def baseline(raw: bytes) -> str:
    return trafilatura.extract(raw.decode("utf-8"), include_comments=False) or ""


def baseline_fast(raw: bytes) -> str:
    return trafilatura.extract(raw.decode("utf-8"), include_comments=False, fast=True) or ""


SYSTEMS: dict[str, Callable[[bytes], str]] = {
    "trafilatura (baseline)": baseline,
    "trafilatura fast=True": baseline_fast,
    "weblens": weblens_body,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not (args.data / "ground-truth.json").is_file():
        print(f"skipped: the benchmark data is not at {args.data} (pass --data DIR)")
        return 0
    score = load_score(args.data)
    truth = json.loads((args.data / "ground-truth.json").read_text(encoding="utf-8"))
    pages = load_pages(args.data)
    timings: dict[str, list[float]] = {name: [] for name in SYSTEMS}
    results: dict[str, dict[str, float]] = {}
    for round_ in range(args.rounds):
        for name, run in SYSTEMS.items():  # interleaved, so load on the machine hits all alike
            started = time.perf_counter()
            predictions = {page_id: {"articleBody": run(raw)} for page_id, raw in pages.items()}
            timings[name].append(time.perf_counter() - started)
            if round_ == 0:
                results[name] = score.score(truth, predictions, n_boot=0)
    base_rate = len(pages) / statistics.median(timings["trafilatura (baseline)"])
    print(f"{len(pages)} pages, {args.rounds} rounds, medians, single-threaded")
    print(f"{'system':<24} {'F1':>6} {'prec':>6} {'recall':>6} {'pages/s':>8} {'speed':>6}")
    for name in SYSTEMS:
        rate = len(pages) / statistics.median(timings[name])
        r = results[name]
        print(
            f"{name:<24} {r['f1']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f} {rate:8.1f} {rate / base_rate:5.2f}x"
        )
    ours, base = results["weblens"]["f1"], results["trafilatura (baseline)"]["f1"]
    speed = len(pages) / statistics.median(timings["weblens"]) / base_rate
    print(f"targets: F1 >= baseline: {'met' if ours >= base else 'MISSED'} ({ours:.3f} vs {base:.3f}); "
          f"speed >= 1.5x: {'met' if speed >= 1.5 else 'MISSED'} ({speed:.2f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
