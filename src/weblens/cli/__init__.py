"""The `weblens` command: one typer app, one module per command, loaded only when it runs.

`weblens --help` lists the commands from `COMMANDS` without importing any of them, and
`weblens mcp` imports the gateway and nothing of the chat agent: each command module
brings its own `typer.Typer` with one command and imports heavy libraries inside it.
"""

from __future__ import annotations

import importlib
import logging
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from weblens._version import __version__

__all__ = ["COMMANDS", "app", "command_app", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("weblens.cli.info", "List the available tools, or print their schemas for a model API."),
    "config": ("weblens.cli.config", "Show the effective settings (secrets masked) and where each came from."),
    "search": ("weblens.cli.search", "Search the web (automatic provider choice with fallback)."),
    "extract": ("weblens.cli.extract", "A JSON Schema's fields from pages, every value checked against its page."),
    "fetch": ("weblens.cli.fetch", "A URL's main content as markdown (paged), or the passages that answer --query."),
    "map": ("weblens.cli.map", "List a site's URLs (sitemaps, llms.txt, start page links)."),
    "crawl": ("weblens.cli.crawl", "Read a site's pages politely into markdown files (or to stdout)."),
    "screenshot": ("weblens.cli.screenshot", "Save a screenshot of a web page (PNG or JPEG) as a browser shows it."),
    "weather": ("weblens.cli.weather", "Show the weather for a place (Open-Meteo, no key needed)."),
    "mcp": ("weblens.cli.mcp", "Run the MCP gateway: stdio by default, or streamable HTTP at /mcp."),
    "serve": ("weblens.cli.serve", "Run the weblens server: the chat page, the chat API and /mcp."),
    "chat": ("weblens.cli.chat", "Ask the agent: it searches and reads the web as needed and cites its sources."),
}
"""Command name -> (module defining `app` with that one command, the line `--help` shows)."""


def command_app() -> typer.Typer:
    """The app a command module registers its one command on (plain help, like `weblens --help`)."""
    return typer.Typer(rich_markup_mode=None, add_completion=False)


def load_command(name: str) -> Any:
    """The (click) command `name`, importing its module now."""
    module = importlib.import_module(COMMANDS[name][0])
    return typer.main.get_command(module.app)


class _LazyGroup(TyperGroup):
    """A group whose commands are imported when invoked; help is written from `COMMANDS`.

    (Context and formatter are typed `Any`: typer >= 0.29 vendors its own click.)
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        # named placeholders, so help and "did you mean" work without importing anything
        self.commands = {name: TyperCommand(name, help=line) for name, (_, line) in COMMANDS.items()}
        self._listing = False

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if self._listing or ctx.resilient_parsing:
            return self.commands[cmd_name]
        return load_command(cmd_name)


app = typer.Typer(
    name="weblens",
    cls=_LazyGroup,
    help="The web for LLM agents: search, fetch, weather, an MCP gateway and a chat agent.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
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
    from weblens.redact import RedactingFormatter

    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter("%(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])


def main() -> None:
    app()
