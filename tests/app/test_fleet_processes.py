"""The compose topology as processes: `weblens serve` replicas sharing one PostgreSQL behind a
round-robin balancer. What one replica saved, the other serves; one killed with SIGKILL
leaves the rest answering."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from weblens.testing import ServedApp
from weblens.testing.balancer import RoundRobin
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import PostgresServer
from weblens.testing.replicas import Replica, Replicas

from .conftest import parse_sse


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
