"""One element's content as markdown: paragraphs, headings, lists, quotes, fenced code, tables.

For content already chosen (a forum post's body): there is nothing to leave out, only
structure to keep. trafilatura's converter is a content selector too and drops posts of a
rebuilt thread; markdownify does the job at ~100x the cost (BeautifulSoup). This walks the
lxml tree once.
"""

from __future__ import annotations

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.tables import table_row, table_rule

__all__ = ["element_markdown"]

_SKIP = frozenset({"script", "style", "template", "svg", "button", "select", "input", "noscript", "iframe", "head"})
_BLOCK = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "aside", "figure", "figcaption", "dl", "dt", "dd",
     "center", "details", "summary", "address", "form", "fieldset", "nav"}
)  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}


def _inline(element: etree._Element) -> str:
    """The element's text with inline code and emphasis marked, spaces collapsed (line breaks kept)."""
    parts: list[str] = [element.text or ""]
    for child in element:
        parts.append(_render_inline(child))
        parts.append(child.tail or "")
    return "\n".join(" ".join(line.split()) for line in "".join(parts).split("\n"))


def _render_inline(child: etree._Element) -> str:
    tag = child.tag if isinstance(child.tag, str) else ""
    if not tag or tag in _SKIP:
        return ""
    if tag == "br":
        return "\n"
    if tag == "code":
        text = " ".join(child.text_content().split())
        return f"`{text}`" if text else ""
    text = _inline(child)
    if tag in _EMPHASIS and text.strip():
        return f"{_EMPHASIS[tag]}{' '.join(text.split())}{_EMPHASIS[tag]}"
    return text


def _table(table: etree._Element) -> str:
    rows = [
        [" ".join(cell.text_content().split()) for cell in row if cell.tag in ("td", "th")] for row in table.iter("tr")
    ]
    rows = [row for row in rows if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = [table_row(rows[0]), table_rule(width)] + [table_row(row) for row in rows[1:]]
    return "\n".join(lines)


def _blocks(element: etree._Element, out: list[str], depth: int = 0) -> None:
    """Append the element's blocks (markdown paragraphs) to `out`."""
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
            out.append("#" * _HEADINGS[tag] + " " + " ".join(child.text_content().split()))
        elif tag == "pre":
            flush()
            out.append("```\n" + child.text_content().strip("\n") + "\n```")
        elif tag == "table":
            flush()
            out.append(_table(child))
        elif tag in ("ul", "ol"):
            flush()
            items = [li for li in child if li.tag == "li"]
            marks = [f"{n}." for n in range(1, len(items) + 1)] if tag == "ol" else ["-"] * len(items)
            lines = (f"{'  ' * depth}{m} {' '.join(_inline(li).split())}" for m, li in zip(marks, items, strict=True))
            out.append("\n".join(lines))
        elif tag == "blockquote":
            flush()
            quoted: list[str] = []
            _blocks(child, quoted, depth)
            out.append("\n".join("> " + line for line in "\n\n".join(quoted).split("\n")))
        elif tag in _BLOCK:
            flush()
            _blocks(child, out, depth)
        else:
            pending.append(_render_inline(child))
        pending.append(child.tail or "")
    flush()


def element_markdown(element: etree._Element) -> str:
    """`element`'s content as markdown blocks separated by blank lines."""
    out: list[str] = []
    _blocks(element, out)
    return "\n\n".join(block.strip("\n") for block in out if block.strip())
