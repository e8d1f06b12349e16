"""`weblens mcp`: serve weblens tools to any MCP client, over stdio or streamable HTTP.

Over stdio the client starts weblens and talks on its stdin/stdout. Started by hand in a
terminal it says so on stderr (and how to connect a client), and Ctrl-C ends it cleanly.
Over HTTP it listens on 127.0.0.1:8766 (`mcp.port`), next to `weblens serve`'s 8765.
"""

from __future__ import annotations

import os
import signal
import sys
from enum import StrEnum
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer

from weblens.cli import command_app
from weblens.cli.output import fail_from, note
from weblens.cli.runner import INTERRUPTED_EXIT_CODE, run
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError

if TYPE_CHECKING:
    from weblens.config import Settings
    from weblens.runtime import Runtime
    from weblens.toolset import Toolset

app = command_app()

STDIO_HELLO = (
    "weblens MCP server on stdio: waiting for an MCP client on stdin (this command is usually started by one).",
    'Connect a client: add {"command": "weblens", "args": ["mcp"]} to its mcpServers config,',
    "try it with: npx @modelcontextprotocol/inspector weblens mcp,",
    "or serve over HTTP instead: weblens mcp --transport http. Ctrl-C stops.",
)


def _stop_now(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: end at once. The SDK reads stdin in a worker thread that no cancellation can
    interrupt, so a graceful shutdown would wait for the next line of input; nothing is
    lost by not waiting (every cache write is its own committed transaction)."""
    note("stopped", "dim")
    sys.stderr.flush()
    os._exit(INTERRUPTED_EXIT_CODE)


async def _stdio(settings: Settings, enabled: list[str] | None) -> None:
    """Serve over stdio; the tools (and their libraries) are built on the first request that needs
    them, so the client's `initialize` is answered as soon as the SDK is loaded."""
    from weblens.mcp.server import create_server, gateway_toolset, serve_stdio

    runtimes: list[Runtime] = []

    def build() -> Toolset:
        from weblens.runtime import Runtime

        runtimes.append(Runtime.from_settings(settings))
        return gateway_toolset(runtimes[0], enabled)

    try:
        await serve_stdio(create_server(build), max_bytes=settings.mcp.max_body_bytes)
    finally:
        for runtime in runtimes:
            await runtime.aclose()


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


@app.command()
def mcp(
    transport: Annotated[Transport, typer.Option(help="stdio (for a client that starts weblens) or http.")] = (
        Transport.stdio
    ),
    host: Annotated[str | None, typer.Option(help="HTTP: address to bind (default server.host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP: port (default mcp.port, 8766).")] = None,
    tools: Annotated[
        str | None, typer.Option(help="Comma-separated tools to expose (default: mcp.tools, i.e. web_search, ...).")
    ] = None,
) -> None:
    """Run the MCP gateway: stdio by default, or streamable HTTP at /mcp."""
    settings = load_settings()
    enabled = [name.strip() for name in tools.split(",") if name.strip()] if tools is not None else None
    if transport is Transport.stdio:
        if sys.stdin.isatty():
            for line in STDIO_HELLO:
                note(line, "dim")
        signal.signal(signal.SIGINT, _stop_now)
        run(_stdio(settings, enabled))
        return

    from weblens.cli.listen import bind, check_port, serve_on, url_of
    from weblens.mcp.http import MCP_PATH, standalone_app

    bind_host = host or settings.server.host
    port = check_port(settings.mcp.port if port is None else port)
    try:
        application = standalone_app(settings, host=bind_host, enabled=enabled)
    except WeblensError as exc:
        fail_from(exc)
    sock = bind(bind_host, port)
    names = ", ".join(application.state.toolset.names) or "none"
    note(f"weblens MCP on {url_of(sock, bind_host, MCP_PATH)} (tools: {names})")
    serve_on(sock, application, settings.server)
