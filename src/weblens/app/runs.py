"""Answers that run on the server, independent of the HTTP request that asked for them.

A chat message starts a `Run`: a task that drives the agent and records every event it
sends. Any number of readers follow it — the request that started it, or the page again
after a reload — each getting every event from the start, then the new ones as they come.
A reader going away (a closed tab, a reload) leaves the run going; only `stop()` ends it
early, and the answer is then saved as it stood, marked "stopped". One run per session
at a time; at shutdown every run still going is cancelled and saved "incomplete". Either
way the run's last event is `stopped`, saying why, with the sources the answer cites so far.

Given an `AnswerRelay` (a fleet's Redis), a run also copies its events there as they come,
so a reader or a Stop that reaches another replica finds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from weblens.agent.events import AgentEvent
from weblens.store.base import AnswerRelay

__all__ = ["Run", "RunRegistry"]

log = logging.getLogger("weblens.app")

Event = tuple[str, dict[str, Any]]
"""(SSE event name, its data) as the stream sends it."""
SERVER_STOPPING = "the server is stopping: the answer so far is saved, marked incomplete"


class Run:
    """One answer being written: its events so far, whether it ended, and how to stop it."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.events: list[Event] = []
        self.finished = False
        self.stopped = False
        self.task: asyncio.Task[None] | None = None
        self.kept: dict[str, Any] = {}
        """What the cut-short answer kept (its sources), for the `stopped` event."""
        self._changed = asyncio.Event()

    def add(self, name: str, data: dict[str, Any]) -> None:
        self.events.append((name, data))
        self._wake()

    def finish(self) -> None:
        self.finished = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, timeout_s: float | None = None) -> None:
        """Until the next event or the end (at most `timeout_s`)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout_s)

    def stop(self) -> None:
        """Cancel the answer (model stream and tool calls); what was written is kept, marked stopped."""
        if self.task is not None and not self.finished:
            self.stopped = True
            self.task.cancel()

    async def follow(self, start: int = 0) -> AsyncIterator[Event]:
        """Every event from `start` on, waiting for new ones until the run ends."""
        index = start
        while True:
            changed = self._changed
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.finished:
                return
            await changed.wait()


class RunRegistry:
    """The runs going on in this server process, by session."""

    def __init__(self, relay: AnswerRelay | None = None) -> None:
        self._runs: dict[str, Run] = {}
        self.relay = relay
        self._copies: set[asyncio.Task[None]] = set()

    def get(self, session_id: str) -> Run | None:
        return self._runs.get(session_id)

    def start(
        self,
        session_id: str,
        first: Event,
        events: Callable[[Run], AsyncIterator[AgentEvent]],
        *,
        token: str | None = None,
    ) -> Run:
        """Run `events(run)` in the background, recording each as (type, data) after `first`;
        with the relay's claim `token`, copy them to the relay too."""
        run = Run(session_id)
        run.add(*first)
        self._runs[session_id] = run
        if self.relay is not None and token is not None:
            copy = asyncio.get_running_loop().create_task(self._copy(run, self.relay, token))
            self._copies.add(copy)
            copy.add_done_callback(self._copies.discard)

        async def drive() -> None:
            try:
                async for event in events(run):
                    run.add(event.type, event.model_dump(mode="json"))
            except asyncio.CancelledError:
                if run.stopped:
                    run.add(
                        "stopped",
                        {"session_id": session_id, "status": "stopped", "message": "stopped by the user", **run.kept},
                    )
                else:  # only shutting down cancels a run the user did not stop
                    run.add(
                        "stopped",
                        {
                            "session_id": session_id,
                            "status": "incomplete",
                            "reason": "server_stopping",
                            "message": SERVER_STOPPING,
                            **run.kept,
                        },
                    )
                raise
            finally:
                run.finish()
                if self._runs.get(session_id) is run:
                    del self._runs[session_id]

        run.task = asyncio.get_running_loop().create_task(drive(), name=f"weblens answer {session_id}")
        return run

    @staticmethod
    async def _copy(run: Run, relay: AnswerRelay, token: str) -> None:
        """Send the run's events to the relay in order, in batches, renewing the claim while
        nothing happens, and end them there when the run ends."""
        sent = 0
        try:
            while True:
                finished = run.finished
                batch = run.events[sent:]
                await relay.publish(run.session_id, token, batch)
                sent += len(batch)
                if finished and sent == len(run.events):
                    await relay.finish(run.session_id, token, stopped=run.stopped)
                    return
                if sent == len(run.events) and not run.finished:
                    await run.wait(relay.renew_every_s)
        except Exception as exc:  # the answer itself goes on; only other replicas lose sight of it
            log.warning("answer %s is no longer shared with other replicas: %s", run.session_id, type(exc).__name__)

    async def aclose(self) -> None:
        """Cancel every run still going and wait until each has saved what it had; each stream
        then ends with a `stopped` event saying the server is stopping (and the relay has it too)."""
        runs = list(self._runs.values())
        for run in runs:
            if run.task is not None:
                run.task.cancel()
        for run in runs:
            if run.task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await run.task
        if self._copies:
            await asyncio.gather(*self._copies, return_exceptions=True)
