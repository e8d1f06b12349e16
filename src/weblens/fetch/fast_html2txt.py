"""trafilatura's measure of a whole page's text (`html2txt`), read without copying the page.

When trafilatura's main pass keeps under 3 000 characters, it measures the page's whole text to decide
whether to retry for recall: `html2txt` copies the page, deletes its asides, footers, scripts and
cookie boxes (`BASIC_CLEAN_XPATH`), writes a space into the text and tail of every block element and
reads the text that is left. That was 9 % of weblens' extraction time on the 2019 articles and 4 % on
modern pages (it runs on about half the articles, in the fast pass and again in the second opinion).
`page_text` returns the same string from the page as it is: one walk skips what the same selection
would delete (asking fast_xpaths' stand-in element by element, where it is in: no walk of its own) and
reads the rest, spacing block elements and joining a deleted element's tail to the text before it, as
trafilatura's deletion does; the copy, the deletions and the writes are gone. Unprintable characters go
as `fast_printable` takes them out, without `remove_control_characters`' rebuild. bench/stand_ins.py:
1.9x html2txt's speed on the 2019 articles, 1.6x on modern pages.

Like the other stand-ins it is swapped in (into `trafilatura.core`, the one caller) only while the code
it was written against is unchanged: the first 32 bits of the SHA-256 of `html2txt`, the cleaning,
spacing and deletion it does, and its list of block tags (`swap.GuardedSwap`). `stock` puts
trafilatura's own back for a while (a benchmark's baseline). Anything but an element of a tree lxml's
HTML parser made (a string, an XHTML tree) goes to trafilatura's own.
"""

from __future__ import annotations

import importlib
from typing import Any

from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.fetch import fast_printable, fast_xpaths
from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "page_text", "source_digest", "stock"]

DIGEST = "b75d6c0d"
_MODULE = "trafilatura.core"


def _baseline() -> Any:
    return importlib.import_module("trafilatura.baseline")


def _sources() -> list[Any]:
    baseline, xml, utils = (importlib.import_module(f"trafilatura.{name}") for name in ("baseline", "xml", "utils"))
    return [
        baseline.html2txt, baseline.basic_cleaning, baseline._spaced_text, xml.delete_element, utils.load_html,
        utils.remove_control_characters, repr(sorted(baseline._BLOCK_ELEMS)),
    ]  # fmt: skip


def page_text(content: Any, clean: bool = True) -> str:
    """trafilatura's `html2txt(content, clean)`: the page's text without asides, footers, scripts and cookie
    boxes, block elements spaced, whitespace collapsed; `content` is left as it is."""
    html = isinstance(content, lxml_html.HtmlElement) and isinstance(content.getroottree().parser, etree.HTMLParser)
    if not (clean and html):
        return str(_baseline().html2txt(content, clean))  # trafilatura's own (only its core's name is swapped)
    baseline = _baseline()
    body = content.find(".//body")
    if body is None:
        body = content
    selection = baseline.BASIC_CLEAN_XPATH  # what `basic_cleaning` deletes (its stand-in, if in)
    deleted = fast_xpaths.element_test(selection)  # the stand-in's test, element by element, in this walk
    if deleted is None:
        deleted = set(selection(body)).__contains__
    blocks, printable = baseline._BLOCK_ELEMS, fast_printable.remove_control_characters
    parts: list[str] = []
    skipped: set[Any] = set()
    walk = etree.iterwalk(body, events=("start", "end", "comment", "pi"))
    for event, element in walk:
        if event == "start":
            if element is not body and deleted(element):
                skipped.add(element)
                walk.skip_subtree()
                continue
            text = element.text
            if element.tag in blocks:
                parts.append(f" {printable(text)}" if text else " ")  # as `_spaced_text` writes it
            elif text:
                parts.append(text)
            continue
        if element is body:
            continue  # "end" of the root: its tail is not its text
        tail = element.tail
        if element in skipped:
            if tail:  # it joins the text before it: the previous kept sibling's tail, or the parent's text
                before = element.getprevious()
                while before is not None and deleted(before):
                    before = before.getprevious()
                joined = element.getparent() if before is None else before
                parts.append(printable(tail) if joined.tag in blocks else tail)
        elif element.tag in blocks:
            parts.append(f" {printable(tail)}" if tail else " ")
        elif tail:
            parts.append(tail)
    return " ".join("".join(parts).split())


_SWAP = GuardedSwap(_MODULE, {"html2txt": lambda: page_text}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
