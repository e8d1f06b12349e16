"""Choose the passages that answer a query within a budget, and lay them out for a model.

The best-scoring passages are taken while they fit, then shown in document order. Each
starts with a line giving its `[start–end]` offsets and heading path; every stretch of the
document left out is marked `[… N characters left out]`. The laid-out text is counted
again, whole, and trimmed until it fits, so the budget is never exceeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from weblens.fetch.passages import Span
from weblens.fetch.tokens import TokenCounter

__all__ = ["Selection", "Shown", "gap_marker", "select_passages"]

_SEPARATOR = "\n\n"
# After this many passages in a row that do not fit, smaller ones further down the ranking
# are not worth counting.
_MAX_MISSES = 8
# Passages scoring under this share of the best are left out even when they fit: on
# bench/reading.py they made the output 2.4x longer at 1000 tokens for no recall.
_MIN_SHARE_OF_BEST = 0.1


@dataclass(frozen=True, slots=True)
class Shown:
    span: Span
    score: float


@dataclass(frozen=True, slots=True)
class Selection:
    content: str
    shown: list[Shown]
    """What `content` shows, in document order (touching passages under one heading merged)."""
    tokens: int
    shown_chars: int


def gap_marker(length: int | str) -> str:
    return f"[… {length} characters left out]"


def _label(span: Span) -> str:
    where = f"[{span.start}–{span.end}]"
    return f"{where} {' › '.join(span.heading_path)}" if span.heading_path else where


def _merge(text: str, shown: list[Shown]) -> list[Shown]:
    merged: list[Shown] = []
    for item in sorted(shown, key=lambda s: s.span.start):
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.span.heading_path == item.span.heading_path
            and not text[last.span.end : item.span.start].strip()
        ):
            span = Span(last.span.start, item.span.end, last.span.heading_path)
            merged[-1] = Shown(span, max(last.score, item.score))
        else:
            merged.append(item)
    return merged


def _layout(text: str, shown: list[Shown], window: tuple[int, int]) -> str:
    parts: list[str] = []
    cursor = window[0]
    for item in shown:
        if text[cursor : item.span.start].strip():
            parts.append(gap_marker(item.span.start - cursor))
        parts.append(_label(item.span) + "\n" + text[item.span.start : item.span.end])
        cursor = item.span.end
    if text[cursor : window[1]].strip():
        parts.append(gap_marker(window[1] - cursor))
    return _SEPARATOR.join(parts)


def _shortened(text: str, item: Shown, max_tokens: int, max_chars: int, counter: TokenCounter) -> Shown | None:
    """`item` cut to its first `max_tokens` tokens and `max_chars` characters; None if nothing fits."""
    span = item.span
    body = text[span.start : min(span.end, span.start + max_chars)]
    keep = counter.prefix_length(body, max_tokens) if max_tokens > 0 else 0
    while keep > 0 and text[span.start + keep - 1].isspace():
        keep -= 1
    return Shown(Span(span.start, span.start + keep, span.heading_path), item.score) if keep > 0 else None


def select_passages(
    text: str,
    spans: Sequence[Span],
    scores: Sequence[float],
    *,
    max_tokens: int,
    max_chars: int,
    counter: TokenCounter,
    window: tuple[int, int] | None = None,
) -> Selection:
    """The best passages of `text` within both budgets, laid out; a budget is a ceiling, so
    passages that barely match are left out even when they would fit.

    `window` is the part of `text` searched (for the gap markers); the whole text by default.
    """
    window = window or (0, len(text))
    gap_tokens = counter.count(gap_marker(len(text))) + 1
    chosen: list[Shown] = []
    used_tokens = gap_tokens  # the marker after the last passage
    used_chars = len(gap_marker(len(text)))
    misses = 0
    floor = _MIN_SHARE_OF_BEST * max(scores, default=0.0)
    for index in sorted((i for i, score in enumerate(scores) if score > floor), key=lambda i: -scores[i]):
        item = Shown(spans[index], scores[index])
        head = _label(item.span)
        body = text[item.span.start : item.span.end]
        cost_tokens = counter.count(head) + counter.count(body) + gap_tokens + 2
        cost_chars = len(head) + len(body) + len(gap_marker(len(text))) + 2 * len(_SEPARATOR)
        if used_tokens + cost_tokens <= max_tokens and used_chars + cost_chars <= max_chars:
            chosen.append(item)
            used_tokens += cost_tokens
            used_chars += cost_chars
            misses = 0
            continue
        if not chosen:  # the best passage alone is over budget: show as much of it as fits
            room_tokens = max_tokens - used_tokens - (cost_tokens - counter.count(body))
            room_chars = max_chars - used_chars - (cost_chars - len(body))
            cut = _shortened(text, item, room_tokens, room_chars, counter)
            if cut is not None:
                chosen.append(cut)
                break
        misses += 1
        if misses >= _MAX_MISSES:
            break
    while True:
        shown = _merge(text, chosen)
        content = _layout(text, shown, window)
        tokens = counter.count(content)
        over_tokens, over_chars = tokens - max_tokens, len(content) - max_chars
        if over_tokens <= 0 and over_chars <= 0:
            return Selection(content, shown, tokens, sum(s.span.end - s.span.start for s in shown))
        if not chosen:  # a budget too small for even the gap marker
            return Selection("", [], 0, 0)
        # estimates were short (markers, merges): drop the weakest, or shorten the last one left
        weakest = min(chosen, key=lambda s: s.score)
        chosen.remove(weakest)
        if not chosen:
            body_tokens = counter.count(text[weakest.span.start : weakest.span.end])
            length = weakest.span.end - weakest.span.start
            cut = _shortened(
                text, weakest, body_tokens - max(over_tokens, 0) - 1, length - max(over_chars, 0) - 1, counter
            )
            if cut is not None:
                chosen.append(cut)
