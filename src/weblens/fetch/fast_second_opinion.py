"""trafilatura's full cascade on a page its fast pass has just read, without running its main extractor again.

html.py reads a page with trafilatura's fast pass and, when that keeps little of the page, again
with the full cascade (readability and jusText as second opinions). Both passes begin with the
same step: the main extractor (`extract_content`) on the same cleaned tree, with options that differ
only in `fast`. `fast` changes that step's result in one place, when it falls back to the page's
loose paragraphs (`recover_wild_text` keeps teasers in a fast pass); otherwise the second pass
recomputed what the first had found, a sixth of its time (3 % of extraction time on modern pages).

`remembered()` wraps a fast pass and keeps a copy of its main extractor's result, unless the
fallback ran; `reused(kept)` wraps the full cascade, whose main extractor step then returns that
copy. Each is only the first step of a pass at the balanced focus: a recall retry runs as before.

Like the other stand-ins this is swapped in only while the code it relies on is the code it was
written against (`swap.GuardedSwap`): the whole of trafilatura's `main_extractor` module (what the
step reads of `fast`), and the functions of `core` that order the cascade's steps. It needs
`wild_text`'s counter too: without it nothing is kept, and the cascade runs whole.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from copy import deepcopy
from typing import Any

from weblens.fetch import wild_text
from weblens.fetch.swap import GuardedSwap

__all__ = [
    "DIGEST",
    "Kept",
    "extract_content",
    "install",
    "installed",
    "remembered",
    "reused",
    "source_digest",
    "stock",
]

DIGEST = "9f9f4b4c"
_MODULE = "trafilatura.core"
_STATE = threading.local()  # pages are read in worker threads too: each keeps its own


class Kept:
    """The main extractor's result in a fast pass (None when it was not kept), for the full cascade after it."""

    def __init__(self) -> None:
        self.result: tuple[Any, str] | None = None


@contextmanager
def remembered() -> Iterator[Kept]:
    """Keep the main extractor's result in the fast pass run inside (its first call at the balanced focus)."""
    kept = Kept()
    _STATE.keeping = kept
    try:
        yield kept
    finally:
        _STATE.keeping = None


@contextmanager
def reused(kept: Kept) -> Iterator[None]:
    """In the full cascade run inside, the main extractor's first call at the balanced focus returns `kept`."""
    _STATE.reusing = kept.result
    try:
        yield
    finally:
        _STATE.reusing = None


def extract_content(tree: Any, options: Any) -> tuple[Any, str]:
    """trafilatura's `extract_content`, kept from a fast pass or handed back in the cascade after it."""
    balanced = options.focus == "balanced"
    reusing = getattr(_STATE, "reusing", None)
    if reusing is not None and balanced and not options.fast:
        _STATE.reusing = None
        return reusing  # type: ignore[no-any-return]
    keeping: Kept | None = getattr(_STATE, "keeping", None)
    keep = keeping is not None and balanced and options.fast and wild_text.installed()
    before = wild_text.wild_reads()
    result: tuple[Any, str] = _SWAP.originals["extract_content"](tree, options)
    if keep and keeping is not None:
        _STATE.keeping = None  # the first call only: a recall retry's comes after
        if wild_text.wild_reads() == before:  # the fallback reads `fast`: its result is the fast pass's own
            keeping.result = (deepcopy(result[0]), result[1])
    return result


def _sources() -> list[Any]:
    core = importlib.import_module(_MODULE)
    main_extractor = importlib.import_module("trafilatura.main_extractor")
    return [main_extractor, core._extract_and_compare, core._recall_retry, core.trafilatura_sequence]


_SWAP = GuardedSwap(_MODULE, {"extract_content": lambda: extract_content}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
