"""`weblens serve`: the chat page, the chat API and `/mcp` on 127.0.0.1:8765.

Before serving it says where, and whether a model is configured — and if not, the
variables that connect one (the page still works: its tools panel runs search, fetch
and weather directly) — and which browser renders pages, or how to get one.
"""

from __future__ import annotations

from typing import Annotated

import typer

from weblens.app.connect import MODEL_RECIPES, model_status
from weblens.cli import command_app
from weblens.cli.listen import bind, check_port, serve_on, url_of
from weblens.cli.output import fail, fail_from, note
from weblens.cli.settings import load_settings
from weblens.config import Settings
from weblens.errors import NotConfiguredError, WeblensError
from weblens.mcp.http import is_loopback

app = command_app()


def rendering_status(settings: Settings) -> str:
    """One line: which browser renders pages (started on first need), or how to get one."""
    from weblens.browser.locate import choose_browser

    try:
        choice = choose_browser(settings.browser)
    except NotConfiguredError as exc:
        return f"rendering: off — {exc.message}"
    return f"rendering: {choice.describe()}, started when a page needs it"


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default server.host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default server.port, 8765; 0 for any free port).")] = None,
) -> None:
    """Run the weblens server: the chat page, the chat API and /mcp."""
    from weblens.app.server import create_app

    settings = load_settings()
    if host:  # the app's own checks (e.g. MCP's token on a reachable address) see the real bind
        settings.server.host = host
    port = check_port(settings.server.port if port is None else port)
    if not is_loopback(settings.server.host) and settings.mcp.token is None:
        fail(
            f"refusing to serve on {settings.server.host}, which other machines can reach, without a token: "
            "set WEBLENS_MCP_TOKEN (the chat API and /mcp then require 'Authorization: Bearer <token>')",
            "not_configured",
        )
    try:
        application = create_app(settings, warm=True)
    except WeblensError as exc:
        fail_from(exc)
    sock = bind(settings.server.host, port)
    note(f"weblens {url_of(sock, settings.server.host)} — chat page, chat API, /mcp (Ctrl-C stops)", "bold")
    model = model_status(settings)
    if model is not None:
        note(f"chat: {model}")
    else:
        note("chat: no model configured — the page can still run search, fetch and weather. To chat, set:")
        for name, variables in MODEL_RECIPES:
            note(f"  {name + ':':8} {variables}")
        note("  (in the environment, .env, or [llm] in weblens.toml)", "dim")
    note(rendering_status(settings))
    serve_on(sock, application, settings.server, before_shutdown=application.state.end_answers)
