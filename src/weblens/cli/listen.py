"""Listening on a port for `serve` and `mcp --transport http`: bind first, then say where.

The socket is bound here, before uvicorn starts, so a port out of range, a port in use or
an address this machine does not have is one line naming the problem (exit 1), and the
"listening on" banner only appears once it is true.
"""

from __future__ import annotations

import errno
import gc
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from weblens.cli.output import fail
from weblens.cli.runner import run

if TYPE_CHECKING:
    from weblens.config import ServerConfig

__all__ = ["bind", "check_port", "serve_on", "url_of"]

_WHY = {
    errno.EADDRINUSE: "the port is already in use (another weblens? pick another with --port)",
    errno.EACCES: "permission denied (ports below 1024 need root; pick another with --port)",
    errno.EADDRNOTAVAIL: "this machine has no such address (use 127.0.0.1, or 0.0.0.0 for every address)",
}


def check_port(port: int) -> int:
    """A port number a socket can bind (0 picks a free one), or exit 2 saying so."""
    if not 0 <= port <= 65535:
        fail(f"--port {port} is not a port number: use 1-65535 (or 0 for any free port)", "validation_error", 2)
    return port


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or exit 2 with one line saying why not (a busy port, say)."""
    check_port(port)
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as exc:
        fail(f"cannot listen on {shown}: {getattr(exc, 'strerror', None) or exc}", "validation_error")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {shown}: {_WHY.get(exc.errno or 0, exc.strerror or str(exc))}", "validation_error")
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, host: str, path: str = "/") -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def serve_on(
    sock: socket.socket,
    application: Any,
    server: ServerConfig,
    *,
    log_level: str = "warning",
    before_shutdown: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run `application` with uvicorn on an already bound socket until Ctrl-C, with the limits
    of `server` against abusive clients (header and body deadlines, a connection cap).

    `before_shutdown` runs as soon as shutting down starts: uvicorn then waits for open
    responses to end, so the app's endless ones (answers streaming) must end themselves."""
    import uvicorn

    from weblens.app.connections import ConnectionGuard

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if before_shutdown is not None:
                await before_shutdown()
            await super().shutdown(sockets)

    guard = ConnectionGuard.from_settings(server)
    config = uvicorn.Config(
        application, log_level=log_level, timeout_graceful_shutdown=5, http=guard.protocol_class(), access_log=False
    )
    try:
        run(guard.serve(Server(config), sock))
    finally:
        sock.close()
        # Everything is closed; what is left is the exit's own garbage collections over the whole
        # import graph, 0.5-1 s of a busy machine's time after Ctrl-C. Frozen objects skip them.
        gc.freeze()
