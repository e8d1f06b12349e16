"""The chat API's answers as background runs: start one, follow it (again after a reload), stop it.

`POST /api/chat` starts a run and follows it; `GET /api/sessions/{id}/stream?from=N`
follows the session's running answer from its N-th event (0 replays it all);
`POST /api/sessions/{id}/stop` cancels it, and the answer is saved as it stood, marked
"stopped". Closing the page does not stop an answer: it is finished and saved.

In a fleet (an `AnswerRelay` in Redis) the three work on whichever replica they reach:
an answer running elsewhere is followed and stopped through the relay, and one session has
one answer at a time across the fleet.
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
from weblens.store.base import AnswerRelay

__all__ = ["STOP_WAIT_S", "Answers"]

STOP_WAIT_S = 10.0
"""How long Stop waits for the cancelled answer to be saved before it answers."""
NOT_RUNNING = "no answer is being written in this session"
ALREADY_RUNNING = "an answer is already being written in this session"


def _stream(events: AsyncIterator[tuple[str, dict[str, Any]]]) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        async for name, data in events:
            yield sse_event(name, data)

    return StreamingResponse(body(), media_type="text/event-stream", headers=SSE_HEADERS)


class Answers:
    """The runs of one server, the fleet's through `relay`, and the routes that reach them."""

    def __init__(self, chat: ChatService | None, relay: AnswerRelay | None = None) -> None:
        self.chat = chat
        self.relay = relay
        self.runs = RunRegistry(relay)

    async def running(self, session_ids: list[str]) -> set[str]:
        """Which of `session_ids` have an answer being written (here or, with a relay, anywhere)."""
        here = {session_id for session_id in session_ids if self.runs.get(session_id) is not None}
        elsewhere = [session_id for session_id in session_ids if session_id not in here]
        if self.relay is not None and elsewhere:
            here |= await self.relay.running(elsewhere)
        return here

    def stop_here(self, session_id: str) -> None:
        """Stop this server's answer in `session_id`, if it writes one (a Stop asked of another replica)."""
        run = self.runs.get(session_id)
        if run is not None:
            run.stop()

    async def listen(self) -> None:
        """Take Stops asked of other replicas until cancelled (nothing to do without a relay)."""
        if self.relay is not None:
            await self.relay.listen(self.stop_here)

    async def start(self, session: SessionInfo, message: str) -> Response:
        """Start answering `message` in `session` and stream it; 409 if an answer is already running there."""
        chat = self.chat
        assert chat is not None
        if self.runs.get(session.id) is not None:
            return error_response(409, "validation_error", ALREADY_RUNNING)
        token = None
        if self.relay is not None:
            token = await self.relay.claim(session.id)
            if token is None or self.runs.get(session.id) is not None:
                return error_response(409, "validation_error", ALREADY_RUNNING)

        def answer(run: Run) -> AsyncIterator[Any]:
            def cut_short() -> MessageStatus:
                return "stopped" if run.stopped else "incomplete"

            def kept(cut: StoredMessage) -> None:
                run.kept["sources"] = cut.sources

            return chat.answer(session, message, cut_short=cut_short, kept=kept)

        first = ("session", {"session_id": session.id, "title": session.title})
        return _stream(self.runs.start(session.id, first, answer, token=token).follow())

    async def follow(self, request: Request) -> Response:
        session_id = request.path_params["session_id"]
        text = request.query_params.get("from", "0")
        start = int(text) if text.isdigit() else 0
        run = self.runs.get(session_id)
        if run is not None:
            return _stream(run.follow(start))
        if self.relay is not None:
            events = await self.relay.follow(session_id, start)
            if events is not None:
                return _stream(events)
        return error_response(404, "not_found", NOT_RUNNING)

    async def stop(self, request: Request) -> Response:
        """Stop the session's answer; `{"stopped": false}` when none was running (it may just have ended)."""
        session_id = request.path_params["session_id"]
        run = self.runs.get(session_id)
        if run is None:
            stopped = await self.relay.stop(session_id, STOP_WAIT_S) if self.relay is not None else None
            return JSONResponse({"stopped": bool(stopped)})
        run.stop()
        if run.task is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(run.task), STOP_WAIT_S)
        return JSONResponse({"stopped": run.stopped})
