"""The compose topology as processes: `weblens serve` replicas sharing one PostgreSQL behind a
round-robin balancer. What one replica saved, the other serves; one killed with SIGKILL
leaves the rest answering. With the fleet's Redis, an answer one replica writes is followed,
stopped and guarded (one per session) from the other."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from weblens.testing import ServedApp
from weblens.testing.balancer import RoundRobin
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import PostgresServer
from weblens.testing.redis import RedisServer
from weblens.testing.replicas import Replica, Replicas

from .conftest import Sse, parse_sse


@pytest.fixture
def replicas(postgres_server: PostgresServer, llm: ScriptedLLM, tmp_path: Path) -> Iterator[list[Replica]]:
    env = {
        "WEBLENS_DATABASE_URL": postgres_server.create_database(),
        "WEBLENS_LLM_BASE_URL": llm.base_url,
        "WEBLENS_LLM_MODEL": "scripted-model",
        "WEBLENS_CACHE_ENABLED": "false",
    }
    with Replicas(2, tmp_path, env) as started:  # 180 s: interpreters importing weblens at once
        yield started


@pytest.fixture
def redis_replicas(
    postgres_server: PostgresServer, redis_server: RedisServer, llm: ScriptedLLM, tmp_path: Path
) -> Iterator[list[Replica]]:
    redis_server.flush()
    env = {
        "WEBLENS_DATABASE_URL": postgres_server.create_database(),
        "WEBLENS_REDIS_URL": redis_server.url,
        "WEBLENS_LLM_BASE_URL": llm.base_url,
        "WEBLENS_LLM_MODEL": "scripted-model",
        "WEBLENS_CACHE_ENABLED": "false",
    }
    with Replicas(2, tmp_path, env) as started:
        yield started


async def _events(response: httpx.Response) -> AsyncIterator[Sse]:
    """The SSE events of a streamed response as they arrive."""
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        *blocks, buffer = buffer.split("\n\n")
        for event in parse_sse("\n\n".join(blocks)):
            yield event


@pytest.mark.timeout(400)
async def test_replicas_share_sessions_and_survive_a_sigkill(
    replicas: list[Replica], llm: ScriptedLLM
) -> None:
    balancer = RoundRobin([replica.url for replica in replicas])
    front = ServedApp(balancer)
    llm.add(Turn(text="Saved once, seen everywhere."), Turn(text="Still here."))
    try:
        async with httpx.AsyncClient(base_url=front.url(), timeout=60) as http:
            events = parse_sse((await http.post("/api/chat", json={"message": "hello fleet"})).text)
            assert events[-1].event == "done"
            session_id = events[0].data["session_id"]
            seen = [(await http.get(f"/api/sessions/{session_id}")).json() for _ in range(2)]
            for body in seen:  # one read from each replica
                assert [m["content"] for m in body["messages"]] == ["hello fleet", "Saved once, seen everywhere."]
            assert balancer.served == [2, 1] or balancer.served == [1, 2]

            replicas[0].process.send_signal(signal.SIGKILL)
            replicas[0].process.wait(timeout=10)
            survivor = replicas[1].url
            follow_up = await http.post(
                survivor + "/api/chat", json={"message": "and now?", "session_id": session_id}
            )
            assert parse_sse(follow_up.text)[-1].event == "done"
            body = (await http.get(f"{survivor}/api/sessions/{session_id}")).json()
            assert [m["content"] for m in body["messages"]][-2:] == ["and now?", "Still here."]
            assert (await http.get(f"{survivor}/ready")).json()["checks"]["postgresql"] == {"status": "ok"}
    finally:
        front.stop()


@pytest.mark.timeout(400)
async def test_an_answer_one_replica_writes_is_followed_and_stopped_from_the_other(
    redis_replicas: list[Replica], llm: ScriptedLLM
) -> None:
    story = "Once upon a time, " + "a fleet kept writing. " * 60
    llm.add(Turn(text=story, chunk_interval_s=0.05), Turn(text=story, chunk_interval_s=0.05))  # 17 s each
    writer, other = (replica.url for replica in redis_replicas)
    written: list[Sse] = []
    followed: list[Sse] = []
    async with httpx.AsyncClient(timeout=60) as http:
        async with http.stream("POST", f"{writer}/api/chat", json={"message": "write slowly"}) as answer:
            events = _events(answer)
            async for event in events:
                written.append(event)
                if event.event == "delta":
                    break
            session_id = written[0].data["session_id"]

            seen = (await http.get(f"{other}/api/sessions/{session_id}")).json()
            assert seen["running"] is True  # so the page reloaded on the other replica resumes it
            listed = (await http.get(f"{other}/api/sessions")).json()["sessions"]
            assert [s["running"] for s in listed if s["id"] == session_id] == [True]
            twice = await http.post(f"{other}/api/chat", json={"message": "again", "session_id": session_id})
            assert twice.status_code == 409  # one answer per session across the fleet

            async def follow() -> None:
                async with http.stream("GET", f"{other}/api/sessions/{session_id}/stream?from=0") as resumed:
                    assert resumed.status_code == 200
                    async for event in _events(resumed):
                        followed.append(event)

            following = asyncio.create_task(follow())
            async for event in events:
                written.append(event)
                if sum(e.event == "delta" for e in written) >= 5:
                    break
            while sum(e.event == "delta" for e in followed) < 3:
                await asyncio.sleep(0.05)
            stop = await http.post(f"{other}/api/sessions/{session_id}/stop")
            assert stop.status_code == 200 and stop.json() == {"stopped": True}
            written.extend([event async for event in events])
            await asyncio.wait_for(following, 30)

        assert written[-1].event == "stopped"
        assert followed == written  # every event, in order, from the start
        partial = "".join(e.data["text"] for e in written if e.event == "delta")
        assert story.startswith(partial) and len(partial) < len(story)

        body = (await http.get(f"{other}/api/sessions/{session_id}")).json()
        assert body["running"] is False
        assert body["messages"][-1]["status"] == "stopped"
        assert body["messages"][-1]["content"] == partial
        assert (await http.post(f"{other}/api/sessions/{session_id}/stop")).json() == {"stopped": False}
        gone = await http.get(f"{other}/api/sessions/{session_id}/stream")
        assert gone.status_code == 404

        # the writer killed mid-answer: a follower elsewhere is told, once its claim has expired
        async with http.stream(
            "POST", f"{writer}/api/chat", json={"message": "and again", "session_id": session_id}
        ) as again:
            async for event in _events(again):
                if event.event == "delta":
                    break
            async with http.stream("GET", f"{other}/api/sessions/{session_id}/stream?from=0") as resumed:
                orphaned = _events(resumed)
                async for event in orphaned:
                    if event.event == "delta":
                        break
                redis_replicas[0].process.send_signal(signal.SIGKILL)
                rest = [event async for event in orphaned]
        assert rest[-1].event == "error" and "went away" in rest[-1].data["message"]
        assert (await http.get(f"{other}/api/sessions/{session_id}")).json()["running"] is False
