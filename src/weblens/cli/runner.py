"""Running a command's async work: one event loop, Ctrl-C as a clean exit, never a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import typer

from weblens.cli.output import note

__all__ = ["INTERRUPTED_EXIT_CODE", "run"]

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
