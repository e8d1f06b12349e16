"""trafilatura's markdown escaping of a text node, told in one search when there is nothing to escape.

Writing markdown, trafilatura passes every text and tail of the result through `_escape_and_convert_math`:
it splits the text on LaTeX formulas (`\\(...\\)`, `\\[...\\]`) and then asks the prose for each of seven
characters CommonMark would read as syntax (`*`, `_`, a backtick, `~`, `[`, `]`, `<`), one scan each. Most
text nodes hold none of them and no formula (a formula starts with a backslash): the stand-in asks for all
eight characters in one search and returns such a text as it is, which is what trafilatura returns for it.
A text without a backslash (no formula, no escape of the page's own) gets a backslash before each of the seven
with one `str.replace` each, which is what trafilatura's seven substitutions write for it; any other text goes to
trafilatura's own. Half of the escaping's time on both corpora; on a page of one long paragraph, most of it.

Swapped in only while the functions and constants it relies on are the code it was written against
(`swap.GuardedSwap`); on another release trafilatura's own runs.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "escape_and_convert_math", "install", "installed", "source_digest", "stock"]

DIGEST = "ea2291b6"
_MODULE = "trafilatura.xml"
# what trafilatura escapes, and the backslash every formula's delimiter starts with
_SYNTAX = re.compile(r"[*_`~\[\]<\\]")


def escape_and_convert_math(text: str) -> str:
    """trafilatura's `_escape_and_convert_math`: `text` as it is when it holds nothing to escape or convert, each
    character to escape after a backslash when it holds no backslash (no formula, and no escape of its own)."""
    if _SYNTAX.search(text) is None:
        return text
    if "\\" not in text:
        for character in _escaped():
            text = text.replace(character, "\\" + character)
        return text
    return str(_SWAP.originals["_escape_and_convert_math"](text))


@functools.cache
def _escaped() -> tuple[str, ...]:
    """The characters trafilatura escapes. For a text without backslashes its escaping writes a backslash before
    each of them: the backslashes it adds are each right before the character they escape, so never before one a
    later step escapes (one `str.replace` each: a 1.5 MB paragraph took 230 ms, a sixth of trafilatura's read)."""
    return tuple(importlib.import_module(_MODULE)._INLINE_SPECIAL_CHARS)


def _sources() -> list[Any]:
    xml = importlib.import_module(_MODULE)
    return [
        xml._escape_and_convert_math, xml._escape_inline_specials, xml._MATH_SPAN_RE.pattern,
        repr(xml._INLINE_SPECIAL_CHARS),
    ]  # fmt: skip


_SWAP = GuardedSwap(_MODULE, {"_escape_and_convert_math": lambda: escape_and_convert_math}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
