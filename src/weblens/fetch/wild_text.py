"""Whether trafilatura's main pass found no article block and read the page's loose paragraphs instead.

trafilatura looks for a page's article block with a list of XPath expressions. When none holds
enough text, it falls back to `recover_wild_text`. That reads the page's paragraphs, quotes,
code and tables wherever they sit, and leaves out the headings and lists between them: a Webflow
post in `div.blog_content` loses every `<h3>` and its TL;DR list. html.py fills those gaps
(`sections.fill_gaps`) after such a pass.

The stand-in is trafilatura's own function, counted: `wild_reads()` is how many times it has run
in this thread. It is swapped in only while trafilatura's code for deciding when to call it is the
code it was written against (`swap.GuardedSwap`, over `extract_content` and the function). On
another release `wild_reads()` stays 0 and pages are read as before.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "install", "installed", "recover_wild_text", "source_digest", "stock", "wild_reads"]

DIGEST = "0b7886d8"
_MODULE = "trafilatura.main_extractor"
_COUNT = threading.local()  # extraction runs in worker threads too: each counts its own passes


def wild_reads() -> int:
    """How many times trafilatura has read a page's loose paragraphs (found no article block) in this thread."""
    count: int = getattr(_COUNT, "reads", 0)
    return count


def recover_wild_text(*args: Any, **kwargs: Any) -> Any:
    """trafilatura's `recover_wild_text`, counted."""
    _COUNT.reads = wild_reads() + 1
    return _SWAP.originals["recover_wild_text"](*args, **kwargs)


def _sources() -> list[Any]:
    module = importlib.import_module(_MODULE)
    return [module.extract_content, _SWAP.originals.get("recover_wild_text", module.recover_wild_text)]


_SWAP = GuardedSwap(_MODULE, {"recover_wild_text": lambda: recover_wild_text}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
