"""One element's content as markdown: paragraphs, headings, lists, quotes, fenced code, tables.

For content already chosen (a forum post's body): there is nothing to leave out, only
structure to keep. trafilatura's converter is a content selector too and drops posts of a
rebuilt thread; markdownify does the job at ~100x the cost (BeautifulSoup). This walks the
lxml tree once.
"""

from __future__ import annotations

import re

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.tables import MAX_COLUMNS, table_row, table_rule

__all__ = ["code_text", "element_markdown", "fenced"]

_SKIP = frozenset({"script", "style", "template", "svg", "button", "select", "input", "noscript", "iframe", "head"})
_SKIP_TAGS = tuple(_SKIP)
_BLOCK = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "aside", "figure", "figcaption", "dl", "dt", "dd",
     "center", "details", "summary", "address", "form", "fieldset", "nav"}
)  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Elements that end the words before them and start a line of their own wherever they sit.
_BREAKING = _BLOCK | frozenset(_HEADINGS) | {"ul", "ol", "li", "table", "tr", "td", "th", "pre", "blockquote"}
_BREAKING_TAGS = tuple(_BREAKING)
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}
# A table's own rows, not those of tables nested in its cells (their text is in the cell: listed again, each level
# of nesting repeated all below it, 50 nested tables made 49 MB of a 1 MB post).
_OWN_ROWS = etree.XPath("descendant::tr[count(ancestor::table[1] | $table) = 1]")
_BACKTICKS = re.compile("`+")
_SPAN = re.compile(r"\s*+([0-9]{1,9})")  # nine digits: past what any span means, short of int()'s digit limit
_INTEGER = re.compile(r"\s*+([+-]?[0-9]{1,9})")
# Quotes nested deeper than this are not marked again: each mark repeats every line under it (200 nested quotes
# made 20 MB of a 0.8 MB post); forums nest quotes a few levels.
_MAX_QUOTES = 8
# Lists nested deeper than this are not indented again (forums and documents nest a few levels).
_MAX_LIST_INDENT = 8


class _Level:
    """An open inline element: how deep it sits, its emphasis marker, whether a word has shown in it yet, and the
    line breaks an emphasis without words yet holds back (they stand only if no word follows)."""

    __slots__ = ("deferred", "depth", "marker", "started")

    def __init__(self, depth: int, marker: str) -> None:
        self.depth, self.marker = depth, marker
        self.started = False
        self.deferred = 0


class _Inline:
    """An element's inline content in one pass: each element's text with spaces collapsed line by line and its
    leading and trailing spaces dropped (so its first and last word touch what is around it unless a space lies
    outside it), an emphasis with words on one line between its markers. Collapsing each element's text again
    at every level it is nested in cost the depth times the text (240 nested spans: 14 s for 4 MB)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line: list[str] = []
        self.space = False  # a space is due before the next word ...
        self.space_depth = 0  # ... from the element this deep (dropped when it ends first)
        self.levels: list[_Level] = []
        self.unstarted: int | None = None  # the outermost open element no word has shown in yet
        self.emphases: list[_Level] = []

    def result(self) -> str:
        return "\n".join([*self.lines, "".join(self.line)])

    def element(self, element: etree._Element, marker: str) -> None:
        self._enter(marker)
        self._text(element.text)
        for child in element:
            self._child(child)
            self._text(child.tail)
        self._exit()

    def _child(self, child: etree._Element) -> None:
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag or tag in _SKIP:
            return
        if tag == "br":
            self._breaks(1)
        elif tag == "code":
            text = " ".join(child.text_content().split())
            if text:
                self._word(f"`{text}`")
        elif tag in _BREAKING:  # a block (a list, a paragraph) inside inline content: never glued to its words
            self._breaks(1)
            self.element(child, "")
            self._breaks(1)
        else:
            self.element(child, _EMPHASIS.get(tag, ""))

    def _enter(self, marker: str) -> None:
        level = _Level(len(self.levels) + 1, marker)
        if self.unstarted is None:
            self.unstarted = len(self.levels)
        self.levels.append(level)
        if marker:
            self.emphases.append(level)

    def _exit(self) -> None:
        level = self.levels.pop()
        if level.marker:
            self.emphases.pop()
        if level.started:
            if self.space and self.space_depth >= level.depth:
                self.space_depth = level.depth - 1  # its trailing space: outside its marker (`**Edit:** fixed`)
            if level.marker:
                self.line.append(level.marker)
            return
        if self.unstarted == len(self.levels):
            self.unstarted = None
        if level.deferred:  # an emphasis without words keeps its line breaks
            self._breaks(level.deferred)

    def _blank(self, depth: int) -> None:
        if self.space:
            self.space_depth = min(self.space_depth, depth)
        else:
            self.space, self.space_depth = True, depth

    def _text(self, text: str | None) -> None:
        if not text:
            return
        for index, segment in enumerate(text.split("\n")):
            if index:
                self._breaks(1)
            words = segment.split()
            if not words:
                if segment and self.unstarted is None:  # leading spaces of an element are dropped
                    self._blank(len(self.levels))
                continue
            if segment[0].isspace() and self.unstarted is None:
                self._blank(len(self.levels))
            self._word(" ".join(words))
            if segment[-1].isspace():
                self._blank(len(self.levels))

    def _word(self, text: str) -> None:
        markers: list[str] = []
        if self.unstarted is not None:  # the first word of the elements opened since the last one
            for level in self.levels[self.unstarted :]:
                level.started = True
                level.deferred = 0  # an emphasis's leading line breaks are dropped
                if level.marker:
                    markers.append(level.marker)
            self.unstarted = None
        if self.space and self.line:
            self.line.append(" ")
        self.space = False
        self.line += markers
        self.line.append(text)

    def _breaks(self, count: int) -> None:
        if self.emphases:  # in an emphasis, a line break is a space (or held back until a word shows)
            level = self.emphases[-1]
            if level.started:
                self._blank(level.depth)
            else:
                level.deferred += count
            return
        self.lines.append("".join(self.line))
        self.lines.extend([""] * (count - 1))
        self.line = []
        self.space = False


def _inline(element: etree._Element) -> str:
    """The element's text with inline code and emphasis marked, spaces collapsed (line breaks kept)."""
    writer = _Inline()
    writer.element(element, "")
    return writer.result()


def _render_inline(child: etree._Element) -> str:
    tag = child.tag if isinstance(child.tag, str) else ""
    if not tag or tag in _SKIP:
        return ""
    if tag == "br":
        return "\n"
    if tag == "code":
        text = " ".join(child.text_content().split())
        return f"`{text}`" if text else ""
    writer = _Inline()
    writer.element(child, _EMPHASIS.get(tag, ""))
    return writer.result()


def code_text(pre: etree._Element) -> str:
    """A `<pre>`'s text as the page shows it: its `<br>`s are line breaks (`text_content` glued the lines)."""
    if next(pre.iter("br"), None) is None:
        return "".join(pre.itertext()).strip("\n")
    parts: list[str] = []
    for event, element in etree.iterwalk(pre, events=("start", "end")):
        if event == "start":
            parts.append("\n" if element.tag == "br" else element.text or "")
        elif element is not pre:
            parts.append(element.tail or "")
    return "".join(parts).strip("\n")


def fenced(code: str) -> str:
    """`code` as a fenced block whose fence is longer than any run of backticks in it (else it closes early)."""
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{code}\n{fence}"


def _cell_text(cell: etree._Element) -> str:
    """A cell's or a heading's words on one line, its paragraphs, lines and nested tables' cells apart
    (`text_content` glued them: `Oslo120Bergen80`), its scripts and styles left out."""
    if next(cell.iterdescendants(*_BREAKING_TAGS, "br", *_SKIP_TAGS), None) is None:
        return " ".join(cell.text_content().split())
    parts: list[str] = []
    walk = etree.iterwalk(cell, events=("start", "end"))
    for event, element in walk:
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _SKIP:
                walk.skip_subtree()
                continue
            if tag in _BREAKING or tag == "br":
                parts.append(" ")
            parts.append(element.text or "")
        else:
            if tag in _BREAKING:
                parts.append(" ")
            if element is not cell:
                parts.append(element.tail or "")
    return " ".join("".join(parts).split())


def _span(cell: etree._Element, name: str) -> int:
    """A cell's `colspan` or `rowspan` by its leading digits as browsers read it (`2px` is 2), at least 1."""
    match = _SPAN.match(cell.get(name) or "")
    return max(1, int(match.group(1))) if match else 1


def _caption(table: etree._Element) -> str:
    """A table's `<caption>` (`Table 2: tonnage by port`), its line above it: no cell holds it, and it was lost."""
    caption = next((child for child in table if child.tag == "caption"), None)
    return "" if caption is None else _cell_text(caption)


def _table(table: etree._Element) -> str:
    """The table's own rows as a markdown table, a merged cell's other places blank so every value stays in its
    column (`colspan`, `rowspan`), across the first `MAX_COLUMNS` columns: a hostile `colspan="100000"` adds no
    more than a table shows, and a row at most `MAX_COLUMNS` blanks."""
    rows: list[list[str]] = []
    above: dict[int, int] = {}  # column -> rows of this one and below that a cell above covers
    for tr in _OWN_ROWS(table, table=table):
        row: list[str] = []
        for cell in tr:
            if cell.tag not in ("td", "th"):
                continue
            while len(row) in above:
                row.append("")
            across = min(_span(cell, "colspan"), max(1, MAX_COLUMNS - len(row)))
            down = _span(cell, "rowspan")
            for offset in range(across):
                if down > 1 and len(row) < MAX_COLUMNS:
                    above[len(row)] = down
                row.append("" if offset else _cell_text(cell))
        if row:
            rows.append(row)
        above = {column: left - 1 for column, left in above.items() if left > 1}
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = [table_row(rows[0]), table_rule(width)] + [table_row(row) for row in rows[1:]]
    return "\n".join(lines)


def _integer(value: str | None, default: int) -> int:
    """An `<ol start>` or `<li value>` as browsers read it (its leading digits, a sign allowed), else `default`."""
    match = _INTEGER.match(value or "")
    return int(match.group(1)) if match else default


def _list(element: etree._Element, quotes: int, depth: int = 0) -> str:
    """A list's items as markdown lines; an item's own lists (and paragraphs, code) indented under it, to
    `_MAX_LIST_INDENT` levels (each level pads every line below it: 120 levels made 1 MB of text 20 MB)."""
    lines: list[str] = []
    step = -1 if element.get("reversed") is not None else 1
    items = sum(1 for item in element if item.tag == "li") if step < 0 else 0
    number = _integer(element.get("start"), items if step < 0 else 1) - step
    for item in element:
        if item.tag != "li":
            continue
        number = _integer(item.get("value"), number + step)
        mark = f"{number}." if element.tag == "ol" else "-"
        if next(item.iterdescendants(*_BREAKING_TAGS), None) is None:  # most items: one run of inline text
            lines.append(f"{mark} {' '.join(_inline(item).split())}")
            continue
        blocks: list[str] = []
        _blocks(item, blocks, quotes, depth + 1)
        body = "\n".join(block.strip("\n") for block in blocks if block.strip()).split("\n")
        pad = " " * (len(mark) + 1) if depth < _MAX_LIST_INDENT else ""
        lines.append(f"{mark} {body[0]}")
        lines.extend(pad + line if line else line for line in body[1:])
    return "\n".join(lines)


def _blocks(element: etree._Element, out: list[str], quotes: int = 0, lists: int = 0) -> None:
    """Append the element's blocks (markdown paragraphs) to `out`; `quotes`, `lists`: the quotes and list items
    it sits in."""
    pending: list[str] = [element.text or ""]

    def flush() -> None:
        lines = (" ".join(line.split()) for line in "".join(pending).split("\n"))
        text = "\n".join(line for line in lines if line)
        if text:
            out.append(text)
        pending.clear()

    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag or tag in _SKIP:
            pending.append(child.tail or "")
            continue
        if tag in _HEADINGS:
            flush()
            out.append("#" * _HEADINGS[tag] + " " + _cell_text(child))
        elif tag == "pre":
            flush()
            out.append(fenced(code_text(child)))
        elif tag == "table":
            flush()
            out.append(_caption(child))
            out.append(_table(child))
        elif tag in ("ul", "ol"):
            flush()
            out.append(_list(child, quotes, lists))
        elif tag == "blockquote" and quotes < _MAX_QUOTES:
            flush()
            quoted: list[str] = []
            _blocks(child, quoted, quotes + 1, lists)
            out.append("\n".join("> " + line for line in "\n\n".join(quoted).split("\n")))
        elif tag in _BLOCK or tag == "blockquote":
            flush()
            _blocks(child, out, quotes, lists)
        else:
            # the spaces at its edges stay outside its marks (`**Edit:** fixed`, not `**Edit:**fixed`)
            edges = [text for text in child.itertext() if text.strip()]
            pending += (" " if edges and edges[0][0].isspace() else "", _render_inline(child))
            pending.append(" " if edges and edges[-1][-1].isspace() else "")
        pending.append(child.tail or "")
    flush()


def element_markdown(element: etree._Element) -> str:
    """`element`'s content as markdown blocks separated by blank lines."""
    out: list[str] = []
    _blocks(element, out)
    return "\n\n".join(block.strip("\n") for block in out if block.strip())
