"""Table cells keep the words trafilatura drops as share buttons (`Email`, `PDF`, `Print`, `Facebook`).

trafilatura drops any text node that reads as the label of a share or print button, a filter
meant for the row of icons under an article. In a table it blanked cells: a comparison of
e-readers came back with an empty row label where the page said `PDF`, and `Support | Email |
Chat` lost its `Email`. The stand-in is trafilatura's `textfilter` that, on a table cell, drops
only a cell with no text; every other element is filtered as trafilatura filters it. A row of
share buttons laid out as a table is kept; trafilatura's pruning of share and social boxes by
their class and id still removes the usual ones.

Swapped in where trafilatura's node processing calls it, only while that filter is the code it was
written against (`swap.GuardedSwap`: its source and its pattern); on another release trafilatura's own
runs. bench/extraction.py: two modern pages change, both up; nothing else moves.
"""

from __future__ import annotations

import importlib
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "source_digest", "stock", "textfilter"]

DIGEST = "b78f1a02"
_MODULE = "trafilatura.htmlprocessing"
_CELLS = frozenset({"cell", "td", "th"})  # trafilatura's converted cell, and the page's own


def textfilter(element: Any) -> bool:
    """trafilatura's `textfilter` (whether to drop `element`'s text), which drops a table cell only when empty."""
    if element.tag in _CELLS:
        text = element.tail if element.text is None else element.text
        return not text or text.isspace()
    dropped: bool = _SWAP.originals["textfilter"](element)
    return dropped


def _sources() -> list[Any]:
    utils = importlib.import_module("trafilatura.utils")
    return [utils.textfilter, utils.RE_FILTER.pattern]


_SWAP = GuardedSwap(_MODULE, {"textfilter": lambda: textfilter}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
