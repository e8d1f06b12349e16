"""The compose topology as processes: `weblens serve` replicas sharing one PostgreSQL behind a
round-robin balancer. What one replica saved, the other serves; one killed with SIGKILL
leaves the rest answering."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from weblens.testing import ServedApp
from weblens.testing.balancer import RoundRobin
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import PostgresServer

from .conftest import parse_sse

START_S = 180.0  # three interpreters importing weblens at once on a loaded 2-core machine


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def replicas(
    postgres_server: PostgresServer, llm: ScriptedLLM, tmp_path: Path
) -> Iterator[list[tuple[subprocess.Popen[bytes], str]]]:
    database_url = postgres_server.create_database()
    started = []
    for i in range(2):
        port = _port()
        env = {
            **os.environ,
            "WEBLENS_DATABASE_URL": database_url,
            "WEBLENS_LLM_BASE_URL": llm.base_url,
            "WEBLENS_LLM_MODEL": "scripted-model",
            "WEBLENS_DATA_DIR": str(tmp_path / f"replica{i}"),
            "WEBLENS_CACHE_ENABLED": "false",
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "weblens", "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started.append((process, f"http://127.0.0.1:{port}"))
    try:
        for process, url in started:
            deadline = time.monotonic() + START_S
            while True:
                assert process.poll() is None, "a replica exited at start-up"
                try:
                    if httpx.get(url + "/ready", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "a replica never became ready"
                time.sleep(0.2)
        yield started
    finally:
        for process, _ in started:
            if process.poll() is None:
                process.terminate()
        for process, _ in started:
            process.wait(timeout=30)


@pytest.mark.timeout(400)
async def test_replicas_share_sessions_and_survive_a_sigkill(
    replicas: list[tuple[subprocess.Popen[bytes], str]], llm: ScriptedLLM
) -> None:
    balancer = RoundRobin([url for _, url in replicas])
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

            replicas[0][0].send_signal(signal.SIGKILL)
            replicas[0][0].wait(timeout=10)
            survivor = replicas[1][1]
            follow_up = await http.post(
                survivor + "/api/chat", json={"message": "and now?", "session_id": session_id}
            )
            assert parse_sse(follow_up.text)[-1].event == "done"
            body = (await http.get(f"{survivor}/api/sessions/{session_id}")).json()
            assert [m["content"] for m in body["messages"]][-2:] == ["and now?", "Still here."]
            assert (await http.get(f"{survivor}/ready")).json()["checks"]["postgresql"] == {"status": "ok"}
    finally:
        front.stop()
