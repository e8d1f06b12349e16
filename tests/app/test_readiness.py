"""/ready tells the truth about the sessions store: down while writes fail (a full disk, a
read-only database), down while PostgreSQL is hung, and ready again within two seconds of
the database coming back, whatever backoff its connection pool is in."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from weblens import Settings
from weblens.store.postgres_sessions import PostgresSessions
from weblens.store.sessions import StorageError
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import INSTALL_HINT, PostgresServer

from .conftest import parse_sse
from .test_storage_failures import ANSWER, Storage, served

pytestmark = pytest.mark.timeout(180)

BACK_WITHIN_S = 2.0


async def _ready_within(http: httpx.AsyncClient, limit_s: float) -> float:
    """Seconds until /ready answers 200; fails past `limit_s`."""
    started = time.monotonic()
    while (await http.get("/ready")).status_code != 200:
        assert time.monotonic() - started < limit_s, (await http.get("/ready")).text
        await asyncio.sleep(0.1)
    return time.monotonic() - started


async def test_ready_is_down_while_writes_fail_and_ready_once_they_work(
    llm: ScriptedLLM,
    make_settings: Callable[..., Settings],
    database_url: str | None,
    request: pytest.FixtureRequest,
) -> None:
    llm.add(Turn(text="First answer."), Turn(text=ANSWER))
    with served(make_settings(database_url=database_url)) as (app, server):
        storage = Storage(app, database_url, request)
        name = "sqlite" if database_url is None else "postgresql"
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            first = parse_sse((await http.post("/api/chat", json={"message": "first"})).text)
            assert (await http.get("/ready")).status_code == 200
            storage.fail(full=True)  # reads still work: a plain `SELECT 1` passes
            second = {"message": "second", "session_id": first[0].data["session_id"]}
            events = parse_sse((await http.post("/api/chat", json=second)).text)
            assert events[-1].event == "error"  # the answer could not be written

            ready = await http.get("/ready")
            assert ready.status_code == 503
            check = ready.json()["checks"][name]
            assert check["status"] == "down" and "writes fail" in check["error"]

            storage.recover()
            await _ready_within(http, BACK_WITHIN_S + 2.0)  # the kept answer is written by the check itself


async def test_ready_within_two_seconds_of_postgresql_allowing_connections_again(
    llm: ScriptedLLM, make_settings: Callable[..., Settings], postgres_server: PostgresServer
) -> None:
    url = postgres_server.create_database()
    name = url.rsplit("/", 1)[1]
    with served(make_settings(database_url=url)) as (_, server):
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            assert (await http.get("/ready")).status_code == 200
            postgres_server.sql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            postgres_server.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
            down_until = time.monotonic() + 9.0  # long enough for the pool's reconnect backoff to reach 8 s
            while time.monotonic() < down_until:
                assert (await http.get("/ready")).status_code == 503
                await asyncio.sleep(0.5)
            postgres_server.sql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            await _ready_within(http, BACK_WITHIN_S)
            assert (await http.get("/api/sessions")).status_code == 200


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


@contextmanager
def hung(server: PostgresServer) -> Iterator[None]:
    """Every PostgreSQL process stopped (SIGSTOP): connections stay open, nothing answers."""
    postmaster = int((server.datadir / "postmaster.pid").read_text().split()[0])
    stopped = _descendants(postmaster)
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A server of this test's own: stopping it must not stall the shared one."""
    server = PostgresServer.find()
    if server is None:
        pytest.skip(INSTALL_HINT)
    with server:
        yield server


async def test_a_hung_postgresql_is_a_bounded_storage_error_and_recovers_after_sigcont(
    own_postgres: PostgresServer,
) -> None:
    store = PostgresSessions(own_postgres.create_database(), pool_wait_s=2.0, answer_s=3.0)
    async with store:
        session = await store.create("before the hang")
        with hung(own_postgres):
            for call in (store.sessions, store.check, lambda: store.messages(session.id)):
                started = time.monotonic()
                with pytest.raises(StorageError) as caught:
                    await call()
                assert time.monotonic() - started < 6.0
                assert "did not answer" in caught.value.message or "within" in caught.value.message
        deadline = time.monotonic() + 10.0
        while True:
            try:
                listed = await store.sessions()
                break
            except StorageError:
                assert time.monotonic() < deadline, "no recovery after SIGCONT"
                await asyncio.sleep(0.2)
        assert [s.id for s in listed] == [session.id]
