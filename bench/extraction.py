"""HTML extraction quality and speed on both benchmark corpora, weblens against trafilatura.

Runs weblens' extraction (the same `extract()` a fetch uses, from the page's bytes to the
markdown body the model reads) and, in the same run, trafilatura
`extract(html, include_comments=False)` as the baseline (as installed: weblens' stand-ins for
its XPath expressions, jusText's paragraph maker, its tree preparation and its page measure,
`weblens.fetch.fast_xpaths`, `fast_justext`, `fast_prepare`, `fast_html2txt`, `fast_link_density` and
`fast_second_opinion`, and its changes to what trafilatura writes, `orphan_formatting` and `cell_words`, are
put aside for it), single-threaded, interleaved page by page (each page read by
one system right after the other, which goes first alternating by round) so load on the machine hits both
alike. Scores with each corpus' own `score.py` (4-token shingles; precision over non-empty outputs, recall
over all pages).
Every system is given the page's address from the ground truth, as a fetch gives weblens the URL it fetched.

Prints, per corpus: F1 / precision / recall, empty outputs and pages/s (median of the
rounds' summed per-page times) for both, by the wall clock and by the process's CPU time (on a
shared machine the wall clock also counts the time the process waited for a core), and for
rs-trafilatura (PyPI `trafipy`, plain text) when an interpreter that can import it is found
(`--anchor-python`; trafipy ships only CPython 3.12+ wheels, so it runs in its own process,
`bench/trafipy_anchor.py`, asked page by page beside the other two); the pages on which weblens takes more than
twice trafilatura's time (per-page medians) and the worst such ratio; F1 on two folds
(the pages split by a hash of their id: a rule that helps only one fold is fitted, not
learned) and per page type. A bot check that weblens reports as `blocked` counts as an
empty output. Musts: (issue 10) weblens >= trafilatura overall and on every page type
with 20+ pages, on both corpora, and no more empty pages; (issue 23) the same against
rs-trafilatura when it runs, >= 1.5x trafilatura's pages/s on both corpora and no page over 2x
trafilatura's time. Aims: F1 >= 0.97 on the 2019 articles, >= 0.85 on the modern corpus with its
articles >= 0.96.

    .venv/bin/python bench/extraction.py [--rounds 3] [--data DIR] [--corpus web-extraction-2026]
        [--anchor-python /path/to/python3.12 | --no-anchor]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import gzip
import hashlib
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import trafilatura

from weblens.errors import BlockedError
from weblens.fetch import (
    cell_words,
    fast_escape,
    fast_html2txt,
    fast_justext,
    fast_link_density,
    fast_prepare,
    fast_printable,
    fast_second_opinion,
    fast_xpaths,
    orphan_formatting,
    wild_text,
)
from weblens.fetch.extract import extract

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = ("article-extraction", "web-extraction-2026")
CONTENT_TYPE = "text/html; charset=utf-8"
MIN_TYPE_PAGES = 20  # the targets hold for every page type with at least this many pages
BASELINE, OURS, ANCHOR = "trafilatura", "weblens", "rs-trafilatura"
ANCHOR_SCRIPT = Path(__file__).with_name("trafipy_anchor.py")
ANCHOR_MISSING = "rs-trafilatura: not installable here (needs Python 3.12+ with trafipy)"
SLOW_RATIO = 2.0  # no page may take weblens more than this times trafilatura's own time on it
# put aside for trafilatura: its own code, uncounted
STAND_INS = (
    fast_xpaths, fast_justext, fast_prepare, fast_html2txt, fast_link_density, wild_text, fast_second_opinion,
    orphan_formatting, cell_words, fast_escape, fast_printable,
)  # fmt: skip
SLOW_FLOOR_S = 0.05  # the count: pages trafilatura itself spends at least this long on


def load_score(data: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"score_{data.name.replace('-', '_')}", data / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pages(data: Path) -> dict[str, bytes]:
    """id -> the page's UTF-8 bytes, as a server would send them."""
    return {path.name.split(".")[0]: gzip.decompress(path.read_bytes()) for path in sorted(data.glob("html/*.html.gz"))}


def fold(page_id: str) -> int:
    return hashlib.sha1(page_id.encode()).digest()[0] % 2


def baseline(raw: bytes, url: str | None) -> tuple[str, str]:
    """trafilatura as installed: its own XPath expressions, jusText, preparation, page measure and link-density
    pruning, not weblens' stand-ins."""
    with contextlib.ExitStack() as stack:
        for stand_in in STAND_INS:
            stack.enter_context(stand_in.stock())
        return trafilatura.extract(raw.decode("utf-8", "replace"), url=url, include_comments=False) or "", BASELINE


def weblens_body(raw: bytes, url: str | None) -> tuple[str, str]:
    try:
        out = extract(raw, CONTENT_TYPE, url or "")
    except BlockedError:
        return "", "blocked"
    return out.content, out.extractor


SYSTEMS: dict[str, Callable[[bytes, str | None], tuple[str, str]]] = {BASELINE: baseline, OURS: weblens_body}


def _imports_trafipy(python: str) -> bool:
    check = "import sys, trafipy; sys.exit(sys.version_info < (3, 12))"
    try:
        return subprocess.run([python, "-c", check], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_anchor_python() -> str | None:
    """A Python 3.12+ that imports trafipy: on PATH first, then pyenv's versions (newest first)."""
    names = [f"python3.{minor}" for minor in range(20, 11, -1)] + ["python3"]
    candidates = [found for name in names if (found := shutil.which(name))]
    candidates += [str(path) for path in sorted(Path.home().glob(".pyenv/versions/3.*/bin/python3"), reverse=True)]
    return next((python for python in dict.fromkeys(candidates) if _imports_trafipy(python)), None)


class AnchorProcess:
    """rs-trafilatura in its own interpreter (`bench/trafipy_anchor.py`), asked page by page."""

    def __init__(self, python: str, data: Path) -> None:
        self.process = subprocess.Popen(
            [python, str(ANCHOR_SCRIPT), str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.version = json.loads(self._line())["version"]

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{ANCHOR_SCRIPT.name} stopped (exit status {self.process.wait()})")
        return line

    def extract(self, page_id: str, url: str | None) -> tuple[str, float, float]:
        """(rs-trafilatura's text, its seconds, its CPU seconds) on one page, given its address as the others are."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{page_id}\t{url or ''}\n")
        self.process.stdin.flush()
        found = json.loads(self._line())
        return found["text"], found["seconds"], found["cpu_seconds"]

    def __enter__(self) -> AnchorProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def run_corpus(data: Path, rounds: int, anchor: str | None = None) -> dict[str, Any]:
    score = load_score(data)
    truth: dict[str, dict[str, str]] = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    pages = load_pages(data)
    # what is loaded so far lives to the end: out of the collector's way, so that a full collection (which walks
    # every object) does not land on whichever page happens to cross its threshold, round after round
    gc.collect()
    gc.freeze()
    names = [*SYSTEMS, *([ANCHOR] if anchor else [])]
    page_times: dict[str, dict[str, list[float]]] = {name: {page_id: [] for page_id in pages} for name in names}
    cpu_times: dict[str, list[float]] = {name: [0.0] * rounds for name in names}  # per round, summed
    outputs: dict[str, dict[str, tuple[str, str]]] = {name: {} for name in names}
    with contextlib.ExitStack() as stack:
        remote = stack.enter_context(AnchorProcess(anchor, data)) if anchor else None
        for round_ in range(rounds):
            order = list(SYSTEMS) if round_ % 2 == 0 else list(SYSTEMS)[::-1]  # neither always goes first
            for page_id, raw in pages.items():
                for name in order:
                    started, cpu = time.perf_counter(), time.process_time()
                    outputs[name][page_id] = SYSTEMS[name](raw, truth[page_id].get("url"))
                    page_times[name][page_id].append(time.perf_counter() - started)
                    cpu_times[name][round_] += time.process_time() - cpu
                if remote is not None:
                    text, seconds, cpu_seconds = remote.extract(page_id, truth[page_id].get("url"))
                    outputs[ANCHOR][page_id] = (text, ANCHOR)
                    page_times[ANCHOR][page_id].append(seconds)
                    cpu_times[ANCHOR][round_] += cpu_seconds
    timings = {name: [sum(t[r] for t in page_times[name].values()) for r in range(rounds)] for name in names}
    medians = {name: {page_id: statistics.median(t) for page_id, t in page_times[name].items()} for name in names}
    groups: dict[str, list[str]] = {"all": sorted(truth)}
    groups["fold 0"] = [i for i in groups["all"] if fold(i) == 0]
    groups["fold 1"] = [i for i in groups["all"] if fold(i) == 1]
    kinds = Counter(page.get("type", "article") for page in truth.values())
    if len(kinds) > 1:
        for kind, _ in kinds.most_common():
            groups[kind] = [i for i in groups["all"] if truth[i].get("type", "article") == kind]
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for name in names:
        predictions = {i: {"articleBody": body} for i, (body, _) in outputs[name].items()}
        scores[name] = {group: score.score(truth, predictions, ids, n_boot=0) for group, ids in groups.items()}
    rates = {name: len(pages) / statistics.median(times) for name, times in timings.items()}
    cpu_rates = {name: len(pages) / statistics.median(times) for name, times in cpu_times.items()}
    paths = Counter(path for _, path in outputs[OURS].values())
    ratios = {page_id: medians[OURS][page_id] / max(medians[BASELINE][page_id], 1e-9) for page_id in pages}
    slow = sorted((page_id for page_id, ratio in ratios.items() if ratio > SLOW_RATIO), key=ratios.__getitem__)[::-1]
    slow_pages = [(page_id, ratios[page_id], medians[BASELINE][page_id], outputs[OURS][page_id][1]) for page_id in slow]
    return {"pages": len(pages), "groups": groups, "scores": scores, "rates": rates, "cpu_rates": cpu_rates,
            "paths": paths, "names": names, "slow": slow_pages}  # fmt: skip


def report(corpus: str, result: dict[str, Any], rounds: int) -> None:
    """Print one corpus' tables (the checks come after both corpora)."""
    scores, rates, groups, names = result["scores"], result["rates"], result["groups"], result["names"]
    cpu = result["cpu_rates"]
    print(f"\n== {corpus}: {result['pages']} pages, {rounds} rounds (pages/s: median), single-threaded")
    print(f"{'system':<14} {'F1':>6} {'prec':>6} {'recall':>6} {'empty':>6} {'pages/s':>8} {'speed':>6}"
          f" {'CPU pages/s':>12} {'speed':>6}")  # fmt: skip
    for name in names:
        r = scores[name]["all"]
        print(
            f"{name:<14} {r['f1']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f} {r['empty_predictions']:6d} "
            f"{rates[name]:8.1f} {rates[name] / rates[BASELINE]:5.2f}x "
            f"{cpu[name]:12.1f} {cpu[name] / cpu[BASELINE]:5.2f}x"
        )
    anchor_head = f" {ANCHOR:>14}" if ANCHOR in names else ""
    print(f"\n{'F1 by group':<16} {'pages':>5} {BASELINE:>12} {OURS:>8} {'diff':>7}{anchor_head}")
    for group, ids in groups.items():
        base, ours = scores[BASELINE][group]["f1"], scores[OURS][group]["f1"]
        anchor_f1 = f" {scores[ANCHOR][group]['f1']:14.3f}" if ANCHOR in names else ""
        print(f"{group:<16} {len(ids):5d} {base:12.3f} {ours:8.3f} {ours - base:+7.3f}{anchor_f1}")
    print("weblens paths: " + ", ".join(f"{path} {n}" for path, n in result["paths"].most_common()))
    slow = result["slow"]
    over = sum(1 for _, _, base, _ in slow if base >= SLOW_FLOOR_S)
    worst = f"; worst {slow[0][1]:.2f}x ({slow[0][0]})" if slow else ""
    print(
        f"pages where weblens takes > {SLOW_RATIO:g}x trafilatura's time (per-page medians): {len(slow)} "
        f"({over} of them on pages trafilatura takes >= {SLOW_FLOOR_S * 1000:.0f} ms){worst}"
    )
    if slow:
        listed = (f"{pid[:12]} {ratio:.1f}x of {base * 1000:.0f} ms ({path})" for pid, ratio, base, path in slow)
        print("  slowest: " + ", ".join(list(listed)[:10]))


def checks(results: dict[str, dict[str, Any]]) -> list[tuple[str, str, str, bool]]:
    """(kind, check, measured, passed) for every Must and aim of issues 10 and 23 that these corpora can show."""
    rows: list[tuple[str, str, str, bool]] = []
    for corpus, result in results.items():
        scores, groups = result["scores"], result["groups"]
        for group, ids in groups.items():
            if group.startswith("fold") or (group != "all" and len(ids) < MIN_TYPE_PAGES):
                continue
            base, ours = scores[BASELINE][group]["f1"], scores[OURS][group]["f1"]
            what = "overall" if group == "all" else f"{group} ({len(ids)} pages)"
            rows.append(("must", f"{corpus} {what}: F1 >= trafilatura", f"{ours:.3f} vs {base:.3f}", ours >= base))
            if ANCHOR in scores:  # issue 23: at least every anchor, on every page type
                rs = scores[ANCHOR][group]["f1"]
                rows.append(("must", f"{corpus} {what}: F1 >= rs-trafilatura", f"{ours:.3f} vs {rs:.3f}", ours >= rs))
        speed = result["rates"][OURS] / result["rates"][BASELINE]
        rows.append(("must", f"{corpus}: pages/s >= 1.5x trafilatura", f"{speed:.2f}x", speed >= 1.5))
        slow = result["slow"]
        worst = f"{len(slow)} pages, worst {slow[0][1]:.2f}x" if slow else "none"
        rows.append(("must", f"{corpus}: no page > {SLOW_RATIO:g}x trafilatura's time", worst, not slow))
        empty_base = scores[BASELINE]["all"]["empty_predictions"]
        empty_ours = scores[OURS]["all"]["empty_predictions"]
        rows.append(("must", f"{corpus}: empty pages <= trafilatura", f"{empty_ours} vs {empty_base}",
                     empty_ours <= empty_base))  # fmt: skip
    articles = results.get("article-extraction")
    if articles is not None:
        f1 = articles["scores"][OURS]["all"]["f1"]
        rows.append(("aim", "article-extraction overall: F1 >= 0.97", f"{f1:.3f}", f1 >= 0.97))
    modern = results.get("web-extraction-2026")
    if modern is not None:
        ours = modern["scores"][OURS]
        f1, article = ours["all"]["f1"], ours.get("article", ours["all"])["f1"]
        rows.append(("aim", "web-extraction-2026 overall: F1 >= 0.85", f"{f1:.3f}", f1 >= 0.85))
        rows.append(("aim", "web-extraction-2026 article: F1 >= 0.96", f"{article:.3f}", article >= 0.96))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the folder holding both corpora")
    parser.add_argument("--corpus", action="append", choices=CORPORA, help="one corpus (default: both)")
    parser.add_argument(
        "--anchor-python", help="a Python 3.12+ that imports trafipy (default: the first found on PATH or in pyenv)"
    )
    parser.add_argument("--no-anchor", action="store_true", help="leave rs-trafilatura out")
    args = parser.parse_args()
    anchor = None if args.no_anchor else args.anchor_python or find_anchor_python()
    if anchor and not _imports_trafipy(anchor):
        print(f"{ANCHOR_MISSING}: {anchor} cannot import it")
        anchor = None
    elif anchor or args.no_anchor:
        print(f"{ANCHOR}: trafipy in {anchor}" if anchor else f"{ANCHOR}: left out")
    else:
        print(ANCHOR_MISSING)
    in_use = fast_xpaths.install()  # what the first HTML page would install
    print(f"weblens: {len(in_use)} of {len(fast_xpaths.PORTS)} trafilatura XPath stand-ins in use (fast_xpaths)")
    justext = "in use" if fast_justext.install() else "not in use (jusText's source differs)"
    print(f"weblens: the jusText paragraph maker's stand-in {justext} (fast_justext)")
    prepare = "in use" if fast_prepare.install() else "not in use (trafilatura's source differs)"
    print(f"weblens: the tree preparation's stand-in {prepare} (fast_prepare)")
    measure = "in use" if fast_html2txt.install() else "not in use (trafilatura's source differs)"
    print(f"weblens: the page measure's stand-in {measure} (fast_html2txt)")
    density = "in use" if fast_link_density.install() else "not in use (trafilatura's source differs)"
    print(f"weblens: the link-density pruning's stand-in {density} (fast_link_density)")
    second = "in use" if fast_second_opinion.install() else "not in use (trafilatura's source differs)"
    print(f"weblens: the second opinion's stand-in {second} (fast_second_opinion)")
    results = {}
    for corpus in args.corpus or CORPORA:
        data = args.data / corpus
        if not (data / "ground-truth.json").is_file():
            print(f"skipped {corpus}: the benchmark data is not at {data} (pass --data DIR)")
            continue
        results[corpus] = run_corpus(data, args.rounds, anchor)
        report(corpus, results[corpus], args.rounds)
    if not results:
        return 0
    rows = checks(results)
    width = max(len(check) for _, check, _, _ in rows)
    print(f"\n{'':<4} {'check (issues 10, 23)':<{width}} {'weblens vs anchor':>22}  result")
    for kind, check, measured, passed in rows:
        print(f"{kind:<4} {check:<{width}} {measured:>22}  {'pass' if passed else 'FAIL'}")
    musts = [passed for kind, _, _, passed in rows if kind == "must"]
    print(f"musts: {sum(musts)}/{len(musts)} pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
