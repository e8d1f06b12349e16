"""Three `weblens serve` replicas sharing one PostgreSQL; one is killed with SIGKILL mid-run.

Prints:
- 60 chat streams (against the scripted model) spread over the 3 replicas; at the
  half-way point replica 0 is killed with SIGKILL. Every message committed before the
  kill — every answer a client saw end with `done`, which the server sends only after
  saving it — must be intact and readable from the surviving replicas. Counts per outcome.
- the overhead of PostgreSQL against SQLite for one session write (`add()` of an
  assistant message, through the store the Runtime uses), median ms of many writes, and
  the ratio, measured in this process one after the other.

Needs PostgreSQL's binaries (`apt-get install -y postgresql`); run as any user:

    .venv/bin/python bench/fleet_chat.py
"""

from __future__ import annotations

import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from weblens import Settings
from weblens.store.sessions import StoredMessage, open_session_store
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import INSTALL_HINT, PostgresServer
from weblens.testing.replicas import Replicas

REPLICAS = 3
STREAMS = 60
CONCURRENCY = 12
KILL_AFTER_DONE = STREAMS // 3
WRITES = 300
WRITE_ROUNDS = 10
CHUNK_INTERVAL_S = 0.01


def answer_for(question: str) -> str:
    return f"Answer to {question}: " + "the fleet keeps every committed word. " * 8


def respond(body: dict[str, Any]) -> Turn:
    return Turn(text=answer_for(body["messages"][-1]["content"]), chunk_interval_s=CHUNK_INTERVAL_S)


def replicas(database_url: str, model_url: str, root: Path) -> Replicas:
    env = {
        "WEBLENS_DATABASE_URL": database_url,
        "WEBLENS_LLM_BASE_URL": model_url,
        "WEBLENS_LLM_MODEL": "scripted-model",
        "WEBLENS_LLM_TOOLS": "",
        "WEBLENS_CACHE_ENABLED": "false",
    }
    return Replicas(REPLICAS, root, env, start_timeout_s=240)  # imports take seconds each when loaded


async def one_stream(http: httpx.AsyncClient, url: str, question: str) -> dict[str, Any]:
    """POST /api/chat and read the SSE stream; what the client saw."""
    seen: dict[str, Any] = {"question": question, "replica": url, "session_id": None, "done": False, "text": ""}
    try:
        async with http.stream("POST", url + "/api/chat", json={"message": question}) as response:
            event = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data = json.loads(line[5:])
                    if event == "session":
                        seen["session_id"] = data["session_id"]
                    elif event == "delta":
                        seen["text"] += data["text"]
                    elif event == "done":
                        seen["done"] = True
                    elif event == "error":
                        seen["error"] = data["message"]
    except httpx.HTTPError as exc:
        seen["cut"] = type(exc).__name__
    return seen


async def chat_run(urls: list[str], killed: subprocess.Popen[bytes]) -> list[dict[str, Any]]:
    done = 0
    kill_time: float | None = None
    gate = asyncio.Semaphore(CONCURRENCY)

    async with httpx.AsyncClient(timeout=httpx.Timeout(60, connect=5)) as http:

        async def run(n: int) -> dict[str, Any]:
            nonlocal done, kill_time
            async with gate:
                seen = await one_stream(http, urls[n % REPLICAS], f"question {n}")
            seen["finished_at"] = time.monotonic()
            if seen["done"]:
                done += 1
                if done == KILL_AFTER_DONE and kill_time is None:
                    killed.send_signal(signal.SIGKILL)
                    kill_time = time.monotonic()
            return seen

        results = await asyncio.gather(*(run(n) for n in range(STREAMS)))
    for seen in results:
        seen["before_kill"] = kill_time is not None and seen["finished_at"] < kill_time
    return list(results)


async def check_from_survivors(results: list[dict[str, Any]], survivors: list[str]) -> dict[str, int]:
    counts = {
        "streams": len(results),
        "done (saved before done was sent)": 0,
        "done and intact from another replica": 0,
        "cut by the kill": 0,
        "cut: question saved": 0,
        "cut: partial answer saved": 0,
        "done but missing or damaged": 0,
    }
    async with httpx.AsyncClient(timeout=30) as http:
        for n, seen in enumerate(results):
            expected = answer_for(seen["question"])
            messages: list[dict[str, Any]] = []
            if seen["session_id"]:
                response = await http.get(f"{survivors[n % len(survivors)]}/api/sessions/{seen['session_id']}")
                if response.status_code == 200:
                    messages = response.json()["messages"]
            if seen["done"]:
                counts["done (saved before done was sent)"] += 1
                intact = [(m["role"], m["content"], m["status"]) for m in messages] == [
                    ("user", seen["question"], "complete"),
                    ("assistant", expected, "complete"),
                ]
                counts["done and intact from another replica" if intact else "done but missing or damaged"] += 1
            else:
                counts["cut by the kill"] += 1
                if any(m["role"] == "user" and m["content"] == seen["question"] for m in messages):
                    counts["cut: question saved"] += 1
                if any(m["role"] == "assistant" for m in messages):
                    counts["cut: partial answer saved"] += 1
    return counts


async def write_ms(local: Settings, shared: Settings) -> tuple[list[float], list[float]]:
    """Milliseconds per `add()` of one assistant message on each backend, in alternating rounds
    (so a burst of load on the shared machine hits both alike), after a warm-up."""
    message = StoredMessage(role="assistant", content=answer_for("write"), sources=[{"title": "t", "url": "u"}])
    times: tuple[list[float], list[float]] = ([], [])
    async with open_session_store(local) as sqlite, open_session_store(shared) as postgres:
        stores = (sqlite, postgres)
        sessions = [await store.create("bench") for store in stores]
        for store, session in zip(stores, sessions, strict=True):
            for _ in range(20):
                await store.add(session.id, message)
        for _ in range(WRITE_ROUNDS):
            for store, session, out in zip(stores, sessions, times, strict=True):
                for _ in range(WRITES // WRITE_ROUNDS):
                    started = time.perf_counter()
                    await store.add(session.id, message)
                    out.append((time.perf_counter() - started) * 1000)
    return times


async def main() -> None:
    server = PostgresServer.find()
    if server is None:
        sys.exit(INSTALL_HINT)
    with server, ScriptedLLM(responder=respond) as model, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        database_url = server.create_database()
        with replicas(database_url, model.base_url, root) as started:
            urls = [replica.url for replica in started]
            began = time.perf_counter()
            results = await chat_run(urls, started[0].process)
            wall = time.perf_counter() - began
            counts = await check_from_survivors(results, urls[1:])
        print(f"{STREAMS} chat streams over {REPLICAS} replicas sharing PostgreSQL, replica 0 SIGKILLed after "
              f"{KILL_AFTER_DONE} answers ({wall:.1f} s):")
        for name, count in counts.items():
            print(f"  {name:45} {count}")
        lost = counts["done but missing or damaged"]
        print(f"  committed messages lost or damaged: {lost} (target 0)")

        sqlite, postgres = await write_ms(
            Settings(data_dir=root / "local"), Settings(data_dir=root / "pg", database_url=server.create_database())
        )
    lite, pg = statistics.median(sqlite), statistics.median(postgres)
    print(f"session write (add one assistant message), median of {WRITES}:")
    print(f"  SQLite      {lite:.3f} ms")
    print(f"  PostgreSQL  {pg:.3f} ms  ({pg / lite:.2f}x SQLite, +{pg - lite:.3f} ms)")


if __name__ == "__main__":
    asyncio.run(main())
