"""A page's own text as markdown, for pages whose main content is the page itself (a listing, a grid).

One linear walk of the lxml tree. Every text node stays a separate word run (on real pages
`<span>`s and `<a>`s are laid out as blocks, so gluing adjacent inline text would merge
words; only punctuation is read onto the word it touches), a block element starts a new
line, and the structure a reader needs is kept: headings as `#` lines, list items as `-`
lines, code as fenced blocks, and data tables
(cells without paragraphs, lists or tables in them) as markdown tables with a header row.
A table used for layout is read as the blocks it holds.
"""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.markdown import code_text, fenced
from weblens.fetch.tables import table_row, table_rule

__all__ = ["Line", "lines_markdown", "main_region", "page_lines", "text_before"]

# A line of the page text and its kind: "p" (a block of text), "h" (a heading), "li" (a list item), "row" (a
# table's row, or the rule under its header) or "pre" (a fenced code block).
Line = tuple[str, str]

_BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote",
     "dd", "dt", "td", "th", "figcaption", "br", "table", "ul", "ol", "dl"}
)  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Inside a cell of a data table none of these appear; one of them makes the table a layout.
_LAYOUT = etree.XPath(
    ".//*[self::table or self::p or self::div or self::ul or self::ol or self::pre or self::h1 "
    "or self::h2 or self::h3 or self::h4 or self::h5 or self::h6 or self::blockquote][1]"
)
# The page's own main region (HTML's `<main>`, ARIA's role=main) stands for the page text when it holds at least
# this share of its words. bench/extraction.py, where the page text is chosen: listings +0.004 F1, collections
# +0.004, products +0.001, no page type or fold lower on either corpus.
_MAIN_SHARE = 0.5
_ROLE_MAIN = etree.XPath("descendant::*[@role='main']")
# Line kinds that follow each other without a blank line (a list's items, a table's rows).
_RUNS = frozenset({"li", "row"})
_LIST_TAGS = frozenset({"ul", "ol", "li"})
_MAX_LIST_INDENT = 8
# Punctuation that closes the words before it, and brackets that open the words after: where two text nodes
# meet with no space between them (`<b>Note</b>: read`, `word<sup>1</sup>, next`, `(<a>link</a>)`), the
# punctuation is read onto its word instead of standing apart. Words themselves are never joined.
_CLOSES = frozenset(",.;:!?)]}%")
_OPENS = frozenset("([{")
# Elements that format text inside a word and are never laid out as blocks: text touching across their edges is
# one word (`H<sub>2</sub>O`, `95<sup>th</sup>`, `<b>W</b>ord`). A `<wbr>` stays a break: the modern pages'
# reference text splits API names there (`balance_<wbr>transaction`), and gluing them cost a documentation
# page 0.07 F1 (bench/extraction.py).
_IN_WORD = frozenset({"b", "strong", "i", "em", "u", "s", "sup", "sub", "small", "mark", "abbr", "ins", "del"})


class _Writer:
    """Collects the walk's words into markdown lines, each with its kind."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        # the current line's text in pieces, joined once at its end: a word and the punctuation read onto it
        # stay separate pieces (gluing them onto one string copied it for each: quadratic on `a<b></b>,` x N)
        self.parts: list[str] = []
        self.prefix, self.kind = "", "p"
        self.count = 0
        self.touching = False  # the last text added ended without a space
        self.joined = False  # the next text meets the last across the edge of an element inside a word

    def flush(self) -> None:
        if self.parts:
            self.lines.append((self.kind, self.prefix + self.text()))
        self.prefix, self.kind = "", "p"
        self.touching = False

    def start(self, kind: str, prefix: str) -> None:
        self.flush()
        self.kind, self.prefix = kind, prefix

    def text(self) -> str:
        """The words added since the last line ended, as one line (and a fresh start)."""
        text = "".join(self.parts)
        self.parts = []
        return text

    def code(self, text: str) -> None:
        """Inline code as one token in backticks (more of them around code holding one), read onto the text it
        touches."""
        if text:
            self.count += len(text.split())
            ticks = "``" if "`" in text else "`"
            if self.parts and not (self.touching and self.joined):
                self.parts.append(" ")
            self.parts.append(f"{ticks}{text}{ticks}" if ticks == "`" else f"{ticks} {text} {ticks}")
            self.touching = True
        self.joined = False

    def add(self, text: str | None) -> None:
        if text:
            words = text.split()
            self.count += len(words)
            parts = self.parts
            touching = words and parts and self.touching and not text[0].isspace()
            if touching and (self.joined or text[0] in _CLOSES or parts[-1][-1] in _OPENS):
                parts.append(words.pop(0))  # read onto the word before it: no space
            if words:
                if parts:
                    parts.append(" ")
                parts.append(" ".join(words))
            self.touching = not text[-1].isspace()
        self.joined = False


def lines_markdown(lines: Iterable[Line]) -> str:
    """The lines as markdown: a blank line between blocks, none inside a list or a table."""
    out: list[str] = []
    last = ""
    for kind, line in lines:
        if out:
            out.append("\n" if kind == last and kind in _RUNS else "\n\n")
        out.append(line)
        last = kind
    return "".join(out)


class _Table:
    """A data table being written: its rows' cells, the header separator after the first row."""

    def __init__(self) -> None:
        self.rows = 0
        self.cells: list[str] = []

    def end_row(self, writer: _Writer) -> None:
        if self.cells:
            writer.lines.append(("row", table_row(self.cells)))
            if self.rows == 0:
                writer.lines.append(("row", table_rule(len(self.cells))))
            self.rows += 1
        self.cells = []


class _Lists:
    """The lists open around the walk: each item's mark (`- `, or `N. ` in an ordered list, from its `start`),
    indented under the item it is nested in, as markdown nests lists."""

    def __init__(self) -> None:
        self.open_lists: list[tuple[etree._Element, str, list[int]]] = []  # (list, its indent, its next number)
        self.items: list[tuple[etree._Element, str]] = []  # (item, the indent of what is nested in it)

    def open(self, element: etree._Element) -> None:
        start = element.get("start", "1") if element.tag == "ol" else ""
        number = [int(start) if start.isdigit() and len(start) < 9 else 1]
        self.open_lists.append((element, self.items[-1][1] if self.items else "", number))

    def item(self, element: etree._Element) -> str:
        indent, mark = "", "- "
        if self.open_lists and self.open_lists[-1][0] is element.getparent():
            parent, indent, number = self.open_lists[-1]
            if parent.tag == "ol":
                mark = f"{number[0]}. "
                number[0] += 1
        deeper = indent + " " * len(mark) if len(self.items) < _MAX_LIST_INDENT else indent  # no pad past a few levels
        self.items.append((element, deeper))
        return indent + mark

    def close(self, element: etree._Element) -> None:
        if self.items and self.items[-1][0] is element:
            self.items.pop()
        elif self.open_lists and self.open_lists[-1][0] is element:
            self.open_lists.pop()


def page_lines(root: etree._Element) -> tuple[list[Line], int]:
    """The text under `root` as markdown lines (a line per block, `#` headings, `-` items, fenced code, table
    rows) and how many words of the page's own it holds (the markers not counted)."""
    writer = _Writer()
    lists = _Lists()
    tables: list[_Table] = []  # the data tables open around the walk, innermost last
    walk = etree.iterwalk(root, events=("start", "end"))
    for event, element in walk:
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if event == "start":
            if tag == "code":  # inline code (a `<pre>`'s is read whole below): one marked token, like trafilatura's
                writer.joined = _follows_text(element)
                writer.code(" ".join(element.text_content().split()))
                walk.skip_subtree()
                _tail(writer, element, root, joined=True)  # `Queue`'s
                continue
            if tables and tag == "tr":
                writer.flush()  # a caption, or text between rows, stays a line of its own
            elif tables and tag not in ("td", "th"):
                writer.joined = _in_word(element) and _follows_text(element)  # `CO<sub>2</sub>` in a cell too
                writer.add(element.text)
                continue
            elif tag == "table" and _LAYOUT(element) == []:
                writer.flush()
                tables.append(_Table())
            elif tag == "pre":
                writer.flush()
                code = code_text(element)
                if code.strip():
                    writer.count += sum(len(text.split()) for text in element.itertext())  # as text nodes
                    writer.lines.append(("pre", fenced(code)))
                walk.skip_subtree()
                _tail(writer, element, root)
                continue
            elif tag in _HEADINGS:
                writer.start("h", "#" * _HEADINGS[tag] + " ")
            elif tag in ("ul", "ol"):
                writer.flush()
                lists.open(element)
            elif tag == "li":
                writer.start("li", lists.item(element))
            elif tag in _BLOCKS:
                writer.flush()
            writer.joined = _in_word(element) and _follows_text(element)
            writer.add(element.text)
            continue
        if tag in ("pre", "code"):
            continue
        if tables:
            table = tables[-1]
            if tag in ("td", "th"):
                table.cells.append(writer.text())
            elif tag == "tr":
                table.end_row(writer)
            elif tag == "table":
                table.end_row(writer)
                tables.pop()
                writer.flush()
        elif tag in _BLOCKS:
            writer.flush()
        if tag in _LIST_TAGS:
            lists.close(element)
        _tail(writer, element, root)
    writer.flush()
    return writer.lines, writer.count


def _in_word(element: etree._Element) -> bool:
    """Whether `element` formats text in a word: a plain `<b>` or `<sup>`; one with a class may be styled as a
    badge or an icon (`<i class="a-icon">#1 Best Seller</i>Happiness`) and stays apart."""
    return element.tag in _IN_WORD and not element.get("class")


def text_before(element: etree._Element) -> str:
    """The text of `element`'s own parent that runs right up to it (its parent's text, or the tail of the sibling
    before it); empty after the end of another element."""
    before = element.getprevious()
    return (before.tail if before is not None else element.getparent().text) or ""


def _follows_text(element: etree._Element) -> bool:
    """Whether text of `element`'s own parent runs right up to it (`H<sub>`), not the end of another element (a
    badge's `<span>` before it, laid out as a block of its own)."""
    text = text_before(element)
    return bool(text) and not text[-1].isspace()


def _tail(writer: _Writer, element: etree._Element, root: etree._Element, *, joined: bool = False) -> None:
    if element is not root:
        writer.joined = joined or _in_word(element)
        writer.add(element.tail)


def _word_count(root: etree._Element) -> int:
    return len(" ".join(root.itertext()).split())  # one split in C: a text node never shares a word with the next


def main_region(root: etree._Element) -> tuple[etree._Element, int]:
    """The page's one main region when it holds most of the text under `root` (else `root`), and that text's
    word count: a site's own mark for its content, which leaves out what the walk cannot tell from content
    (a site-wide banner, a newsletter box, a list of other pages)."""
    words = _word_count(root)
    found = list(root.iter("main")) or _ROLE_MAIN(root)
    marked = set(found)  # a set: a list's `in` made a page of 16 000 <main>s take seconds (quadratic)
    outermost = [element for element in found if not any(above in marked for above in element.iterancestors())]
    if len(outermost) == 1 and (region := _word_count(outermost[0])) >= _MAIN_SHARE * words:
        return outermost[0], region  # the region's own count: what the main-content pass is measured against
    return root, words
