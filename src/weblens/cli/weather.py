"""`weblens weather "Beijing"`: current conditions and an optional daily forecast."""

from __future__ import annotations

from typing import Annotated

import typer

from weblens.cli import command_app
from weblens.cli.output import emit_result, fail_from, wants_json
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.result import ToolResult
from weblens.runtime import Runtime
from weblens.tools.weather import GetWeather
from weblens.weather import MAX_DAYS

app = command_app()


@app.command()
def weather(
    location: Annotated[str, typer.Argument(help="Place name in any language, e.g. Beijing, 北京, 'Paris, France'.")],
    days: Annotated[int, typer.Option(min=0, max=MAX_DAYS, help="Days of daily min/max forecast.")] = 0,
    units: Annotated[str, typer.Option(help="metric or imperial.")] = "metric",
    as_json: Annotated[bool, typer.Option("--json", help="The result envelope as JSON (also when piped).")] = False,
) -> None:
    """Show the weather for a place (Open-Meteo, no key needed)."""
    json_out = wants_json(as_json)
    settings = load_settings(as_json=json_out)
    arguments = {"location": location, "days": days, "units": units}

    async def ask(runtime: Runtime) -> ToolResult:
        return await GetWeather(runtime).execute(arguments)

    try:
        with activity(f"weather for {location}"):
            result = run(with_runtime(settings, ask))
    except WeblensError as exc:
        fail_from(exc, as_json=json_out)
    emit_result(result, as_json)
