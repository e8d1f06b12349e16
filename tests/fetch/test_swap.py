"""weblens' stand-ins swapped into trafilatura's core (`weblens.fetch.swap.GuardedSwap`): each is in exactly when
trafilatura's sources hash to the digest it was written against (so on 2.3.1), and never on another."""

from __future__ import annotations

from types import ModuleType

import pytest
import trafilatura
from trafilatura import core, htmlprocessing, main_extractor

from weblens.fetch import (
    cell_words,
    fast_html2txt,
    fast_link_density,
    fast_prepare,
    fast_second_opinion,
    orphan_formatting,
    wild_text,
)

_STAND_INS = [
    (fast_prepare, core, "_prepare_tree"),
    (fast_second_opinion, core, "extract_content"),
    (fast_html2txt, core, "html2txt"),
    (fast_link_density, main_extractor, "delete_by_link_density"),
    (wild_text, main_extractor, "recover_wild_text"),
    (orphan_formatting, main_extractor, "handle_formatting"),
    (cell_words, htmlprocessing, "textfilter"),
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
