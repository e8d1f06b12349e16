"""Passages, their ranking, the token counter and the budgeted selection, on small documents."""

from __future__ import annotations

import pytest

from weblens.fetch.passages import split_passages
from weblens.fetch.ranking import query_terms, score_passages
from weblens.fetch.selection import gap_marker, select_passages
from weblens.fetch.tokens import o200k

DOC = """# Guide

An introduction that is long enough to stand on its own: it explains what the service does, who runs it, \
and why a reader might care about any of the sections below, at some length.

## Install

Run the installer:

```sh
pip install example

example init
```

## Configure

### Proxy

Set EXAMPLE_PROXY to the proxy's URL; authentication goes into the URL.

### Cache

The cache keeps pages for an hour.
"""


def test_passages_carry_their_heading_path_and_exact_offsets() -> None:
    passages = split_passages(DOC)
    for passage in passages:
        text = DOC[passage.start : passage.end]
        assert text == text.strip() and text
        assert not text.startswith("#")  # headings are paths, not passages
    paths = [p.heading_path for p in passages]
    assert paths == [("Guide",), ("Guide", "Install"), ("Guide", "Configure", "Proxy"), ("Guide", "Configure", "Cache")]
    install = DOC[passages[1].start : passages[1].end]
    assert install.startswith("Run the installer:") and install.endswith("example init\n```")


def test_a_code_fence_with_blank_lines_and_hashes_stays_one_block() -> None:
    doc = "Intro line.\n\n```python\n# not a heading\n\nx = 1\n```\n\nAfter."
    texts = [doc[p.start : p.end] for p in split_passages(doc, min_chars=0)]
    assert texts == ["Intro line.", "```python\n# not a heading\n\nx = 1\n```", "After."]


def test_long_blocks_are_cut_at_sentence_ends_and_short_ones_joined_forward() -> None:
    sentence = "The keeper wrote the weather into the ledger every hour of the night. "
    doc = "**alice** · reply #3\n\n" + sentence * 40
    passages = split_passages(doc, max_chars=600, min_chars=100)
    assert all(p.end - p.start <= 600 for p in passages)
    first = doc[passages[0].start : passages[0].end]
    assert first.startswith("**alice** · reply #3\n\nThe keeper")  # the author line leads into its post
    assert all(doc[p.start : p.end].endswith("night.") for p in passages)
    covered = "".join(doc[p.start : p.end] for p in passages).replace(" ", "").replace("\n", "")
    assert covered == doc.replace(" ", "").replace("\n", "")


def test_hostile_headings_and_lines_split_in_linear_time() -> None:
    doc = ("# " + "[" * 100_000 + "\n\n") + ("#" * 50_000 + " x" + " #" * 50_000 + "\n") + "word " * 200_000
    passages = split_passages(doc)
    assert passages and max(p.end - p.start for p in passages) <= 1200


def test_ranking_prefers_the_passage_with_more_of_the_query_and_folds_plurals() -> None:
    texts = ["A note on ferries and harbours.", "The ferry leaves the harbour at noon; the ferry is late.", "Bread."]
    scores = score_passages(texts, ["", "", ""], "when does the ferry leave the harbour")
    assert scores[1] > scores[0] > scores[2] == 0.0
    assert query_terms("What are the opening times?") == ["opening", "time"]


def test_heading_words_count_and_chinese_matches_without_spaces() -> None:
    scores = score_passages(["Set it to the URL.", "Keep it for an hour."], ["Proxy", "Cache"], "proxy settings")
    assert scores[0] > scores[1] == 0.0
    chinese = score_passages(["今天天气很好，我们去公园。", "火车在中午出发。"], ["", ""], "火车出发")
    assert chinese[1] > chinese[0] == 0.0


def test_tokenizer_is_o200k_base_and_offline() -> None:
    tokenizer = o200k()
    assert tokenizer.name == "o200k_base"
    # ids checked against OpenAI's tiktoken with its own download of o200k_base
    assert tokenizer.count("hello world") == 2
    assert tokenizer.count("Смотрите: 東京 🚀 naïve café") == 9
    text = "Paragraph one.\n\nParagraph two is longer than the first one."
    for budget in (1, 3, 7, 100):
        cut = tokenizer.prefix_length(text, budget)
        assert tokenizer.count(text[:cut]) <= budget
        assert cut == len(text) or tokenizer.count(text[: cut + 1]) > budget
    assert tokenizer.prefix_length("東京" * 10, 1) in (0, 1, 2)


@pytest.mark.parametrize("budget", [60, 120, 400])
def test_selection_keeps_the_budget_marks_gaps_and_slices_exactly(budget: int) -> None:
    filler = "Around the harbour the talk turned to boats and tide tables near the old pier. " * 6
    doc = "\n\n".join([filler, "The ferry to the island leaves at noon from pier four.", filler, filler])
    tokenizer = o200k()
    spans = split_passages(doc)
    scores = score_passages([doc[s.start : s.end] for s in spans], ["" for _ in spans], "ferry island noon")
    chosen = select_passages(doc, spans, scores, max_tokens=budget, max_chars=10_000, counter=tokenizer)
    assert chosen.tokens == tokenizer.count(chosen.content) <= budget
    assert chosen.shown, chosen.content
    for shown in chosen.shown:
        piece = doc[shown.span.start : shown.span.end]
        assert f"[{shown.span.start}–{shown.span.end}]\n{piece}" in chosen.content
    assert "ferry to the island" in chosen.content
    assert chosen.content.startswith("[… ") and chosen.content.rstrip().endswith("characters left out]")


def test_a_budget_smaller_than_the_best_passage_shows_its_start() -> None:
    doc = "An introduction about harbours and their long history. " * 5 + "\n\n"
    doc += "The ferry schedule: " + "the boat leaves at noon and returns at six, " * 30
    tokenizer = o200k()
    spans = split_passages(doc, max_chars=5000)
    scores = score_passages([doc[s.start : s.end] for s in spans], ["" for _ in spans], "ferry schedule")
    chosen = select_passages(doc, spans, scores, max_tokens=50, max_chars=10_000, counter=tokenizer)
    assert chosen.tokens <= 50 and len(chosen.shown) == 1
    span = chosen.shown[0].span
    assert doc[span.start :].startswith("The ferry schedule") and span.end < len(doc)
    assert gap_marker(len(doc) - span.end) in chosen.content


def test_a_heading_path_keeps_underscores_inside_words_and_drops_emphasis_marks() -> None:
    doc = "## The `rustc_codegen_gcc` backend, __now__ _faster_\n\n" + "A paragraph under it. " * 12
    assert split_passages(doc)[0].heading_path == ("The rustc_codegen_gcc backend, now faster",)
