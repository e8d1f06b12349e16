"""`async with` for the objects that own resources (runtime, router, fetcher) and free them in `aclose()`."""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["AsyncClosing"]


class AsyncClosing:
    """Mixin: `async with obj:` closes `obj` on the way out, errors included."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
