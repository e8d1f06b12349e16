"""`weblens tools`: the available tools, or their schemas for a model API."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from weblens.cli import command_app
from weblens.cli.output import console, emit, fail_from
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.runtime import Runtime
from weblens.schema import DIALECTS
from weblens.tools import default_toolset
from weblens.toolset import Toolset

app = command_app()
FORMATS = ("table", *DIALECTS)


async def _toolset(runtime: Runtime) -> Toolset:
    return default_toolset(runtime)


@app.command()
def tools(
    format: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")] = "table",
    as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output.")] = False,
) -> None:
    """List the available tools, or print their schemas for a model API."""
    if format not in FORMATS:
        raise typer.BadParameter(f"choose one of {', '.join(FORMATS)}", param_hint="--format")
    settings = load_settings(as_json=as_json)
    try:
        toolset = run(with_runtime(settings, _toolset))  # listing builds no client; the cache file is closed
    except WeblensError as exc:
        fail_from(exc, as_json=as_json)
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
