"""Running a command's async work: one event loop, one `Runtime`, Ctrl-C as a clean exit, never a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from weblens.cli.output import note

if TYPE_CHECKING:
    from weblens.config import Settings
    from weblens.runtime import Runtime

__all__ = ["INTERRUPTED_EXIT_CODE", "run", "with_runtime"]

T = TypeVar("T")
INTERRUPTED_EXIT_CODE = 130
"""What shells report for a command stopped by Ctrl-C (128 + SIGINT)."""


def run(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`; Ctrl-C cancels it and exits 130 with one line instead of a traceback."""
    try:
        return asyncio.run(work)
    except KeyboardInterrupt:
        note("interrupted", "dim")
        raise typer.Exit(INTERRUPTED_EXIT_CODE) from None


async def with_runtime(settings: Settings, work: Callable[[Runtime], Awaitable[T]]) -> T:
    """`work(runtime)` with the process's one `Runtime`, closed when the work is done."""
    from weblens.runtime import Runtime

    async with Runtime.from_settings(settings) as runtime:
        return await work(runtime)
