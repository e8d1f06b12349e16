"""One chat turn in a saved session: run the agent, record what happened, save it whatever happens.

The user message is saved before the model is asked; the answer is saved when it is
done, when it fails, or — when it is cancelled (Stop, or the server shutting down) — as
it stood, marked with the status the caller gives ("stopped", or "incomplete"). When
storage fails (full disk, database down) the store keeps the message in memory and
writes it when it can; the stream ends with an `error` event saying so.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from weblens.agent.citations import SourceBook
from weblens.agent.events import AgentEvent, CitedSource, Delta, Done, ErrorEvent, ToolCallEvent, ToolResultEvent
from weblens.agent.loop import Agent
from weblens.context import ToolContext
from weblens.errors import NotFoundError
from weblens.redact import redact_text
from weblens.store.pending import PendingFullError
from weblens.store.sessions import MessageStatus, SessionInfo, SessionStore, StorageError, StoredMessage

__all__ = ["HISTORY_MESSAGES", "ChatService"]

HISTORY_MESSAGES = 40
"""How many earlier messages of a session go back to the model."""
AGENT_NAME = "weblens"


class _Transcript:
    """The assistant message being built from the agent's events."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[str, dict[str, Any]] = {}
        self.done: Done | None = None
        self.error: ErrorEvent | None = None
        self.sources: dict[int, CitedSource] = {}
        """Sources the tools returned so far, by number: a cut-short answer still lists those it cites."""

    def record(self, event: AgentEvent) -> None:
        if isinstance(event, Delta):
            self.text.append(event.text)
        elif isinstance(event, ToolCallEvent):
            self.calls[event.id] = event.model_dump(mode="json", exclude={"type"})
        elif isinstance(event, ToolResultEvent):
            self.calls.setdefault(event.id, {"id": event.id, "name": event.name})["result"] = event.model_dump(
                mode="json", exclude={"type", "id", "name", "sources"}
            )
            self.sources.update((source.number, source) for source in event.sources)
        elif isinstance(event, Done):
            self.done = event
        else:
            self.error = event

    def message(self, status: MessageStatus) -> StoredMessage:
        done = self.done
        text = done.answer if done is not None else "".join(self.text)
        sources = done.sources if done is not None else SourceBook.cited(text, list(self.sources.values()))
        return StoredMessage(
            role="assistant",
            content=text,
            status=status,
            tool_calls=list(self.calls.values()),
            sources=[s.model_dump(mode="json") for s in sources],
            citations=[c.model_dump(mode="json") for c in done.citations] if done is not None else [],
            flagged_urls=list(done.flagged_urls) if done is not None else [],
            linked_urls=list(done.linked_urls) if done is not None else [],
            error=self.error.model_dump(mode="json", exclude={"type"}) if self.error is not None else None,
            usage=done.usage.model_dump() if done is not None else None,
        )


def _for_model(message: StoredMessage) -> dict[str, str] | None:
    if not message.content.strip():
        return None
    content = message.content
    if message.role == "assistant" and message.sources:
        content += SourceBook.fenced([CitedSource.model_validate(s) for s in message.sources])
    return {"role": message.role, "content": content}


def _unsaved(what: str, exc: StorageError) -> str:
    if isinstance(exc, PendingFullError):
        return f"{what} could not be saved and is lost: {redact_text(exc.message)}. Storage is failing; copy it now."
    return (
        f"{what} could not be saved: {redact_text(exc.message)}. It is kept on this server and will be "
        "saved when storage works again."
    )


class ChatService:
    """Answers messages in sessions of a `SessionStore` with an `Agent`."""

    def __init__(self, store: SessionStore, agent: Agent) -> None:
        self.store = store
        self.agent = agent

    async def history(self, session_id: str) -> tuple[list[dict[str, str]], list[str]]:
        """The earlier turns as the model reads them, and the sources earlier answers' tools returned."""
        stored = await self.store.messages(session_id, last=HISTORY_MESSAGES)
        urls = [str(s["url"]) for m in stored if m.role == "assistant" for s in m.sources if s.get("url")]
        return [m for m in map(_for_model, stored) if m is not None], urls

    async def _save(self, session_id: str, message: StoredMessage) -> StoredMessage:
        return await self.store.add(session_id, message)

    async def answer(
        self,
        session: SessionInfo,
        message: str,
        *,
        cut_short: Callable[[], MessageStatus] = lambda: "incomplete",
        kept: Callable[[StoredMessage], None] = lambda message: None,
    ) -> AsyncIterator[AgentEvent]:
        """Stream the agent's events; `done` carries the session id; the answer is always saved
        (cancelled, with the status `cut_short()` gives, and handed to `kept`)."""
        try:
            history, known_urls = await self.history(session.id)
        except StorageError as exc:  # nothing to answer from: say so rather than answer out of context
            yield ErrorEvent(code=exc.code, message=f"this session cannot be read now: {redact_text(exc.message)}")
            return
        try:
            await self._save(session.id, StoredMessage(role="user", content=message))
        except NotFoundError as exc:  # deleted since the request looked it up
            yield ErrorEvent(code=exc.code, message=exc.message)
            return
        except StorageError:  # the store keeps it in memory; answer anyway, the answer's save reports it
            pass
        transcript = _Transcript()
        saved = False
        ctx = ToolContext(thread_id=session.id, agent_name=AGENT_NAME)
        events = self.agent.run(message, history, ctx, known_urls=known_urls)
        try:
            async for event in events:
                transcript.record(event)
                if isinstance(event, Done | ErrorEvent):
                    saved = True
                    status: MessageStatus = "complete" if event.type == "done" else "error"
                    try:
                        await self._save(session.id, transcript.message(status))
                    except NotFoundError as exc:  # the session was deleted while the answer streamed
                        yield ErrorEvent(code=exc.code, message=f"the answer was not saved: {exc.message}")
                        return
                    except StorageError as exc:  # the store keeps it and writes it when storage is back
                        yield ErrorEvent(code=exc.code, message=_unsaved("the answer", exc))
                        return
                if isinstance(event, Done):
                    event = event.model_copy(update={"session_id": session.id})
                yield event
        finally:
            # also runs when the answer is cancelled: keep what was said, marked as cut short
            with anyio.CancelScope(shield=True):
                if not saved:
                    cut = transcript.message(cut_short())
                    kept(cut)
                    with contextlib.suppress(NotFoundError, StorageError):  # a StorageError: kept in memory
                        await self._save(session.id, cut)
                await events.aclose()
