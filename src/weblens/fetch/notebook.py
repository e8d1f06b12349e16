"""A Jupyter notebook (.ipynb, nbformat 4) as markdown: its markdown cells as written, code cells fenced in
the kernel's language, and their text output fenced after them (cut to `MAX_OUTPUT_CHARS`). An agent
handed a notebook link wants the prose and the code, not 200 kB of JSON with base64 plots in it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_OUTPUT_CHARS", "is_notebook", "notebook_markdown"]

MAX_OUTPUT_CHARS = 2_000
"""Text a code cell's output keeps (a training loop prints thousands of lines)."""
# A terminal's escape sequences (colours: `\x1b[31m`; titles and links: `\x1b]...\x07`), which tracebacks and
# logging write into a cell's output and Jupyter renders as colour; disjoint classes, so linear on any text.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def is_notebook(value: Any) -> bool:
    """Whether parsed JSON is a notebook: nbformat 4 (or later) with a list of cells."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("cells"), list)
        and isinstance(value.get("nbformat"), int)
        and value["nbformat"] >= 4
    )


def _text(source: Any) -> str:
    """A cell field as text: nbformat writes it as a string or as a list of lines."""
    if isinstance(source, list):
        return "".join(str(line) for line in source)
    return source if isinstance(source, str) else ""


def _fence(text: str, language: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def _output(outputs: Any) -> str:
    """A code cell's text output: streams, results and errors as text; images and HTML left out."""
    parts = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(_text(output.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data")
            if isinstance(data, dict) and "text/plain" in data:
                parts.append(_text(data["text/plain"]))
        elif kind == "error":
            parts.append(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    text = _ANSI.sub("", "\n".join(part.rstrip("\n") for part in parts if part.strip()))
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n… ({len(text) - MAX_OUTPUT_CHARS:,} more characters of output)"
    return text


def notebook_markdown(notebook: dict[str, Any]) -> tuple[str, str]:
    """(the notebook as markdown, its title: the first heading of its first markdown cell, if any)."""
    metadata = notebook.get("metadata")
    language = ""
    if isinstance(metadata, dict):
        info = metadata.get("language_info") or metadata.get("kernelspec") or {}
        language = str(info.get("name") or info.get("language") or "") if isinstance(info, dict) else ""
    language = "".join(char for char in language if char.isalnum() or char in "+-_#")[:20]
    parts, title = [], ""
    for cell in notebook["cells"]:
        if not isinstance(cell, dict):
            continue
        source = _text(cell.get("source")).strip("\n")
        if cell.get("cell_type") == "markdown" and source.strip():
            parts.append(source)
            if not title:
                heading = next((line for line in source.splitlines() if line.startswith("#")), "")
                title = heading.lstrip("#").strip()
        elif cell.get("cell_type") == "code" and source.strip():
            parts.append(_fence(source, language))
            output = _output(cell.get("outputs"))
            if output:
                parts.append(_fence(output, "text"))
        elif cell.get("cell_type") == "raw" and source.strip():
            parts.append(_fence(source))
    return "\n\n".join(parts) + ("\n" if parts else ""), title
