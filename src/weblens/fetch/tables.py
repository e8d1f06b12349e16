"""Give every markdown table trafilatura writes a header row, so it renders (and reads) as a table.

trafilatura writes the `|---|` line only under a first row of `<th>` cells; a table without
header cells (common in documentation: a list of options and what they do) comes out as
bare `| a | b |` lines, which markdown shows as a paragraph of pipes. Its first row is taken
as the header, as GitHub does for a pasted table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MAX_COLUMNS", "add_table_headers", "table_row", "table_rule"]

MAX_COLUMNS = 50
"""Columns of a table a document's reader shows, and across which a merged cell's places are kept blank."""

# A table row as trafilatura writes it: starts with `|`; a separator row holds only pipes, dashes, colons, spaces.
_SEPARATOR = re.compile(r"\|(?:\s*:?-+:?\s*\|)+\s*")
_PIPE = re.compile(r"(?<!\\)\|")


def table_row(cells: Sequence[str]) -> str:
    """One markdown table row; a `|` inside a cell is escaped so it stays in its cell."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def table_rule(width: int) -> str:
    """The line under a header row of `width` cells."""
    return "|" + "---|" * width


def _cells(row: str) -> int:
    return max(len(_PIPE.findall(row.strip())) - 1, 1)


def add_table_headers(text: str) -> str:
    """`text` with a `|---|` line under the first row of each table that has none and no trailing spaces
    on its rows (code blocks left alone)."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("|"):
            out.append(line)
            continue
        out.append(line.rstrip())  # trafilatura ends each row with a space
        if _SEPARATOR.fullmatch(line):
            continue
        first = index == 0 or not lines[index - 1].startswith("|")
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if first and not _SEPARATOR.fullmatch(following):
            out.append(table_rule(_cells(line)))
    return "\n".join(out)
