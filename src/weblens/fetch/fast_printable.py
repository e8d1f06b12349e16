"""trafilatura's removal of unprintable characters, done in C.

`remove_control_characters` returns a text as it is when every character is printable, and otherwise rebuilds it
character by character in Python, keeping the printable ones and whitespace. A text with line breaks is never all
printable, so trafilatura's last resort on a page whose text sits outside any paragraph (its baseline: the body's
lines, joined by line breaks) rebuilt the whole page a character at a time: 150 ms on a page of 1.5 MB, three
times trafilatura's own read of it. The stand-in asks only the distinct characters the text holds, and takes each
one to drop out with `str.replace`: the same text.

Swapped into trafilatura's `baseline` module (the caller that hands it whole pages) only while the function is
the code it was written against (`swap.GuardedSwap`); on another release trafilatura's own runs.
"""

from __future__ import annotations

import importlib
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "remove_control_characters", "source_digest", "stock"]

DIGEST = "c41fe289"
_MODULE = "trafilatura.baseline"


def remove_control_characters(string: str) -> str:
    """trafilatura's `remove_control_characters`: `string` without what is neither printable nor whitespace, each
    such character found among the distinct characters `string` holds and taken out with one `str.replace`."""
    if string.isprintable() or string.replace("\n", "").isprintable():  # most text, and lines joined by breaks
        return string
    for character in [c for c in set(string) if not (c.isprintable() or c.isspace())]:
        string = string.replace(character, "")
    return string


def _sources() -> list[Any]:
    utils = importlib.import_module("trafilatura.utils")
    return [utils.remove_control_characters, utils.return_printables_and_spaces]


_SWAP = GuardedSwap(_MODULE, {"remove_control_characters": lambda: remove_control_characters}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
