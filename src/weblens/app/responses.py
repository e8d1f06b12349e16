"""The two response shapes every API route uses: a JSON error and a server-sent event."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

__all__ = ["SSE_HEADERS", "error_response", "sse_event"]

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def sse_event(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
