"""A round-robin HTTP load balancer without stickiness, for fleet tests and benchmarks.

Each request goes to the next replica in turn (what nginx or haproxy do with
`round-robin` and no session affinity), streamed both ways so SSE passes through. Serve
it like any app: `ServedApp(RoundRobin([url_a, url_b]))`.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Sequence

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.types import Receive, Scope, Send

__all__ = ["RoundRobin"]

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host", "content-length"}


class RoundRobin:
    """An ASGI app forwarding request N to `replicas[N % len(replicas)]`; `served` counts per
    replica, `statuses` lists every answer's status in order."""

    def __init__(self, replicas: Sequence[str]) -> None:
        self.replicas = [url.rstrip("/") for url in replicas]
        self.served = [0] * len(self.replicas)
        self.statuses: list[int] = []
        self._next = itertools.cycle(range(len(self.replicas)))
        self._client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            if self._client is not None:
                await self._client.aclose()
            await send({"type": "lifespan.shutdown.complete"})
            return
        request = Request(scope, receive)
        index = next(self._next)
        self.served[index] += 1
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))
        url = self.replicas[index] + request.url.path + (f"?{request.url.query}" if request.url.query else "")
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        try:
            upstream = await self._client.send(
                self._client.build_request(request.method, url, headers=headers, content=await request.body()),
                stream=True,
            )
        except httpx.HTTPError as exc:
            await JSONResponse({"error": f"replica {index} unreachable: {exc}"}, status_code=502)(scope, receive, send)
            return

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    yield chunk
            finally:
                await upstream.aclose()

        self.statuses.append(upstream.status_code)
        kept = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP}
        response = StreamingResponse(body(), status_code=upstream.status_code, headers=kept)
        await response(scope, receive, send)
