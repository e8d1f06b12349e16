"""Parts that live as long as one event loop: what one-off calls (`weblens.search(q)`,
`weblens.fetch(url)`, `weblens.get_weather(place)`) share.

A one-off call that built its own client, cache and workers per call made
`asyncio.gather(*(weblens.search(q) for q in queries))` pay for 100 clients. Here each part
is built on first use in a running loop and kept for that loop only (a client's connections
belong to their loop, so a part is never shared across loops). When the loop shuts down
(`asyncio.run`, `asyncio.Runner` and pytest-asyncio call `loop.shutdown_asyncgens()`), a
keeper async generator the loop tracks is closed and closes the parts, newest first.
An explicit `Runtime` (or router, fetcher, client) stays the way to control their life.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncGenerator, Callable
from typing import Protocol, TypeVar

__all__ = ["loop_local"]


class Closable(Protocol):
    async def aclose(self) -> None: ...


C = TypeVar("C", bound=Closable)


class _LoopParts:
    """The parts one loop holds, and the generator whose closing closes them."""

    def __init__(self) -> None:
        self.parts: dict[str, Closable] = {}
        self.keeper = self._keep()
        # the loop's first-iteration hook registers the generator for shutdown_asyncgens();
        # driving it to its `yield` needs no await, so a part is ready before the caller's first await
        step = self.keeper.asend(None)
        with contextlib.suppress(StopIteration):
            step.send(None)

    async def _keep(self) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            _BY_LOOP.pop(asyncio.get_running_loop(), None)
            await self.aclose()

    async def aclose(self) -> None:
        parts, self.parts = self.parts, {}
        for part in reversed(list(parts.values())):
            await part.aclose()


_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopParts] = weakref.WeakKeyDictionary()


def loop_local(key: str, build: Callable[[], C]) -> C:
    """The running loop's part named `key`, built by `build()` on first use."""
    loop = asyncio.get_running_loop()
    held = _BY_LOOP.get(loop)
    if held is None:
        held = _BY_LOOP[loop] = _LoopParts()
    part = held.parts.get(key)
    if part is None:
        part = held.parts[key] = build()
    return part  # type: ignore[return-value]  # stored under its key by this function alone
