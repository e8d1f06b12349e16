"""Reading for the question: does `web_fetch(url, query=...)` keep the paragraph that answers it?

For every page of both extraction corpora whose ground truth has at least 6 paragraphs, a
target paragraph is drawn (never one of the first two) and a query made of 4–8 of its
content words in shuffled order (so never its first sentence verbatim). weblens' own
extraction runs on the page's HTML (as a fetch does), then passage selection with that
query at 500, 1000 and 2000 tokens (o200k_base). Reported per budget:

- target recall: the share of the target paragraph's 4-token shingles present in the
  output (the corpora's score.py tokenisation), next to head truncation at the same
  budget (what peers do: the first N tokens) and to the whole extracted document (the
  ceiling extraction leaves), and on the pages whose extraction kept the target (so
  selection is measured apart from extraction);
- over budget: outputs with more tokens than asked for (must be 0);
- ranking cost: ms per page for splitting, ranking, selecting and counting, on top of
  extraction (median and 90th percentile over pages).

Each seed draws other targets and queries; the medians over seeds are the headline, so a
lucky draw is not. Aim: target recall >= 0.9 at 1000 tokens, never over budget, < 20 ms.

    .venv/bin/python bench/reading.py [--seeds 5] [--data DIR] [--bm25s]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from weblens.fetch.document import Document
from weblens.fetch.extract import extract
from weblens.fetch.reading import read_page
from weblens.fetch.tokens import Tokenizer, o200k

# shared/ sits beside the repository (or beside the folder of worktrees)
DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
            Path("shared") / "data")  # fmt: skip
CORPORA = ("article-extraction", "web-extraction-2026")
CONTENT_TYPE = "text/html; charset=utf-8"
BUDGETS = (500, 1000, 2000)
MIN_PARAGRAPHS = 6
MIN_CONTENT_WORDS = 8
KEPT = 0.9
"""A target counts as kept by extraction when this share of its shingles is in the document."""
# Content words for making queries: the bench's own list, not the ranker's, so the queries
# are not shaped to what weblens drops.
STOP = frozenset(
    [
        "a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "to", "in", "on", "at", "by", "for",
        "with", "from", "into", "onto", "over", "under", "about", "as", "is", "are", "was", "were", "be",
        "been", "being", "this", "that", "these", "those", "it", "its", "they", "them", "their", "there",
        "here", "he", "she", "him", "her", "his", "hers", "we", "us", "our", "you", "your", "i", "me", "my",
        "not", "no", "nor", "so", "than", "too", "very", "can", "could", "would", "should", "will", "shall",
        "may", "might", "must", "do", "does", "did", "done", "have", "has", "had", "having", "which", "who",
        "whom", "whose", "what", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more",
        "most", "other", "some", "such", "only", "own", "same", "just", "also", "into", "out", "up", "down",
        "off", "again", "further", "once"
    ]
)  # fmt: skip


@dataclass
class Sample:
    corpus: str
    page: str
    kind: str
    document: str
    paragraphs: list[str]


def load_score(corpus: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"score_{corpus.name}", corpus / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(data: Path) -> list[Sample]:
    """Every page with enough ground-truth paragraphs, extracted once by weblens."""
    samples = []
    for name in CORPORA:
        corpus = data / name
        truth = json.loads((corpus / "ground-truth.json").read_text(encoding="utf-8"))
        for page, record in sorted(truth.items()):
            paragraphs = [line.strip() for line in record.get("articleBody", "").split("\n") if line.strip()]
            if len(paragraphs) < MIN_PARAGRAPHS:
                continue
            raw = gzip.decompress((corpus / "html" / f"{page}.html.gz").read_bytes())
            document = extract(raw, CONTENT_TYPE, record.get("url", "")).content
            samples.append(Sample(name, page, record.get("type", "article"), document, paragraphs))
    return samples


def content_words(text: str, words: Callable[[str], list[str]]) -> list[str]:
    seen = dict.fromkeys(w for w in words(text) if len(w) >= 3 and w.lower() not in STOP and not w.isdigit())
    return list(seen)


def draw(sample: Sample, rng: random.Random, words: Callable[[str], list[str]]) -> tuple[str, str] | None:
    """(target paragraph, query) for one page, or None when no paragraph past the second has words enough."""
    eligible = [p for p in sample.paragraphs[2:] if len(content_words(p, words)) >= MIN_CONTENT_WORDS]
    if not eligible:
        return None
    target = rng.choice(eligible)
    picked = rng.sample(content_words(target, words), rng.randint(4, 8))
    rng.shuffle(picked)
    return target, " ".join(picked)


def recall(target: Counter[tuple[str, ...]], output: str, score: ModuleType) -> float:
    got = score.shingle_bag(score.tokens(output))
    return sum((target & got).values()) / max(1, sum(target.values()))


def head(text: str, budget: int, tokenizer: Tokenizer) -> str:
    return text[: tokenizer.prefix_length(text, budget)]


def run_seed(samples: list[Sample], seed: int, score: ModuleType, tokenizer: Tokenizer) -> dict[str, object]:
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for sample in samples:
        drawn = draw(sample, rng, score.tokens)
        if drawn is None:
            continue
        target_text, query = drawn
        target = score.shingle_bag(score.tokens(target_text))
        document = Document(
            url="u", final_url="u", status=200, content_type="text/html", extractor="weblens",
            content=sample.document, total_length=len(sample.document),
        )  # fmt: skip
        row: dict[str, object] = {
            "corpus": sample.corpus, "kind": sample.kind, "ceiling": recall(target, sample.document, score),
        }  # fmt: skip
        for budget in BUDGETS:
            started = time.perf_counter()
            page = read_page(
                document, False, start_index=0, max_length=None, default_length=20_000, query=query,
                max_tokens=budget, query_tokens=budget, counter=tokenizer,
            )  # fmt: skip
            row[f"ms{budget}"] = (time.perf_counter() - started) * 1000.0
            row[f"q{budget}"] = recall(target, page.content, score)
            row[f"h{budget}"] = recall(target, head(sample.document, budget, tokenizer), score)
            row[f"over{budget}"] = tokenizer.count(page.content) > budget
            row[f"t{budget}"] = page.tokens or 0
        rows.append(row)
    return {"seed": seed, "rows": rows}


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(rows: list[dict[str, object]]) -> dict[str, float]:
    out: dict[str, float] = {"pages": len(rows), "ceiling": mean([float(r["ceiling"]) for r in rows])}  # type: ignore[arg-type]
    for budget in BUDGETS:
        out[f"q{budget}"] = mean([float(r[f"q{budget}"]) for r in rows])  # type: ignore[arg-type]
        out[f"h{budget}"] = mean([float(r[f"h{budget}"]) for r in rows])  # type: ignore[arg-type]
        out[f"over{budget}"] = sum(1 for r in rows if r[f"over{budget}"])
        out[f"t{budget}"] = mean([float(r[f"t{budget}"]) for r in rows])  # type: ignore[arg-type]
        times = sorted(float(r[f"ms{budget}"]) for r in rows)  # type: ignore[arg-type]
        out[f"ms{budget}"] = statistics.median(times)
        out[f"p90ms{budget}"] = times[int(0.9 * (len(times) - 1))]
    kept = [r for r in rows if float(r["ceiling"]) >= KEPT]  # type: ignore[arg-type]
    out["kept_pages"] = len(kept)
    out["kept1000"] = mean([float(r["q1000"]) for r in kept])  # type: ignore[arg-type]
    return out


def table(title: str, summaries: list[dict[str, float]]) -> None:
    """One line per budget: the median over seeds (min–max in brackets)."""
    print(f"\n{title}: {int(statistics.median(s['pages'] for s in summaries))} pages, {len(summaries)} seeds")
    print(f"  {'budget':>7}  {'query recall':>22}  {'head recall':>22}  {'over':>4}  {'ms/page (p90)':>14}  tokens out")
    for budget in BUDGETS:

        def cell(key: str) -> str:
            values = [s[key] for s in summaries]
            return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"

        over = int(sum(s[f"over{budget}"] for s in summaries))
        ms = statistics.median(s[f"ms{budget}"] for s in summaries)
        p90 = statistics.median(s[f"p90ms{budget}"] for s in summaries)
        out = statistics.median(s[f"t{budget}"] for s in summaries)
        print(f"  {budget:>7}  {cell(f'q{budget}'):>22}  {cell(f'h{budget}'):>22}  {over:>4}  {ms:>6.2f} ({p90:>5.2f})"
              f"  {out:>9.0f}")  # fmt: skip
    ceiling = statistics.median(s["ceiling"] for s in summaries)
    kept = statistics.median(s["kept1000"] for s in summaries)
    kept_pages = int(statistics.median(s["kept_pages"] for s in summaries))
    print(f"  whole extracted document (the ceiling): {ceiling:.3f}; at 1000 tokens on the {kept_pages} pages "
          f"whose extraction kept >= 90% of the target: {kept:.3f}")


def compare_bm25s(samples: list[Sample], score: ModuleType) -> None:
    """Time bm25s (index + one query) against weblens' own scoring on the same passages."""
    import bm25s  # type: ignore[import-not-found]

    from weblens.fetch.passages import split_passages
    from weblens.fetch.ranking import score_passages

    ours, theirs = [], []
    rng = random.Random(0)
    for sample in samples:
        drawn = draw(sample, rng, score.tokens)
        spans = split_passages(sample.document)
        if drawn is None or len(spans) < 2:
            continue
        texts = [sample.document[s.start : s.end] for s in spans]
        headings = [" ".join(s.heading_path) for s in spans]
        started = time.perf_counter()
        score_passages(texts, headings, drawn[1])
        ours.append((time.perf_counter() - started) * 1000.0)
        started = time.perf_counter()
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        retriever.get_scores(bm25s.tokenize([drawn[1]], stopwords="en", show_progress=False, return_ids=False)[0])
        theirs.append((time.perf_counter() - started) * 1000.0)
    print(f"\nscoring one page's passages, median ms: weblens {statistics.median(ours):.2f}, "
          f"bm25s {statistics.median(theirs):.2f} ({len(ours)} pages)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--bm25s", action="store_true", help="also time bm25s on the same passages")
    args = parser.parse_args()
    if not all((args.data / name / "ground-truth.json").is_file() for name in CORPORA):
        print(f"skipped: the corpora are not under {args.data} (pass --data DIR)")
        return 0
    score = load_score(args.data / CORPORA[0])
    tokenizer = o200k()
    started = time.perf_counter()
    samples = load(args.data)
    took = time.perf_counter() - started
    print(f"{len(samples)} pages with >= {MIN_PARAGRAPHS} paragraphs, extracted in {took:.0f} s")
    runs = [run_seed(samples, seed, score, tokenizer) for seed in range(args.seeds)]

    def rows(run: dict[str, object], key: str = "", value: str = "") -> list[dict[str, object]]:
        return [row for row in run["rows"] if not key or row[key] == value]  # type: ignore[attr-defined]

    table("seed 0 alone, all pages", [summarise(rows(runs[0]))])
    table("all pages, medians over seeds", [summarise(rows(r)) for r in runs])
    for corpus in CORPORA:
        table(corpus, [summarise(rows(r, "corpus", corpus)) for r in runs])
    for kind in sorted({s.kind for s in samples if s.corpus == CORPORA[1]}):
        per_kind = [summarise([row for row in rows(r, "corpus", CORPORA[1]) if row["kind"] == kind]) for r in runs]
        if per_kind[0]["pages"] >= 20:
            table(f"{CORPORA[1]}, type {kind}", per_kind)
    if args.bm25s:
        compare_bm25s(samples, score)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
