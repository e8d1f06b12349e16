"""Bold, italic and link runs that sit in a `<div>` rather than a paragraph, kept as one spaced line.

trafilatura reads formatting found outside a paragraph (`<div><b>Note:</b> set it <i>first</i>
then run it</div>`) element by element: it trims each one's tail, so the space after it is lost
(`**Note:**set it`), and wraps each in a paragraph of its own, so one sentence comes back as
three (`**Note:**set it\\n\\n*first*then run it`). The stand-in is trafilatura's `handle_formatting`
with the space put back when the page had one, and with a run of such elements, side by side in
one parent, kept in the paragraph the first one opened. What is kept is what trafilatura keeps:
only spaces and paragraph breaks change.

Swapped in only while trafilatura's function and the node processing it calls are the code it was
written against (`swap.GuardedSwap`); on another release trafilatura's own runs.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "forget", "handle_formatting", "install", "installed", "source_digest", "stock"]

DIGEST = "e7d8a4d9"
_MODULE = "trafilatura.main_extractor"
# the paragraph the last orphan run opened, and the source element right after that run, per thread
_LAST = threading.local()


def _gaps(element: Any) -> tuple[bool, bool]:
    """Whether the page shows a space right after `element`'s text, and one after all it holds (its tail)."""
    text, tail = element.text or "", element.tail or ""
    after_text = tail[:1].isspace() or text[-1:].isspace()
    return after_text, (tail[-1:].isspace() if tail.strip() else after_text)


def handle_formatting(element: Any, options: Any) -> Any:
    """trafilatura's `handle_formatting`, spaces kept and a run of orphans kept in one paragraph."""
    following, (after_text, at_end), before = element.getnext(), _gaps(element), (element.text or "")[:1].isspace()
    handled = _SWAP.originals["handle_formatting"](element, options)
    run, _LAST.run = getattr(_LAST, "run", None), None
    if handled is None:
        return None
    if after_text and element.tail and not element.tail[0].isspace():
        element.tail = " " + element.tail
    if handled is element:  # inside a paragraph, a heading or a cell: trafilatura keeps it where it is
        return handled
    _LAST.run = (handled, following, at_end)
    if run is None:
        return handled
    paragraph, expected, spaced = run
    holder = paragraph.getparent()
    if element is not expected or holder is None or holder[-1] is not paragraph:
        return handled
    if spaced or before:
        paragraph[-1].tail = (paragraph[-1].tail or "") + " "
    paragraph.append(element)  # out of the paragraph trafilatura opened for it, which is left unused
    _LAST.run = (paragraph, following, at_end)
    return None


def forget() -> None:
    """Drop this thread's run (it holds the page's elements) once a page is read."""
    _LAST.run = None


def _sources() -> list[Any]:
    module = importlib.import_module(_MODULE)
    return [_SWAP.originals.get("handle_formatting", module.handle_formatting), module.process_node]


_SWAP = GuardedSwap(_MODULE, {"handle_formatting": lambda: handle_formatting}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
