"""Progress of long work, told to whoever watches: a spinner on a terminal, an MCP client.

Library code calls `report("asking brave")` at the points a person waiting would want to
know about (which provider is being tried, bytes received); with nobody watching that
costs one context-variable lookup. A caller watches a block of work with
`watching(callback)`. The watcher lives in a context variable, so concurrent calls each
report to their own watcher and tasks started inside the block inherit it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["Progress", "Watcher", "report", "watching"]


@dataclass(frozen=True)
class Progress:
    """One step: what is happening, and how far along when that is countable."""

    message: str
    done: float | None = None
    total: float | None = None


Watcher = Callable[[Progress], None]
"""Called in the reporting task; it must not block (queue the update if it has to send it)."""

_watcher: ContextVar[Watcher | None] = ContextVar("weblens_progress_watcher", default=None)


def report(message: str, *, done: float | None = None, total: float | None = None) -> None:
    """Tell the watcher of the current work, if there is one."""
    watcher = _watcher.get()
    if watcher is not None:
        watcher(Progress(message, done, total))


@contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Send the progress of the work inside this block to `watcher`."""
    token = _watcher.set(watcher)
    try:
        yield
    finally:
        _watcher.reset(token)
