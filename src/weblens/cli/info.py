"""`weblens tools` and `weblens config`: what is available and how it is configured."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.table import Table

from weblens.cli import app
from weblens.cli.output import console, emit, fail_from
from weblens.config import config_file_path, describe, get_settings
from weblens.errors import WeblensError
from weblens.runtime import Runtime
from weblens.schema import DIALECTS
from weblens.tools import default_toolset

FORMATS = ("table", *DIALECTS)


@app.command()
def tools(
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")
    ] = "table",
    as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output.")] = False,
) -> None:
    """List the available tools, or print their schemas for a model API."""
    if format not in FORMATS:
        raise typer.BadParameter(f"choose one of {', '.join(FORMATS)}", param_hint="--format")
    try:
        runtime = Runtime.from_settings()
    except WeblensError as exc:
        fail_from(exc)
    toolset = default_toolset(runtime)
    asyncio.run(runtime.aclose())  # listing tools builds no client; this closes the cache file
    if format != "table":
        emit(toolset.schemas(format), True, lambda: None)
        return
    rows = [{"name": t.name, "description": t.description} for t in toolset]

    def render() -> None:
        table = Table("tool", "description", title="weblens tools")
        for row in rows:
            table.add_row(row["name"], row["description"].split(". ")[0])
        console.print(table)

    emit(rows, as_json, render)


@app.command()
def config(as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output.")] = False) -> None:
    """Show the effective settings (secrets masked) and where each came from."""
    try:
        settings = get_settings()
        rows = describe(settings)
    except WeblensError as exc:
        fail_from(exc)
    path = config_file_path()
    data = {
        "config_file": str(path) if path else None,
        "settings": [{"key": k, "value": v, "source": s} for k, v, s in rows],
    }

    def render() -> None:
        table = Table("setting", "value", "from", title=f"config file: {path or '(none)'}")
        for key, value, source in rows:
            table.add_row(key, value, source, style=None if source == "default" else "bold")
        console.print(table)

    emit(data, as_json, render)
