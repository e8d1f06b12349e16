"""The `weblens` command: one typer app, one module per group of commands."""

from __future__ import annotations

import importlib
import logging
from typing import Annotated

import typer

from weblens._version import __version__

__all__ = ["app", "main"]

app = typer.Typer(
    name="weblens",
    help="The web for LLM agents: search, fetch, weather, an MCP gateway and a chat agent.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Each module registers its commands on `app` when imported.
COMMAND_MODULES = (
    "weblens.cli.info",
    "weblens.cli.serve",
    "weblens.cli.weather",
    "weblens.cli.mcp",
    "weblens.cli.search",
    "weblens.cli.chat",
    "weblens.cli.fetch",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"weblens {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each tool call to stderr.")] = False,
) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")


for _module in COMMAND_MODULES:
    importlib.import_module(_module)


def main() -> None:
    app()
