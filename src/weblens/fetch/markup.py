"""Bounds on markup that makes HTML parsers slow or lossy: a cap on attributes per tag, and on
the text of a raw-text element (a script, a style).

libxml2 (lxml) and lexbor check each new attribute of a tag against all the earlier ones,
so one tag with 100 000 distinct attributes (1 MB) costs minutes of CPU. No real page
needs more than a few dozen attributes on one element; past `MAX_ATTRIBUTES` the rest
of the tag's attributes are dropped before any parser sees the page.

libxml2 also refuses a text node of more than 10 000 000 bytes and stops there: a page
(within the 10 MiB download cap) holding one inline script that large lost all its text
after it. A raw-text element holding more than `MAX_RAW_TEXT_BYTES` is emptied instead;
nothing reads a script that size (the JSON readers stop at 5 MB).

The scan follows the HTML tokenizer closely enough to never be shorter than the parser's
view of a tag: comments, raw-text elements (script, style, ...) and quoted values that
contain `<` or `>` are stepped over whole. Every pattern is possessive or atomic and
always matches once it starts, and `finditer` resumes after each match, so each
character is read a bounded number of times (linear on any input).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import AnyStr

__all__ = ["MAX_ATTRIBUTES", "MAX_RAW_TEXT_BYTES", "bound_markup", "flatten_markup", "within_bounds"]

MAX_ATTRIBUTES = 64
MAX_RAW_TEXT_BYTES = 9_000_000
# a character is at most 4 bytes of UTF-8: shorter raw text is never measured
_RAW_TEXT_MIN_CHARS = MAX_RAW_TEXT_BYTES // 4

# One attribute: separators, a name (HTML allows almost anything but space, / and >), an optional value.
_ATTR = r"""(?>[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"?|'[^']*+'?|[^\s>]*+))?)"""
_RAW_NAMES = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes")


def _any_case(names: tuple[str, ...]) -> str:
    """An alternation of `names` in any case, spelled out and grouped by first letter: asked at every tag, it costs
    a fifth less than an IGNORECASE pattern (which also slows every other step of the scan)."""

    def spelled(word: str) -> str:
        return "".join(f"[{c}{c.upper()}]" for c in word)

    firsts = dict.fromkeys(name[0] for name in names)
    groups = (
        spelled(first) + "(?:" + "|".join(spelled(n[1:]) for n in names if n[0] == first) + ")" for first in firsts
    )
    return "(?:" + "|".join(groups) + ")"


_RAW = _any_case(_RAW_NAMES)
# Text and plain tags (few attributes, no `<` or `>` in a value, not raw text) in one stretch, so the loop
# below only wakes for the rare token that needs a closer look.
_PLAIN = (
    rf"(?:[^<]++|<(?!{_RAW}[\s/>])[A-Za-z][^\s/<>]*+"
    r"""(?:\s++[^\s/<>="']++(?:\s*+=\s*+(?:"[^"<>]*+"|'[^'<>]*+'|[^\s"'<>=`]++))?){0,16}+\s*+/?>"""
    r"|</[A-Za-z][^<>]*+>|<(?![A-Za-z!?/]))++"
)
_TOKEN_SOURCE = (
    _PLAIN + "|"
    r"<!--(?:-?>|[^-]*+(?:-(?!-!?>)[^-]*+)*+(?:--!?>)?)"  # a comment, empty forms included; unclosed runs to the end
    rf"|<(?P<raw>{_RAW})(?=[\s/>])(?P<raw_attrs>(?:{_ATTR})*+)[^<]*+(?:<(?!/(?i:(?P=raw)))[^<]*+)*+"  # to its end tag
    r"|<[!?/][^>]*+"  # doctype, processing instruction, end tag, bogus comment
    rf"|<[A-Za-z][^\s/>]*+(?P<attrs>(?:{_ATTR})*+)"  # a start tag with its attributes
)
_FLOOD_SOURCE = rf"(?:{_ATTR}){{{MAX_ATTRIBUTES}}}"
# The same scan over the page's text and over its UTF-8 (which a parser is handed): over bytes, a fifth faster.
_TOKEN, _TOKEN_BYTES = re.compile(_TOKEN_SOURCE), re.compile(_TOKEN_SOURCE.encode())
_FLOOD, _FLOOD_BYTES = re.compile(_FLOOD_SOURCE), re.compile(_FLOOD_SOURCE.encode())
# a tag with MAX_ATTRIBUTES attributes is at least twice that long; shorter ones need no count
_FLOOD_MIN_CHARS = 2 * MAX_ATTRIBUTES


def _cuts(markup: AnyStr, token: re.Pattern[AnyStr], flood: re.Pattern[AnyStr]) -> Iterator[tuple[int, int]]:
    """(where a left-out stretch starts, where the markup resumes) for each stretch `bound_markup` leaves out."""
    for found in token.finditer(markup):
        start, end = found.span("attrs") if found.start("attrs") >= 0 else found.span("raw_attrs")
        # also plain stretches, whose spans are (-1, -1)
        kept = flood.match(markup, start, end) if end - start >= _FLOOD_MIN_CHARS else None
        if kept is not None and kept.end() < end:  # more attributes than the first MAX_ATTRIBUTES
            yield kept.end(), end
        if found.start("raw") >= 0 and found.end() - end > _RAW_TEXT_MIN_CHARS:
            opened = _start_tag_end(markup, end, found.end())  # 0: it has none
            if opened and _utf8_length(markup[opened : found.end()]) > MAX_RAW_TEXT_BYTES:
                yield opened, found.end()


def _start_tag_end(markup: str | bytes, start: int, stop: int) -> int:
    """Where the start tag whose attributes end at `start` closes (after its `>`), or 0."""
    closed = markup.find(">", start, stop) if isinstance(markup, str) else markup.find(b">", start, stop)
    return closed + 1


def _utf8_length(markup: str | bytes) -> int:
    return len(markup) if isinstance(markup, bytes) else len(markup.encode("utf-8", "surrogatepass"))


def bound_markup(html: str) -> str:
    """`html` with every tag cut to its first MAX_ATTRIBUTES attributes and every raw-text element holding more
    than MAX_RAW_TEXT_BYTES emptied (unchanged when neither applies)."""
    parts: list[str] = []
    done = 0
    for cut, resume in _cuts(html, _TOKEN, _FLOOD):
        parts.append(html[done:cut])
        done = resume
    if not parts:
        return html
    parts.append(html[done:])
    return "".join(parts)


def within_bounds(encoded: bytes) -> bool:
    """Whether a page's UTF-8 is one `bound_markup` leaves as it is (read in a fifth less time than its text)."""
    return next(_cuts(encoded, _TOKEN_BYTES, _FLOOD_BYTES), None) is None


# A tag, start or end, up to its `>` (or the next `<`, so each character is read once).
_ANY_TAG = re.compile(r"<(/?+)([A-Za-z][A-Za-z0-9:-]*+)(?:[\s/][^<>]*+)?+>")
# Tags that cannot nest deep (the parser closes the open one) or that hold what a reader needs.
_FLAT_KEEP = frozenset(
    {"html", "head", "body", "title", "meta", "p", "br", "li", "script", "style"}
)  # fmt: skip
_FLAT_BREAK = frozenset(
    {"div", "section", "article", "main", "tr", "td", "th", "table", "ul", "ol", "dl", "dd", "dt", "blockquote",
     "figure", "figcaption", "header", "footer", "nav", "aside", "form", "fieldset", "details", "summary", "pre",
     "h1", "h2", "h3", "h4", "h5", "h6"}
)  # fmt: skip


def _flat_tag(tag: re.Match[str]) -> str:
    name = tag.group(2).lower()
    if name in _FLAT_KEEP:
        return tag.group(0)
    return "<br>" if name in _FLAT_BREAK else ""


def flatten_markup(html: str) -> str:
    """`html` with its containers removed (a block one leaves a line break), for a page nested deeper than
    the parser follows: libxml2 stops at 256 levels and drops the rest of the page."""
    return _ANY_TAG.sub(_flat_tag, html)
