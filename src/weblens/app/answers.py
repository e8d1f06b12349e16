"""The chat API's answers as background runs: start one, follow it (again after a reload), stop it.

`POST /api/chat` starts a run and follows it; `GET /api/sessions/{id}/stream?from=N`
follows the session's running answer from its N-th event (0 replays it all);
`POST /api/sessions/{id}/stop` cancels it, and the answer is saved as it stood, marked
"stopped". Closing the page does not stop an answer: it is finished and saved.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from weblens.app.chat import ChatService
from weblens.app.responses import SSE_HEADERS, error_response, sse_event
from weblens.app.runs import Run, RunRegistry
from weblens.app.sessions import MessageStatus, SessionInfo, StoredMessage

__all__ = ["STOP_WAIT_S", "Answers"]

STOP_WAIT_S = 10.0
"""How long Stop waits for the cancelled answer to be saved before it answers."""
NOT_RUNNING = "no answer is being written in this session"


def _stream(run: Run, start: int = 0) -> StreamingResponse:
    async def events() -> AsyncIterator[bytes]:
        async for name, data in run.follow(start):
            yield sse_event(name, data)

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


class Answers:
    """The runs of one server and the routes that reach them."""

    def __init__(self, chat: ChatService | None) -> None:
        self.chat = chat
        self.runs = RunRegistry()

    def running(self, session_id: str) -> bool:
        return self.runs.get(session_id) is not None

    def start(self, session: SessionInfo, message: str) -> Response:
        """Start answering `message` in `session` and stream it; 409 if an answer is already running there."""
        chat = self.chat
        assert chat is not None
        if self.running(session.id):
            return error_response(409, "validation_error", "an answer is already being written in this session")

        def answer(run: Run) -> AsyncIterator[Any]:
            def cut_short() -> MessageStatus:
                return "stopped" if run.stopped else "incomplete"

            def kept(cut: StoredMessage) -> None:
                run.kept["sources"] = cut.sources

            return chat.answer(session, message, cut_short=cut_short, kept=kept)

        first = ("session", {"session_id": session.id, "title": session.title})
        return _stream(self.runs.start(session.id, first, answer))

    async def follow(self, request: Request) -> Response:
        run = self.runs.get(request.path_params["session_id"])
        if run is None:
            return error_response(404, "not_found", NOT_RUNNING)
        start = request.query_params.get("from", "0")
        return _stream(run, int(start) if start.isdigit() else 0)

    async def stop(self, request: Request) -> Response:
        """Stop the session's answer; `{"stopped": false}` when none was running (it may just have ended)."""
        run = self.runs.get(request.path_params["session_id"])
        if run is None:
            return JSONResponse({"stopped": False})
        run.stop()
        if run.task is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(run.task), STOP_WAIT_S)
        return JSONResponse({"stopped": run.stopped})
