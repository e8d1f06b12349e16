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
written against (`swap.GuardedSwap`): the whole of trafilatura's `main_extractor`, `htmlprocessing`
and `utils` modules (the step and what it calls, where `fast` could be read) and the functions of
`core` that order the cascade's steps. It needs `wild_text`'s counter too: without it nothing is
kept, and the cascade runs whole. A pass that deduplicates (`deduplicate=True`, which weblens
never asks for) reads and writes trafilatura's record of texts seen: nothing is kept or reused.
The kept result is handed back once, and only to a cascade over the same address.
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

DIGEST = "058cdd0e"
_MODULE = "trafilatura.core"
_STATE = threading.local()  # pages are read in worker threads too: each keeps its own


class Kept:
    """The main extractor's result in a fast pass (None when it was not kept) and the address of the page it
    read, for the full cascade after it."""

    def __init__(self) -> None:
        self.result: tuple[Any, str] | None = None
        self.url: str | None = None

    def take(self, url: str | None) -> tuple[Any, str] | None:
        """The result, once, when it was kept from a pass over the page at `url`."""
        result, self.result = self.result, None
        return result if url == self.url else None


@contextmanager
def remembered() -> Iterator[Kept]:
    """Keep the main extractor's result in the fast pass run inside (its first call at the balanced focus)."""
    kept, outer = Kept(), getattr(_STATE, "keeping", None)
    try:
        _STATE.keeping = kept
        yield kept
    finally:
        _STATE.keeping = outer


@contextmanager
def reused(kept: Kept) -> Iterator[None]:
    """In the full cascade run inside, the main extractor's first call at the balanced focus returns `kept`'s
    result (handed over: it is not handed twice)."""
    outer = getattr(_STATE, "reusing", None)
    try:
        _STATE.reusing = kept
        yield
    finally:
        _STATE.reusing = outer


def extract_content(tree: Any, options: Any) -> tuple[Any, str]:
    """trafilatura's `extract_content`, kept from a fast pass or handed back in the cascade after it."""
    # a pass deduplicating against the texts seen before reads trafilatura's shared record: never kept or reused
    balanced = options.focus == "balanced" and not options.dedup
    reusing: Kept | None = getattr(_STATE, "reusing", None)
    if reusing is not None and balanced and not options.fast:
        _STATE.reusing = None
        result = reusing.take(options.url)
        if result is not None:
            return result
    keeping: Kept | None = getattr(_STATE, "keeping", None)
    keep = keeping is not None and balanced and options.fast and wild_text.installed()
    before = wild_text.wild_reads()
    result = _SWAP.originals["extract_content"](tree, options)
    if keep and keeping is not None:
        _STATE.keeping = None  # the first call only: a recall retry's comes after
        if wild_text.wild_reads() == before:  # the fallback reads `fast`: its result is the fast pass's own
            keeping.result, keeping.url = (deepcopy(result[0]), result[1]), options.url
    return result  # type: ignore[no-any-return]


def _sources() -> list[Any]:
    core = importlib.import_module(_MODULE)
    # the step's own code and what it calls (where `fast` could be read), and the cascade's order of steps
    steps = [importlib.import_module(f"trafilatura.{name}") for name in ("main_extractor", "htmlprocessing", "utils")]
    return [*steps, core._extract_and_compare, core._recall_retry, core.trafilatura_sequence]


_SWAP = GuardedSwap(_MODULE, {"extract_content": lambda: extract_content}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
