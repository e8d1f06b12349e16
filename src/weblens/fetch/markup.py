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

__all__ = ["MAX_ATTRIBUTES", "MAX_RAW_TEXT_BYTES", "bound_markup", "flatten_markup"]

MAX_ATTRIBUTES = 64
MAX_RAW_TEXT_BYTES = 9_000_000
# a character is at most 4 bytes of UTF-8: shorter raw text is never measured
_RAW_TEXT_MIN_CHARS = MAX_RAW_TEXT_BYTES // 4

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


def bound_markup(html: str) -> str:
    """`html` with every tag cut to its first MAX_ATTRIBUTES attributes and every raw-text element holding more
    than MAX_RAW_TEXT_BYTES emptied (unchanged when neither applies)."""
    parts: list[str] = []
    done = 0
    for token in _TOKEN.finditer(html):
        start, end = token.span("attrs") if token.start("attrs") >= 0 else token.span("raw_attrs")
        # also plain stretches, whose spans are (-1, -1)
        if end - start >= _FLOOD_MIN_CHARS and (kept := _FLOOD.match(html, start, end)) is not None:
            parts.append(html[done : kept.end()])
            done = end
        if token.start("raw") >= 0 and token.end() - end > _RAW_TEXT_MIN_CHARS:
            opened = html.find(">", end, token.end()) + 1  # the end of its start tag (0: it has none)
            if opened and len(html[opened : token.end()].encode("utf-8", "surrogatepass")) > MAX_RAW_TEXT_BYTES:
                parts.append(html[done:opened])
                done = token.end()
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
