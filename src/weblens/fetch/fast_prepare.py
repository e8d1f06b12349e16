"""trafilatura's tree preparation without the copy its fast pass never reads.

trafilatura prepares a page by cleaning a copy of it, copying the cleaned tree again (a backup
kept unconverted for its external second opinions, readability and jusText) and converting the
first. Its fast pass runs no second opinion, and with comments off nothing else reads the backup:
weblens' fast pass, on every page, paid for a copy of the whole cleaned page each time it or its
recall retry prepared one (2 % of weblens' extraction time on both corpora, bench/stand_ins.py).
`prepare` makes that backup only when it can be read; the tree it returns in its place is the
converted one, which no caller reads in that mode.

Like `fast_xpaths`, this stands in only while the code it was written against is unchanged: the
first 32 bits of the SHA-256 of the sources of trafilatura's `_prepare_tree` and of the three
functions that decide whether the backup is read. `install` swaps it in; `stock` puts
trafilatura's own back for a while (a benchmark's baseline); both from `swap.GuardedSwap`.
"""

from __future__ import annotations

import importlib
from copy import copy
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "prepare", "source_digest", "stock"]

DIGEST = "574bf104"
_MODULE = "trafilatura.core"
# `_prepare_tree` and the functions that decide whether its backup is read
_READERS = ("_prepare_tree", "_extract_and_compare", "_recall_retry", "trafilatura_sequence")


def _core() -> Any:
    return importlib.import_module(_MODULE)


def prepare(tree: Any, options: Any, url: str | None) -> tuple[Any, Any]:
    """trafilatura's `_prepare_tree`: (the cleaned, converted tree, the cleaned tree before conversion); in
    a fast pass with comments off, where the second is never read, the first in its place."""
    if not (options.fast and not options.comments):
        prepared: tuple[Any, Any] = _SWAP.originals["_prepare_tree"](tree, options, url)
        return prepared
    core = _core()
    cleaned = core.convert_tags(core.tree_cleaning(copy(tree), options), options, url)
    return cleaned, cleaned


_SWAP = GuardedSwap(
    _MODULE, {"_prepare_tree": lambda: prepare}, lambda: [getattr(_core(), name) for name in _READERS], DIGEST
)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
