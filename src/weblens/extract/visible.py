"""The text a reader sees on the page: every element's text, minus scripts, styles and hidden parts.

Values are checked against this, not against the main-content extract `fetch` returns:
that one leaves out the price box, the spec table and the header a value often sits in.
Blocks become paragraphs (blank-line separated, as passages are split), table cells are
joined with ` | `.
"""

from __future__ import annotations

import re

from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

__all__ = ["INVISIBLE", "visible_text"]

_SKIP = frozenset({"script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas", "math"})
_BLOCK = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "h1", "h2", "h3", "h4", "h5",
    "h6", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "caption", "blockquote", "pre", "form", "figure",
    "figcaption", "br", "hr", "address", "details", "summary", "fieldset", "legend", "option", "label", "button",
})  # fmt: skip
_CELLS = frozenset({"td", "th"})
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))
"""`str.translate` table dropping what shows nothing inside a word: a soft hyphen (`Kaffee&shy;maschine`, as
German headings are written), a zero-width space, a word joiner, a byte-order mark."""


def _hidden(element: lxml_html.HtmlElement) -> bool:
    tag = element.tag
    if not isinstance(tag, str) or tag in _SKIP:
        return True
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    if tag == "input" and element.get("type", "").lower() == "hidden":
        return True
    style = element.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def visible_text(tree: lxml_html.HtmlElement) -> str:
    """The page's shown text, one paragraph per block."""
    parts: list[str] = []
    walker = etree.iterwalk(tree, events=("start", "end"))
    for event, element in walker:
        hidden = _hidden(element)
        if event == "start":
            if hidden:
                walker.skip_subtree()
                continue
            if element.tag in _BLOCK:
                parts.append("\n")
            elif element.tag in _CELLS:
                parts.append(" | ")
            if element.text:
                parts.append(element.text)
        else:
            if not hidden and element.tag in _BLOCK:
                parts.append("\n")
            if element.tail and element is not tree:
                parts.append(element.tail)
    lines = (" ".join(line.split()) for line in "".join(parts).translate(INVISIBLE).split("\n"))
    return "\n\n".join(line.removeprefix("| ") for line in lines if line)
