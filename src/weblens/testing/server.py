"""A real HTTP server on 127.0.0.1 that answers from scripts and misbehaves on demand.

Every upstream in weblens' tests (and in yours) is one of these: point a base-URL
setting at `server.url()` and script what it answers::

    with FakeServer() as server:
        server.route("GET", "/res/v1/web/search", Reply(body={"web": {"results": []}}))
        server.queue("/res/v1/web/search", Reply(status=429, headers={"Retry-After": "1"}))
        ...  # the first request gets the 429, the next ones the route's reply
        assert server.requests[0].headers["x-subscription-token"] == "..."

It runs uvicorn in a background thread, so it serves sync and async tests alike.
"""

from __future__ import annotations

import asyncio
import gzip
import inspect
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import uvicorn

from weblens.app.connections import ConnectionGuard
from weblens.config import ServerConfig

__all__ = ["FakeServer", "RecordedRequest", "Reply", "ServedApp"]

_STARTUP_TIMEOUT_S = 10.0


class ServedApp:
    """Any ASGI app (e.g. `weblens.app.server.create_app(settings)`) served by uvicorn on
    127.0.0.1 in a background thread, until `stop()`."""

    def __init__(
        self,
        app: Any,
        *,
        lifespan: str = "on",
        log_level: str = "warning",
        interface: str = "auto",
        limits: ServerConfig | None = None,
    ) -> None:
        """`limits`: serve with `weblens serve`'s connection guard (header and body deadlines, the cap)."""
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say TCP, and
        # without it every response waits ~40 ms for a delayed ACK (Nagle).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level=log_level,
            lifespan=lifespan,  # type: ignore[arg-type]
            access_log=False,
            interface=interface,  # type: ignore[arg-type]
            http=ConnectionGuard.from_settings(limits).protocol_class() if limits is not None else "auto",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_TIMEOUT_S
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the local server did not start")
            time.sleep(0.005)

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


@dataclass
class Reply:
    """One scripted answer. `body` may be bytes, text or JSON-like data."""

    status: int = 200
    body: bytes | str | dict[str, Any] | list[Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    delay_s: float = 0.0
    """Wait this long before sending headers (a slow upstream)."""
    drip: tuple[int, float] | None = None
    """Send the body in chunks of N bytes, sleeping S seconds between them."""
    gzip: bool = False
    """Compress the body and say so in Content-Encoding."""
    chunks: Callable[[], Iterable[bytes]] | None = None
    """Stream a generated body (e.g. many MB) instead of `body`."""
    break_off: bool = False
    """Drop the connection after the body instead of ending the response (a stream cut short)."""

    def encoded(self) -> tuple[bytes, str]:
        body = self.body
        if isinstance(body, dict | list):
            return json.dumps(body, ensure_ascii=False).encode(), self.content_type or "application/json"
        if isinstance(body, str):
            return body.encode(), self.content_type or "text/plain; charset=utf-8"
        return body or b"", self.content_type or "application/octet-stream"


@dataclass
class RecordedRequest:
    """A request the server received, as the upstream saw it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    received_at: float
    target: str = ""
    """The request target exactly as it arrived (path and query, escapes as sent)."""

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


Handler = Callable[[RecordedRequest], "Reply | Awaitable[Reply]"]


class FakeServer:
    """Scripted HTTP server; see the module docstring."""

    def __init__(self, *, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        """Requests whose client went away before the answer was complete."""
        self._routes: dict[tuple[str, str], Handler | Reply] = {}
        self._queued: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._served: ServedApp | None = None
        self.port = 0

    # -- scripting ---------------------------------------------------------------

    def route(self, method: str, path: str, answer: Handler | Reply) -> None:
        """Answer `method path` with a fixed reply or a handler (sync or async)."""
        self._routes[(method.upper(), path)] = answer

    def queue(self, path: str, *replies: Reply) -> None:
        """The next requests to `path` (any method) get these replies first, in order."""
        with self._lock:
            self._queued.setdefault(path, deque()).extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queued.clear()
            self.disconnects = 0

    def count(self, path: str | None = None) -> int:
        return sum(1 for r in self.requests if path is None or r.path == path)

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> FakeServer:
        self._served = ServedApp(self._asgi, lifespan="off", log_level="error", interface="asgi3")
        self.port = self._served.port
        return self

    def stop(self) -> None:
        if self._served is not None:
            self._served.stop()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    # -- serving -----------------------------------------------------------------

    def _answer_for(self, request: RecordedRequest) -> Handler | Reply:
        with self._lock:
            queued = self._queued.get(request.path)
            if queued:
                return queued.popleft()
        answer = self._routes.get((request.method, request.path))
        if answer is None:
            return Reply(status=404, body={"error": f"no route for {request.method} {request.path}"})
        return answer

    async def _asgi(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = RecordedRequest(
            method=scope["method"],
            path=scope["path"],
            query=dict(parse_qsl(scope["query_string"].decode("latin-1"))),
            headers={k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]},
            body=body,
            received_at=time.monotonic(),
            target=scope.get("raw_path", scope["path"].encode()).decode("latin-1")
            + ("?" + scope["query_string"].decode("latin-1") if scope["query_string"] else ""),
        )
        with self._lock:
            self.requests.append(request)
        answer = self._answer_for(request)
        if isinstance(answer, Reply):
            reply = answer
        else:
            produced = answer(request)
            reply = await produced if inspect.isawaitable(produced) else produced
        disconnected = asyncio.ensure_future(self._wait_disconnect(receive))
        try:
            await self._send(reply, send, disconnected)
        except (OSError, RuntimeError):
            self.disconnects += 1
        finally:
            disconnected.cancel()

    @staticmethod
    async def _wait_disconnect(receive: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    async def _pause(self, seconds: float, disconnected: asyncio.Future[None]) -> bool:
        """Sleep; False if the client went away meanwhile."""
        if seconds <= 0:
            return not disconnected.done()
        done, _ = await asyncio.wait({disconnected}, timeout=seconds)
        return not done

    async def _send(self, reply: Reply, send: Any, disconnected: asyncio.Future[None]) -> None:
        if not await self._pause(self.latency_s + reply.delay_s, disconnected):
            self.disconnects += 1
            return
        body, content_type = reply.encoded()
        headers = {"content-type": content_type, **{k.lower(): v for k, v in reply.headers.items()}}
        if reply.gzip:
            body = gzip.compress(body)
            headers["content-encoding"] = "gzip"
        streaming = reply.chunks is not None or reply.drip is not None or reply.break_off
        if not streaming:
            headers["content-length"] = str(len(body))
        raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": raw_headers})
        if reply.chunks is not None:
            parts: Iterable[bytes] = reply.chunks()
        elif reply.drip is not None:
            size = max(1, reply.drip[0])
            parts = (body[i : i + size] for i in range(0, len(body), size))
        else:
            parts = (body,)
        interval = reply.drip[1] if reply.drip else 0.0
        for part in parts:
            if disconnected.done():
                self.disconnects += 1
                return
            await send({"type": "http.response.body", "body": part, "more_body": True})
            if interval and not await self._pause(interval, disconnected):
                self.disconnects += 1
                return
        if not reply.break_off:  # an unfinished response makes the server close the connection mid-body
            await send({"type": "http.response.body", "body": b"", "more_body": False})
