"""Generated pages on which weblens' own extraction code used to take time or memory growing faster than the
page (issue 23: bad input never hangs). Each input is sized so the old code takes minutes (pytest-timeout turns
that into a failure) while the fixed one reads it in well under a second; the assertions are on what the
reader gets, never on a clock. bench/hostile_html.py measures these shapes and more beside trafilatura.
"""

from __future__ import annotations

import pytest

from weblens.fetch.extract import extract

pytestmark = pytest.mark.timeout(30)

_HTML = "text/html; charset=utf-8"


def _page(body: str) -> bytes:
    return f"<!DOCTYPE html><html><head><title>Hostile</title></head><body>{body}</body></html>".encode()


def test_a_page_of_many_main_elements_reads_every_one() -> None:
    # main_region asked a list whether each <main>'s ancestors were in it: 100 000 x 100 000 comparisons
    count = 100_000
    out = extract(_page("".join(f"<main>w{i}</main>" for i in range(count))), _HTML)
    assert out.extractor == "page-text"
    assert out.content.split() == [f"w{i}" for i in range(count)]
