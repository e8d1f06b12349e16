"""`weblens serve`: the HTTP server (health, and what later layers mount on it)."""

from __future__ import annotations

from typing import Annotated

import typer

from weblens.cli import app
from weblens.cli.output import fail_from
from weblens.config import get_settings
from weblens.errors import NotConfiguredError, WeblensError
from weblens.mcp.http import is_loopback


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8765).")] = None,
) -> None:
    """Run the weblens server on 127.0.0.1:8765."""
    import uvicorn

    from weblens.app.server import create_app

    try:
        settings = get_settings()
        if host:  # the app's own checks (e.g. MCP's token on a reachable address) see the real bind
            settings.server.host = host
        if not is_loopback(settings.server.host) and settings.mcp.token is None:
            raise NotConfiguredError(
                f"refusing to serve on {settings.server.host}, which other machines can reach, without a token: "
                "set WEBLENS_MCP_TOKEN (the chat API and /mcp then require 'Authorization: Bearer <token>')"
            )
        application = create_app(settings)
    except WeblensError as exc:
        fail_from(exc)
    uvicorn.run(
        application,
        host=settings.server.host,
        port=settings.server.port if port is None else port,
        log_level="info",
    )
