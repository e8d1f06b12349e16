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
trafilatura's own back for a while (a benchmark's baseline).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from copy import copy
from typing import Any

__all__ = ["DIGEST", "install", "installed", "prepare", "source_digest", "stock"]

DIGEST = "574bf104"
_MODULE = "trafilatura.core"
_READERS = ("_prepare_tree", "_extract_and_compare", "_recall_retry", "trafilatura_sequence")
_original: list[Any] = []


def _core() -> Any:
    return importlib.import_module(_MODULE)


@functools.cache
def source_digest() -> str | None:
    """The first 8 hex digits of the SHA-256 of the trafilatura sources this stands in for (None without them)."""
    try:
        parts = [inspect.getsource(getattr(_core(), name)) for name in _READERS]
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]


def prepare(tree: Any, options: Any, url: str | None) -> tuple[Any, Any]:
    """trafilatura's `_prepare_tree`: (the cleaned, converted tree, the cleaned tree before conversion); in
    a fast pass with comments off, where the second is never read, the first in its place."""
    if not (options.fast and not options.comments):
        prepared: tuple[Any, Any] = _original[0](tree, options, url)
        return prepared
    core = _core()
    cleaned = core.convert_tags(core.tree_cleaning(copy(tree), options), options, url)
    return cleaned, cleaned


def install(digest: str = DIGEST) -> bool:
    """Swap `prepare` into trafilatura when its sources hash to `digest`; whether it is in."""
    if source_digest() != digest:
        return False
    core = _core()
    if not _original:
        _original.append(core._prepare_tree)
    core._prepare_tree = prepare
    return True


def installed() -> bool:
    return bool(_core()._prepare_tree is prepare)


@contextmanager
def stock() -> Iterator[None]:
    """trafilatura's own preparation for the duration (a benchmark's baseline); the stand-in after."""
    active = installed()
    if active:
        _core()._prepare_tree = _original[0]
    try:
        yield
    finally:
        if active:
            install()
