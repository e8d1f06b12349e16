"""weblens' stand-ins swapped into trafilatura's core (`weblens.fetch.swap.GuardedSwap`): each is in exactly when
trafilatura's sources hash to the digest it was written against (so on 2.3.1), and never on another."""

from __future__ import annotations

from types import ModuleType

import pytest
import trafilatura
from trafilatura import core

from weblens.fetch import fast_html2txt, fast_prepare

_STAND_INS = [(fast_prepare, "_prepare_tree"), (fast_html2txt, "html2txt")]


@pytest.mark.parametrize(("stand_in", "name"), _STAND_INS, ids=[name for _, name in _STAND_INS])
def test_it_stands_in_only_for_the_trafilatura_it_was_written_against(stand_in: ModuleType, name: str) -> None:
    assert stand_in.install() == (stand_in.source_digest() == stand_in.DIGEST)
    assert stand_in.installed() == (stand_in.source_digest() == stand_in.DIGEST)
    if trafilatura.__version__ == "2.3.1":
        assert stand_in.installed()
    with stand_in.stock():
        before = getattr(core, name)
        assert not stand_in.install(digest="ffffffff")
        assert getattr(core, name) is before
