"""`weblens mcp`: serve weblens tools to any MCP client, over stdio or streamable HTTP."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Annotated

import typer

from weblens.cli import app
from weblens.cli.output import err_console, fail_from
from weblens.config import get_settings
from weblens.errors import WeblensError


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


@app.command()
def mcp(
    transport: Annotated[Transport, typer.Option(help="stdio (for a client that starts weblens) or http.")] = (
        Transport.stdio
    ),
    host: Annotated[str | None, typer.Option(help="HTTP: address to bind (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP: port (default 8765).")] = None,
    tools: Annotated[
        str | None, typer.Option(help="Comma-separated tools to expose (default: mcp.tools, i.e. web_search, ...).")
    ] = None,
) -> None:
    """Run the MCP gateway: stdio by default, or streamable HTTP at http://HOST:PORT/mcp."""
    from weblens.mcp.http import MCP_PATH, standalone_app
    from weblens.mcp.server import create_server, gateway_toolset, serve_stdio
    from weblens.runtime import Runtime

    async def stdio(runtime: Runtime, enabled: list[str] | None) -> None:
        async with runtime:
            await serve_stdio(create_server(gateway_toolset(runtime, enabled)))

    try:
        settings = get_settings()
        enabled = [name.strip() for name in tools.split(",") if name.strip()] if tools is not None else None
        if transport is Transport.stdio:
            asyncio.run(stdio(Runtime.from_settings(settings), enabled))
            return
        bind = host or settings.server.host
        application = standalone_app(settings, host=bind, enabled=enabled)
    except WeblensError as exc:
        fail_from(exc)
    import uvicorn

    port = settings.server.port if port is None else port
    names = ", ".join(application.state.toolset.names) or "none"
    err_console.print(f"weblens MCP on http://{bind}:{port}{MCP_PATH} (tools: {names})")
    uvicorn.run(application, host=bind, port=port, log_level="warning")
