"""How the server treats client connections: deadlines for a request's headers and body, a
cap on open connections, and floods logged once a minute rather than once per event.

uvicorn drops no connection that never finishes its request headers (slowloris), waits
forever for a body shorter than its `Content-Length`, and when the open-file limit is
reached logs every failed accept with a traceback (thousands of lines a second). The
guard wraps uvicorn's h11 protocol for `weblens serve` and `weblens mcp --transport http`:

- a client has `header_timeout_s` to send its request line and headers (counted from the
  connection, or from the end of the previous response), else the connection is closed;
- a body has `body_timeout_s` after its headers, else the answer is 408 and the connection
  is closed (whatever the route: the chat API and `/mcp` alike);
- at `max_connections` open connections (never more than 3/4 of the open-file limit, so
  accepting never runs out of descriptors) the connection that has waited longest for its
  headers is closed to make room; only when every connection is busy is the newcomer
  refused with 503.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from weblens.config import ServerConfig

__all__ = ["ConnectionGuard", "FloodLog", "open_file_limit"]

logger = logging.getLogger("weblens.server")

FLOOD_INTERVAL_S = 60.0
_ACCEPT_FAILED = "socket.accept() out of system resource"
_HEADERS, _BODY = "headers", "body"


def open_file_limit() -> int | None:
    """This process's soft limit on open files (`ulimit -n`), or None where there is none to read."""
    try:
        import resource
    except ImportError:  # not a Unix
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def connection_cap(configured: int, file_limit: int | None) -> int:
    """`configured`, lowered to 3/4 of the open-file limit: the rest is for upstream requests,
    the databases and worker processes, so an accept never fails for want of a descriptor."""
    if file_limit is None:
        return configured
    return max(1, min(configured, file_limit * 3 // 4))


class FloodLog:
    """Logs the first event of a kind at once, then at most one line per `interval_s` saying
    how many more there were, so an attack costs a few log lines, not one per connection."""

    def __init__(
        self,
        log: logging.Logger = logger,
        *,
        interval_s: float = FLOOD_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = log
        self._interval_s = interval_s
        self._clock = clock
        self._last: dict[str, float] = {}
        self._missed: dict[str, int] = {}

    def event(self, kind: str, message: str) -> None:
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self._interval_s:
            self._missed[kind] = self._missed.get(kind, 0) + 1
            return
        missed = self._missed.pop(kind, 0)
        self._last[kind] = now
        more = f" ({missed} more since the last such line)" if missed else ""
        self._log.warning("%s%s", message, more)


def _json_error(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 response in the app's error shape, for when there is no request to answer."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class _GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the guard's deadlines and cap; one class per guard."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.guard.admit(self):
            transport.write(self.guard.refusal)
            transport.close()
            return
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._enter(None)
        self.guard.live.discard(self)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._enter(None)  # another protocol owns the connection from here
        self.guard.live.discard(self)
        super().handle_websocket_upgrade(event)

    def _follow(self) -> None:
        """Arm the deadline of the phase the client is in: sending headers, sending a body, or
        neither (its request is complete and being answered: no deadline, answers may stream)."""
        state = self.conn.their_state
        if self.transport.is_closing():
            phase = None
        elif state is h11.IDLE:
            phase = _HEADERS
        elif state is h11.SEND_BODY:
            phase = _BODY
        else:
            phase = None
        if phase != self._phase:
            self._enter(phase)

    def _enter(self, phase: str | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.guard.waiting.pop(self, None)
        self._phase = phase
        if phase == _HEADERS:
            self.guard.waiting[self] = None
            self._deadline = self.loop.call_later(self.guard.header_timeout_s, self._headers_late)
        elif phase == _BODY:
            self._deadline = self.loop.call_later(self.guard.body_timeout_s, self._body_late)

    def close(self) -> None:
        """Close the connection; it stops counting against the cap at once."""
        self._enter(None)
        self.guard.live.discard(self)
        self.transport.close()

    def _headers_late(self) -> None:
        self._deadline = None
        self.guard.floods.event(
            "header_timeout",
            f"closed a connection that sent no complete request headers within {self.guard.header_timeout_s:g} s "
            "(server.header_timeout_s)",
        )
        self.close()

    def _body_late(self) -> None:
        """The body did not arrive in time (e.g. a `Content-Length` that lies): 408, then close."""
        self._deadline = None
        self.guard.floods.event(
            "body_timeout",
            f"answered 408: a request body took over {self.guard.body_timeout_s:g} s (server.body_timeout_s)",
        )
        cycle = self.cycle
        if cycle is not None and not cycle.response_started and not cycle.disconnected:
            # the app's reads end as if the client left, and whatever it still sends is dropped
            cycle.disconnected = True
            cycle.message_event.set()
            self.transport.write(self.guard.body_timeout_response)
        self.close()


class ConnectionGuard:
    """The limits of one server (see the module docstring); `protocol_class()` is what uvicorn
    runs, `exception_handler` keeps the event loop's accept failures to one line a minute."""

    def __init__(
        self, *, header_timeout_s: float, body_timeout_s: float, max_connections: int, floods: FloodLog | None = None
    ) -> None:
        self.header_timeout_s = header_timeout_s
        self.body_timeout_s = body_timeout_s
        self.max_connections = max_connections
        self.floods = floods or FloodLog()
        self.live: set[_GuardedH11] = set()
        """Open connections that count against the cap."""
        self.waiting: dict[_GuardedH11, None] = {}
        """Connections waiting for their request headers, the longest-waiting first."""
        self.refusal = _json_error(
            503, "Service Unavailable", "rate_limited", f"the server is at its limit of {max_connections} connections"
        )
        self.body_timeout_response = _json_error(
            408,
            "Request Timeout",
            "timeout",
            f"the request body did not arrive within {body_timeout_s:g} s of its headers "
            "(is its Content-Length right?)",
        )

    @classmethod
    def from_settings(cls, server: ServerConfig) -> ConnectionGuard:
        limit = open_file_limit()
        cap = connection_cap(server.max_connections, limit)
        if cap < server.max_connections:
            logger.info("at most %d client connections: the open-file limit (ulimit -n) is %s", cap, limit)
        return cls(header_timeout_s=server.header_timeout_s, body_timeout_s=server.body_timeout_s, max_connections=cap)

    def protocol_class(self) -> type[H11Protocol]:
        """uvicorn's `http` protocol, bound to this guard."""
        return type("GuardedH11Protocol", (_GuardedH11,), {"guard": self})

    def admit(self, newcomer: _GuardedH11) -> bool:
        """Count `newcomer` in, at the cap first closing the connection that has waited longest
        for its headers; False (refuse it) when every open connection is busy with a request."""
        if len(self.live) >= self.max_connections:
            oldest = next(iter(self.waiting), None)
            if oldest is None:
                self.floods.event(
                    "refused",
                    f"refused connections with 503: all {self.max_connections} are busy (server.max_connections)",
                )
                return False
            self.floods.event(
                "evicted",
                f"at {self.max_connections} connections (server.max_connections): closing "
                "the ones that waited longest for their request headers",
            )
            oldest.close()
        self.live.add(newcomer)
        return True

    def exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's handler: an accept that failed for want of file descriptors is one
        line a minute (asyncio logs each one with a traceback, thousands a second)."""
        if context.get("message") == _ACCEPT_FAILED:
            exc = context.get("exception")
            self.floods.event("accept", f"cannot accept connections: {exc} (open-file limit {open_file_limit()})")
            return
        loop.default_exception_handler(context)

    async def serve(self, server: Any, sock: socket.socket) -> None:
        """Run a `uvicorn.Server` (configured with `protocol_class()`) on `sock` with this guard's
        loop handler, and uvicorn's per-connection warnings kept to one line a minute each."""
        asyncio.get_running_loop().set_exception_handler(self.exception_handler)
        throttle = _Throttle(self.floods)
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.addFilter(throttle)
        try:
            await server.serve(sockets=[sock])
        finally:
            uvicorn_log.removeFilter(throttle)


class _Throttle(logging.Filter):
    """Passes uvicorn's per-connection warnings (a garbage request, ...) through a `FloodLog`."""

    def __init__(self, floods: FloodLog) -> None:
        super().__init__()
        self.floods = floods

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING:
            return True
        self.floods.event(f"uvicorn:{record.msg}", f"uvicorn: {record.getMessage()}")
        return False
