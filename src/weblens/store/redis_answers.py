"""Answers being written, shared by a fleet through Redis: any replica can follow or stop one.

Behind a balancer without stickiness, a page's Stop or a resumed stream reaches any
replica, usually not the one writing the answer. So the writer claims the session
(a key that expires unless it keeps renewing it: a killed replica frees it), appends every
event to a Redis stream, and ends the stream with a marker; a reader on any replica replays
the stream and waits for more with `XREAD BLOCK`. Stop is a message on one pub/sub channel
every replica listens to; the writer cancels its answer, and the asker waits for the
stream's end marker to say whether it stopped. While Redis is lost each replica answers
from its own runs only (`RedisState.run` falls back).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from weblens.store.redis import _EXTEND, _LOCK, _UNLOCK, RedisState

__all__ = ["RedisAnswers"]

log = logging.getLogger("weblens.store")

Event = tuple[str, dict[str, Any]]
_END = "end"
_STOPPED = "stopped"
_GONE = (
    "error",
    {"code": "upstream_error", "message": "the server writing this answer went away before it ended"},
)
_LOST = (
    "error",
    {"code": "upstream_error", "message": "the shared store (Redis) was lost while following this answer"},
)


class RedisAnswers:
    """`AnswerRelay` in Redis. `claim_s`: how long a claim outlives its writer's last renewal."""

    def __init__(
        self,
        state: RedisState,
        *,
        claim_s: float = 15.0,
        kept_s: float = 600.0,
        ended_s: float = 60.0,
        block_s: float = 1.0,
    ) -> None:
        self.state = state
        self.claim_ms = int(claim_s * 1000)
        self.renew_every_s = claim_s / 3
        self.kept_ms = int(kept_s * 1000)
        """How long an answer's events are kept after the last one (a tool may run for minutes)."""
        self.ended_ms = int(ended_s * 1000)
        """How long they are kept after it ended (a reader arriving just then still reads it all)."""
        self.block_ms = int(block_s * 1000)
        self.channel = state.key("answers", "stop")

    def _claim_key(self, session_id: str) -> str:
        return self.state.key("answers", session_id)

    def _stream_key(self, session_id: str, token: str) -> str:
        return self.state.key("answers", session_id, token)

    async def claim(self, session_id: str) -> str | None:
        """A token when no replica writes an answer in `session_id` (now this one does), else None."""
        token = uuid.uuid4().hex

        async def alone() -> str:
            return ""  # Redis lost: this replica's own registry decides

        holder = await self.state.run(
            lambda _: self.state.script(_LOCK, [self._claim_key(session_id)], [token, self.claim_ms]), alone
        )
        return token if not holder else None

    async def publish(self, session_id: str, token: str, events: Sequence[Event]) -> None:
        """Append `events` to the answer's stream and renew the claim (no events: only renew it)."""
        stream = self._stream_key(session_id, token)

        async def put(r: aioredis.Redis) -> None:
            async with r.pipeline(transaction=False) as pipe:
                for name, data in events:
                    pipe.xadd(stream, {"event": name, "data": json.dumps(data, ensure_ascii=False)})
                pipe.pexpire(stream, self.kept_ms)
                await pipe.execute()
            await self.state.script(_EXTEND, [self._claim_key(session_id)], [token, self.claim_ms])

        await self.state.run(put, _nothing)

    async def finish(self, session_id: str, token: str, *, stopped: bool) -> None:
        """End the answer's stream with its marker and free the session."""
        stream = self._stream_key(session_id, token)

        async def end(r: aioredis.Redis) -> None:
            async with r.pipeline(transaction=False) as pipe:
                pipe.xadd(stream, {_END: _STOPPED if stopped else "done"})
                pipe.pexpire(stream, self.ended_ms)
                await pipe.execute()
            await self.state.script(_UNLOCK, [self._claim_key(session_id)], [token])

        await self.state.run(end, _nothing)

    async def running(self, session_ids: Sequence[str]) -> set[str]:
        """Which of `session_ids` have an answer being written on some replica."""
        if not session_ids:
            return set()

        async def read(r: aioredis.Redis) -> set[str]:
            async with r.pipeline(transaction=False) as pipe:
                for session_id in session_ids:
                    pipe.exists(self._claim_key(session_id))
                found = await pipe.execute()
            return {session_id for session_id, there in zip(session_ids, found, strict=True) if there}

        async def none() -> set[str]:
            return set()

        return await self.state.run(read, none)

    async def _writer(self, session_id: str) -> str | None:
        async def none() -> str | None:
            return None

        async def read(r: aioredis.Redis) -> str | None:
            value = await r.get(self._claim_key(session_id))
            return None if value is None else str(value)

        return await self.state.run(read, none)

    async def follow(self, session_id: str, start: int = 0) -> AsyncIterator[Event] | None:
        """The answer's events from the `start`-th on, as they come; None when none is being written."""
        token = await self._writer(session_id)
        if token is None:
            return None
        return self._follow(session_id, token, start)

    async def _follow(self, session_id: str, token: str, start: int) -> AsyncIterator[Event]:
        index = 0
        async for name, data in self._entries(session_id, token):
            if name == _END:
                return
            if index >= start:
                yield name, data
            index += 1

    async def _read(self, stream: str, after: str, *, block: bool) -> list[tuple[str, dict[str, str]]]:
        found: Any = await self.state.client.xread({stream: after}, count=500, block=self.block_ms if block else None)
        return [(str(entry_id), dict(fields)) for _, entries in found or [] for entry_id, fields in entries]

    async def _entries(self, session_id: str, token: str) -> AsyncIterator[Event]:
        """Every entry of the stream, the end marker last as (`end`, {"stopped": bool}); an error
        event when the writer went away without ending it or Redis was lost."""
        stream = self._stream_key(session_id, token)
        last = "0-0"
        while True:
            try:
                found = await self._read(stream, last, block=True)
                if not found and await self.state.client.get(self._claim_key(session_id)) != token:
                    # the writer let go of its claim: it ended (its marker is there by now) or died
                    found = await self._read(stream, last, block=False)
                    if not found:
                        yield _GONE
                        return
            except (RedisError, OSError):
                yield _LOST
                return
            for entry_id, fields in found:
                last = entry_id
                if _END in fields:
                    yield _END, {"stopped": fields[_END] == _STOPPED}
                    return
                yield fields["event"], json.loads(fields["data"])

    async def stop(self, session_id: str, wait_s: float) -> bool | None:
        """Ask the writer of `session_id`'s answer to stop; whether it ended stopped within
        `wait_s` (False if it ended otherwise or not in time), None when none is being written."""
        token = await self._writer(session_id)
        if token is None:
            return None
        try:
            await self.state.client.publish(self.channel, session_id)
        except (RedisError, OSError):
            return False

        async def ending() -> bool:
            async for name, data in self._entries(session_id, token):
                if name == _END:
                    return bool(data["stopped"])
            return False

        try:
            return await asyncio.wait_for(ending(), wait_s)
        except TimeoutError:
            return False

    async def listen(self, stop: Callable[[str], None]) -> None:
        """Call `stop(session_id)` for every Stop any replica is asked for, until cancelled;
        resubscribes after a lost connection."""
        while True:
            pubsub = self.state.client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        stop(str(message["data"]))
            except (RedisError, OSError) as exc:
                log.debug("Stop requests from other replicas are not heard until Redis is back: %s", exc)
                await asyncio.sleep(self.state.retry_s)
            finally:
                await pubsub.aclose()  # type: ignore[no-untyped-call]


async def _nothing() -> None:
    return None
