"""Every search guarantee against every provider adapter (through their fakes), and the docs' copy of the table."""

from __future__ import annotations

from pathlib import Path

from weblens.testing.conformance import render_markdown, run_conformance

PAGE = Path(__file__).parent.parent.parent / "docs" / "search.md"


async def test_every_guarantee_holds_for_every_provider_and_the_docs_show_the_table() -> None:
    table = await run_conformance()
    violated = [(g, p, cell) for g, cells in table.items() for p, (cell, ok) in cells.items() if not ok]
    assert violated == []
    assert render_markdown(table) in PAGE.read_text(), "docs/search.md's table is stale: bench/conformance.py"
