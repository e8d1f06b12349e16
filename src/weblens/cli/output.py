"""What commands print: tables and text on a terminal, one JSON envelope when asked, errors in one line.

Nothing here reads text as Rich markup: titles, snippets and messages come from pages and
providers (`arr[i]`, `[PDF]`, `[/]`, `[brave]`) and must print as written. Both consoles
have markup, emoji codes and highlighting off; styles are given as `style=`.

`--json` (and, for search and weather, a pipe) prints the envelope every tool result has
— `ok`, `text` (what a model reads), `data`, `sources`, `brief`, `duration_ms`,
`attempts`, `error` — on stdout, failures included, with a non-zero exit on failure.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from weblens.redact import redact

if TYPE_CHECKING:
    from rich.console import Console

    from weblens.errors import ErrorCode, WeblensError
    from weblens.result import ToolResult

    console: Console
    err_console: Console

__all__ = [
    "USAGE_EXIT_CODE", "console", "emit", "emit_result", "err_console", "exit_code_for", "fail", "fail_from", "note",
    "wants_json",
]  # fmt: skip

_CONSOLES = {"console": False, "err_console": True}  # name -> on stderr


def __getattr__(name: str) -> Console:
    """`console` and `err_console`, built on first use: `weblens mcp` never needs rich (40 ms)."""
    if name not in _CONSOLES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console

    built = Console(stderr=_CONSOLES[name], markup=False, emoji=False, highlight=False)
    globals()[name] = built
    return built


def _get(name: str) -> Console:
    found: Console | None = globals().get(name)
    return found if found is not None else __getattr__(name)


def wants_json(as_json: bool) -> bool:
    return as_json or not sys.stdout.isatty()


def note(text: str, style: str | None = None) -> None:
    """A line for the person at the terminal, on stderr (never mixed into the output)."""
    _get("err_console").print(text, style=style, soft_wrap=True)


def print_json(data: Any) -> None:
    typer.echo(json.dumps(redact(data), ensure_ascii=False, indent=2, default=str))


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    """Print `data` as JSON, or call `render` for a human on a terminal."""
    if wants_json(as_json):
        print_json(data)
    else:
        render()


USAGE_EXIT_CODE = 2
"""Bad usage or a bad setting (README: exit codes); 1 is work that failed."""
_USAGE_ERRORS = ("validation_error", "not_configured")


def exit_code_for(code: ErrorCode) -> int:
    return USAGE_EXIT_CODE if code in _USAGE_ERRORS else 1


def fail(
    message: str, code: ErrorCode = "internal_error", exit_code: int | None = None, *, as_json: bool = False
) -> NoReturn:
    """Say what went wrong: one line on stderr, or the JSON envelope on stdout when asked; then
    exit (by default 2 for bad usage or a bad setting, else 1)."""
    from weblens.result import ToolResult

    _report_failure(ToolResult.failure(code, message), as_json, exit_code or exit_code_for(code))


def fail_from(exc: WeblensError, *, as_json: bool = False, started: float | None = None) -> NoReturn:
    """Report `exc`; `started` (a `time.perf_counter()` reading) fills the envelope's `duration_ms`."""
    from weblens.result import ToolResult

    result = ToolResult.from_exception(exc)
    if started is not None:
        result.duration_ms = (time.perf_counter() - started) * 1000
    _report_failure(result, as_json, exit_code_for(exc.code))


def _report_failure(result: ToolResult, as_json: bool, exit_code: int) -> NoReturn:
    assert result.error is not None
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        _get("err_console").print(f"{result.error.code}: {result.error.message}", style="bold red", soft_wrap=True)
    raise typer.Exit(exit_code)


def emit_result(result: ToolResult, as_json: bool, render: Callable[[], None] | None = None) -> None:
    """Print a tool result; a failure says its code and exits non-zero, in JSON too."""
    if not result.ok:
        assert result.error is not None
        _report_failure(result, wants_json(as_json), exit_code_for(result.error.code))
    if wants_json(as_json):
        print_json(result.model_dump(mode="json"))
        return
    if render is not None:
        render()
    else:
        _get("console").print(result.text, soft_wrap=True)
