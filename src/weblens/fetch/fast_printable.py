"""trafilatura's removal of unprintable characters, told in C when only whitespace is unprintable.

`remove_control_characters` returns a text as it is when every character is printable, and otherwise rebuilds it
character by character, keeping the printable ones and whitespace. A text with line breaks is never all printable,
so trafilatura's last resort on a page whose text sits outside any paragraph (its baseline: the body's lines,
joined by line breaks) rebuilt the whole page a character at a time: 140 ms on a page of 1.5 MB, three times
trafilatura's own read of it. When every character but whitespace is printable that rebuild returns the text as
it is; the stand-in says so without it.

Swapped into trafilatura's `baseline` module (the caller that hands it whole pages) only while the function is
the code it was written against (`swap.GuardedSwap`); on another release trafilatura's own runs.
"""

from __future__ import annotations

import importlib
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "remove_control_characters", "source_digest", "stock", "unchanged"]

DIGEST = "c41fe289"
_MODULE = "trafilatura.baseline"


def unchanged(text: str) -> bool:
    """Whether trafilatura's `remove_control_characters` returns `text` as it is: nothing but whitespace in it
    is unprintable (asked first of the text without its line breaks, in C)."""
    return text.isprintable() or text.replace("\n", "").isprintable() or "".join(text.split()).isprintable()


def remove_control_characters(string: str) -> str:
    """trafilatura's `remove_control_characters`, without the rebuild when it would change nothing."""
    if unchanged(string):
        return string
    return str(_SWAP.originals["remove_control_characters"](string))


def _sources() -> list[Any]:
    utils = importlib.import_module("trafilatura.utils")
    return [utils.remove_control_characters, utils.return_printables_and_spaces]


_SWAP = GuardedSwap(_MODULE, {"remove_control_characters": lambda: remove_control_characters}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
