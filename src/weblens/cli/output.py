"""Rich on a terminal, plain JSON when asked (or when piped), errors without tracebacks."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from weblens.errors import WeblensError
from weblens.redact import redact
from weblens.result import ToolResult

__all__ = ["console", "emit", "emit_result", "fail"]

console = Console()
err_console = Console(stderr=True)


def wants_json(as_json: bool) -> bool:
    return as_json or not sys.stdout.isatty()


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    """Print `data` as JSON, or call `render` for a human on a terminal."""
    if wants_json(as_json):
        typer.echo(json.dumps(redact(data), ensure_ascii=False, indent=2, default=str))
    else:
        render()


def fail(message: str, code: str = "error", exit_code: int = 1) -> NoReturn:
    # escaped: messages hold text like "[llm]" (config sections) that Rich would read as markup
    err_console.print(f"[bold red]{escape(code)}[/]: {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(exit_code)


def fail_from(exc: WeblensError) -> NoReturn:
    fail(exc.message, exc.code)


def emit_result(result: ToolResult, as_json: bool, render: Callable[[], None] | None = None) -> None:
    """Print a tool result; a failure goes to stderr with its code and exits non-zero."""
    if wants_json(as_json):
        typer.echo(result.model_dump_json(indent=2))
        if not result.ok:
            raise typer.Exit(1)
        return
    if not result.ok and result.error is not None:
        fail(result.error.message, result.error.code)
    if render is not None:
        render()
    else:
        console.print(result.text, markup=False, highlight=False)
