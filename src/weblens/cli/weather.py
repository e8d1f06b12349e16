"""`weblens weather "Beijing"`: current conditions and an optional daily forecast."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from weblens.cli import app
from weblens.cli.output import emit_result, fail_from
from weblens.config import get_settings
from weblens.errors import WeblensError
from weblens.result import ToolResult
from weblens.weather import MAX_DAYS


@app.command()
def weather(
    location: Annotated[str, typer.Argument(help="Place name in any language, e.g. Beijing, 北京, 'Paris, France'.")],
    days: Annotated[int, typer.Option(min=0, max=MAX_DAYS, help="Days of daily min/max forecast.")] = 0,
    units: Annotated[str, typer.Option(help="metric or imperial.")] = "metric",
    as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output (the whole tool result).")] = False,
) -> None:
    """Show the weather for a place (Open-Meteo, no key needed)."""
    from weblens.runtime import Runtime
    from weblens.tools.weather import GetWeather

    async def run(runtime: Runtime) -> ToolResult:
        async with runtime:
            return await GetWeather(runtime).execute({"location": location, "days": days, "units": units})

    try:
        runtime = Runtime.from_settings(get_settings())
    except WeblensError as exc:
        fail_from(exc)
    emit_result(asyncio.run(run(runtime)), as_json)
