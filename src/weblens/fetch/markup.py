"""Bounds on markup that makes HTML parsers slow: a cap on attributes per tag.

libxml2 (lxml) and lexbor check each new attribute of a tag against all the earlier ones,
so one tag with 100 000 distinct attributes (1 MB) costs minutes of CPU. No real page
needs more than a few dozen attributes on one element; past `MAX_ATTRIBUTES` the rest
of the tag's attributes are dropped before any parser sees the page.

The scan follows the HTML tokenizer closely enough to never be shorter than the parser's
view of a tag: comments, raw-text elements (script, style, ...) and quoted values that
contain `<` or `>` are stepped over whole. Every pattern is possessive or atomic and
always matches once it starts, and `finditer` resumes after each match, so each
character is read a bounded number of times (linear on any input).
"""

from __future__ import annotations

import re

__all__ = ["MAX_ATTRIBUTES", "bound_attributes", "flatten_markup"]

MAX_ATTRIBUTES = 64

# One attribute: separators, a name (HTML allows almost anything but space, / and >), an optional value.
_ATTR = r"""(?>[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"?|'[^']*+'?|[^\s>]*+))?)"""
_RAW = "script|style|textarea|title|xmp|iframe|noembed|noframes"
# Text and plain tags (few attributes, no `<` or `>` in a value, not raw text) in one stretch, so the loop
# below only wakes for the rare token that needs a closer look.
_PLAIN = (
    rf"(?:[^<]++|<(?!(?:{_RAW})[\s/>])[A-Za-z][^\s/<>]*+"
    r"""(?:\s++[^\s/<>="']++(?:\s*+=\s*+(?:"[^"<>]*+"|'[^'<>]*+'|[^\s"'<>=`]++))?){0,16}+\s*+/?>"""
    r"|</[A-Za-z][^<>]*+>|<(?![A-Za-z!?/]))++"
)
_TOKEN = re.compile(
    _PLAIN + "|"
    r"<!--(?:-?>|[^-]*+(?:-(?!-!?>)[^-]*+)*+(?:--!?>)?)"  # a comment, empty forms included; unclosed runs to the end
    rf"|<(?P<raw>{_RAW})(?=[\s/>])(?P<raw_attrs>(?:{_ATTR})*+)[^<]*+(?:<(?!/(?P=raw))[^<]*+)*+"  # up to its end tag
    r"|<[!?/][^>]*+"  # doctype, processing instruction, end tag, bogus comment
    rf"|<[A-Za-z][^\s/>]*+(?P<attrs>(?:{_ATTR})*+)",  # a start tag with its attributes
    re.I,
)
_FLOOD = re.compile(rf"(?:{_ATTR}){{{MAX_ATTRIBUTES}}}")
# a tag with MAX_ATTRIBUTES attributes is at least twice that long; shorter ones need no count
_FLOOD_MIN_CHARS = 2 * MAX_ATTRIBUTES


def bound_attributes(html: str) -> str:
    """`html` with every tag cut to its first MAX_ATTRIBUTES attributes (unchanged when none has more)."""
    parts: list[str] = []
    done = 0
    for token in _TOKEN.finditer(html):
        start, end = token.span("attrs") if token.start("attrs") >= 0 else token.span("raw_attrs")
        if end - start < _FLOOD_MIN_CHARS:  # also plain stretches, whose spans are (-1, -1)
            continue
        kept = _FLOOD.match(html, start, end)
        if kept is None:
            continue
        parts.append(html[done : kept.end()])
        done = end
    if not parts:
        return html
    parts.append(html[done:])
    return "".join(parts)


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
