"""weblens' stand-ins swapped into trafilatura's core (`weblens.fetch.swap.GuardedSwap`): each is in exactly when
trafilatura's sources hash to the digest it was written against (so on 2.3.1), and never on another."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest
import trafilatura
from trafilatura import core, htmlprocessing, main_extractor, xml

from weblens.fetch import (
    cell_words,
    fast_escape,
    fast_html2txt,
    fast_link_density,
    fast_prepare,
    fast_printable,
    fast_second_opinion,
    orphan_formatting,
    wild_text,
)
from weblens.fetch.extract import extract
from weblens.testing.pages import article_html

_STAND_INS = [
    (fast_prepare, core, "_prepare_tree"),
    (fast_second_opinion, core, "extract_content"),
    (fast_html2txt, core, "html2txt"),
    (fast_link_density, main_extractor, "delete_by_link_density"),
    (wild_text, main_extractor, "recover_wild_text"),
    (orphan_formatting, main_extractor, "handle_formatting"),
    (cell_words, htmlprocessing, "textfilter"),
    (fast_escape, xml, "_escape_and_convert_math"),
    (fast_printable, importlib.import_module("trafilatura.baseline"), "remove_control_characters"),  # the module
]


@pytest.mark.parametrize(("stand_in", "module", "name"), _STAND_INS, ids=[name for _, _, name in _STAND_INS])
def test_it_stands_in_only_for_the_trafilatura_it_was_written_against(
    stand_in: ModuleType, module: ModuleType, name: str
) -> None:
    assert stand_in.install() == (stand_in.source_digest() == stand_in.DIGEST)
    assert stand_in.installed() == (stand_in.source_digest() == stand_in.DIGEST)
    if trafilatura.__version__ == "2.3.1":
        assert stand_in.installed()
    with stand_in.stock():
        before = getattr(module, name)
        assert not stand_in.install(digest="ffffffff")
        assert getattr(module, name) is before


def test_markdown_escaping_reads_the_same_with_its_stand_in() -> None:
    """Text with nothing to escape skips trafilatura's escaping; text with markdown syntax or a formula does not."""
    paragraphs = [
        "A plain sentence of prose that holds nothing markdown would read as syntax, written long enough to keep.",
        "Stars *like these*, snake_case_names, `ticks`, ~tildes~, [brackets] and a <tag> are the page's own text.",
        "A formula \\(a + b^2\\) inline, as a reader of the page sees it written, between words of a sentence.",
        "A block formula \\[x_{n} = [y]\\] between words and a lone bracket ] or [ kept for a reader to see.",
        "C:\\Users\\name holds backslashes and no formula at all, which trafilatura leaves as the page wrote it.",
    ]
    page = article_html("Escaping", paragraphs).encode()
    assert fast_escape.installed()
    ours = extract(page, "text/html; charset=utf-8").content
    with fast_escape.stock():
        stock = extract(page, "text/html; charset=utf-8").content
    assert ours == stock
    assert "snake\\_case" not in ours and "snake_case_names" in ours  # weblens unescapes underscores after


@pytest.mark.parametrize("control", ["", "\u2028", "\x1b"], ids=["line breaks", "a line separator", "an escape"])
def test_text_outside_paragraphs_reads_the_same_with_the_printable_stand_in(control: str) -> None:
    """trafilatura's last resort joins the lines of a page's body by line breaks and drops what is unprintable but
    for whitespace; the stand-in skips the character-by-character rebuild only when that drops nothing."""
    lines = [f"Line {i} of a page that writes its text into the body{control}, with no paragraphs." for i in range(40)]
    page = ("<html><head><title>Notes</title></head><body>" + "<br>\n".join(lines) + "</body></html>").encode()
    assert fast_printable.installed()
    ours = extract(page, "text/html; charset=utf-8").content
    with fast_printable.stock():
        stock = extract(page, "text/html; charset=utf-8").content
    assert ours == stock
    assert "Line 39 of a page" in ours
