"""Split an extracted markdown document into passages a query can be matched against.

A passage is a paragraph, list, table or code block (never split inside a code fence),
with the headings it sits under and its `[start, end)` character offsets into the whole
document, so `document[start:end]` is exactly its text. Headings are not passages: they
become the heading path of what follows them. Long blocks are cut at line, then sentence
boundaries; runs of short blocks under one heading (list items, forum post headers,
one-line replies) are joined so a passage carries enough words to rank.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Span", "heading_words", "split_passages"]

# About a paragraph: small enough that a 500-token budget holds several passages, large
# enough to carry words to rank; the floor keeps "Posted by X" lines from ranking alone.
MAX_PASSAGE_CHARS = 1200
MIN_PASSAGE_CHARS = 200
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(\S.*)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# Where a long block may be cut, best first: line breaks, sentence ends, any space.
_CUTS = (re.compile(r"\n"), re.compile(r"[.!?][\"'”’)\]]*\s+|[。！？]+"), re.compile(r"\s+"))
# Emphasis and code marks, and link targets; an underscore inside a word (`rustc_codegen_gcc`) is the word's own.
_DECORATION = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)|\[([^\]]*)\]\([^)]*\)")
_HEADING_CHARS = 300


@dataclass(frozen=True, slots=True)
class Span:
    """A passage's place: `text[start:end]`, under the headings in `heading_path`."""

    start: int
    end: int
    heading_path: tuple[str, ...] = ()


def heading_words(line: str) -> str | None:
    """The words of a markdown heading `line` (as a heading path names it), or None when it is no heading."""
    heading = _HEADING.fullmatch(line)
    return None if heading is None else _heading_text(heading.group(2))


def _heading_text(raw: str) -> str:
    """A heading's words: no closing hashes, emphasis or link targets (bounded: pages are hostile)."""
    text = raw[:_HEADING_CHARS].rstrip()
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare
    return " ".join(_DECORATION.sub(lambda m: m.group(1) or "", text).split())


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its line break) for every line of `text`."""
    offset = 0
    for line in text.splitlines(keepends=True):
        yield offset, line.rstrip("\r\n")
        offset += len(line)


def _blocks(text: str) -> Iterator[Span]:
    """Blank-line separated blocks with their heading path; code fences stay whole."""
    path: list[tuple[int, str]] = []
    start = end = -1
    fence = ""

    def flush() -> Span | None:
        nonlocal start
        block = Span(start, end, tuple(title for _, title in path)) if start >= 0 else None
        start = -1
        return block

    for offset, line in _lines(text):
        stripped = line.strip()
        if fence:
            end = offset + len(line)
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            continue
        first = stripped[:1]
        opening = _FENCE.match(line) if first in ("`", "~") else None
        heading = _HEADING.fullmatch(line) if first == "#" and not opening else None
        if opening or heading or not stripped:
            block = flush()
            if block:
                yield block
        if opening:
            fence = opening.group(1)
            start, end = offset, offset + len(line)
        elif heading:
            level = len(heading.group(1))
            path = [(lvl, title) for lvl, title in path if lvl < level]
            title = _heading_text(heading.group(2))
            if title:
                path.append((level, title))
        elif stripped:
            if start < 0:
                start = offset + len(line) - len(line.lstrip())
            end = offset + len(line.rstrip())
    block = flush()
    if block:
        yield block


def _cut(text: str, start: int, limit: int) -> int:
    """The last good place to cut `text[start:limit]`, keeping at least a quarter of it."""
    floor = start + (limit - start) // 4
    for pattern in _CUTS:
        last = None
        for match in pattern.finditer(text, floor, limit):
            last = match
        if last is not None and last.end() > floor:
            return last.end()
    return limit


def _split_long(text: str, block: Span, max_chars: int) -> Iterator[Span]:
    start = block.start
    while block.end - start > max_chars:
        cut = _cut(text, start, start + max_chars)
        end = cut
        while end > start and text[end - 1].isspace():
            end -= 1
        yield Span(start, end, block.heading_path)
        start = cut
        while start < block.end and text[start].isspace():
            start += 1
    if start < block.end:
        yield Span(start, block.end, block.heading_path)


def split_passages(text: str, *, max_chars: int = MAX_PASSAGE_CHARS, min_chars: int = MIN_PASSAGE_CHARS) -> list[Span]:
    """`text`'s passages in document order; `text[p.start:p.end]` is each one's text."""
    passages: list[Span] = []
    for block in _blocks(text):
        for piece in _split_long(text, block, max_chars):
            last = passages[-1] if passages else None
            if (
                last is not None
                and last.heading_path == piece.heading_path
                and last.end - last.start < min_chars  # a short block leads into what follows it
                and piece.end - last.start <= max_chars
                and not text[last.end : piece.start].strip()
            ):
                passages[-1] = Span(last.start, piece.end, last.heading_path)
            else:
                passages.append(piece)
    return passages
