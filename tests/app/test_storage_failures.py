"""Failing storage under the chat API, on both backends, made to fail for real.

SQLite: the file may grow no further (`PRAGMA max_page_count`, as on a full disk), or
the database is read-only (`PRAGMA query_only`, as a read-only file is to a non-root user).
PostgreSQL: the database turns read-only, or is gone. An answer that cannot be saved is
still streamed, the stream ends with a clear `error` event, the answer stays in memory
and is written once storage is back; a replica without its database keeps serving the
rest and says what it cannot do.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from weblens import Settings
from weblens.app.server import create_app
from weblens.store.sessions import StorageError, StoredMessage, open_session_store
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.postgres import PostgresServer

from .conftest import parse_sse, search_toolset

WAIT_S = 20.0
ANSWER = "The answer nobody may lose. " * 300  # larger than a page: the file must grow to hold it


@contextmanager
def served(settings: Settings) -> Iterator[tuple[Starlette, ServedApp]]:
    app = create_app(settings, toolset=search_toolset())
    server = ServedApp(app)
    try:
        yield app, server
    finally:
        server.stop()


class Storage:
    """Makes the sessions storage of an app fail, and recover, for real."""

    def __init__(self, app: Starlette, database_url: str | None, request: pytest.FixtureRequest) -> None:
        self.app = app
        self.url = database_url
        self.request = request

    def _postgres(self) -> tuple[PostgresServer, str]:
        assert self.url is not None
        server: PostgresServer = self.request.getfixturevalue("postgres_server")
        return server, self.url.rsplit("/", 1)[1]

    def _reconnect_all(self, server: PostgresServer, name: str) -> None:
        server.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")

    def fail(self, *, full: bool = False) -> None:
        if self.url is None:
            db = self.app.state.runtime.sessions.store.connection()
            if full:  # the file may not grow: what a full disk does to SQLite
                pages = db.execute("PRAGMA page_count").fetchone()[0]
                db.execute(f"PRAGMA max_page_count = {pages}")
            else:
                db.execute("PRAGMA query_only = ON")
            return
        server, name = self._postgres()
        server.sql(f"ALTER DATABASE {name} SET default_transaction_read_only = on")
        self._reconnect_all(server, name)

    def recover(self) -> None:
        if self.url is None:
            db = self.app.state.runtime.sessions.store.connection()
            db.execute("PRAGMA max_page_count = 1073741823")
            db.execute("PRAGMA query_only = OFF")
            return
        server, name = self._postgres()
        server.sql(f"ALTER DATABASE {name} RESET default_transaction_read_only")
        self._reconnect_all(server, name)


async def _messages_in_storage(settings: Settings, session_id: str) -> list[StoredMessage]:
    """What a fresh reader of the storage sees (another replica, or this one after a restart)."""
    async with open_session_store(settings) as store:
        return await store.messages(session_id)


async def test_an_answer_that_cannot_be_saved_is_reported_in_the_stream_kept_and_saved_later(
    llm: ScriptedLLM,
    make_settings: Callable[..., Settings],
    database_url: str | None,
    request: pytest.FixtureRequest,
) -> None:
    settings = make_settings(database_url=database_url)
    llm.add(Turn(text="First answer."), Turn(text=ANSWER))
    with served(settings) as (app, server):
        storage = Storage(app, database_url, request)
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            first = parse_sse((await http.post("/api/chat", json={"message": "first"})).text)
            session_id = first[0].data["session_id"]
            assert first[-1].event == "done"

            storage.fail(full=True)
            response = await http.post("/api/chat", json={"message": "second", "session_id": session_id})

            assert response.status_code == 200
            events = parse_sse(response.text)
            deltas = "".join(e.data["text"] for e in events if e.event == "delta")
            assert deltas == ANSWER  # the user still reads the answer
            last = events[-1]
            assert last.event == "error" and last.data["code"] == "upstream_error"
            assert "the answer could not be saved" in last.data["message"]
            assert "kept on this server" in last.data["message"]
            assert "Traceback" not in response.text
            assert ANSWER not in [m.content for m in await _messages_in_storage(settings, session_id)]  # not written

            # this replica shows it meanwhile, from memory
            shown = (await http.get(f"/api/sessions/{session_id}")).json()["messages"]
            assert [m["content"] for m in shown][2:] == ["second", ANSWER]

            storage.recover()
            deadline = time.monotonic() + WAIT_S
            while len(stored := await _messages_in_storage(settings, session_id)) < 4:
                assert time.monotonic() < deadline, "the kept messages were never written"
                await asyncio.sleep(0.2)
            assert [m.content for m in stored] == ["first", "First answer.", "second", ANSWER]
            assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]
            shown = (await http.get(f"/api/sessions/{session_id}")).json()["messages"]
            assert len(shown) == 4  # once, not twice


async def test_past_the_bound_an_unsaved_answer_is_not_kept_and_the_stream_says_it_is_lost(
    llm: ScriptedLLM,
    make_settings: Callable[..., Settings],
    database_url: str | None,
    request: pytest.FixtureRequest,
) -> None:
    settings = make_settings(database_url=database_url, server={"pending_max_messages": 2})
    llm.add(Turn(text="First answer."), Turn(text=ANSWER), Turn(text="Third answer, never kept."))
    with served(settings) as (app, server):
        storage = Storage(app, database_url, request)
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            first = parse_sse((await http.post("/api/chat", json={"message": "first"})).text)
            session_id = first[0].data["session_id"]
            storage.fail(full=True)
            kept = parse_sse((await http.post("/api/chat", json={"message": "second", "session_id": session_id})).text)
            assert "kept on this server" in kept[-1].data["message"]  # two messages wait: the bound is reached

            response = await http.post("/api/chat", json={"message": "third", "session_id": session_id})
            events = parse_sse(response.text)
            assert "".join(e.data["text"] for e in events if e.event == "delta") == "Third answer, never kept."
            last = events[-1]
            assert last.event == "error" and last.data["code"] == "upstream_error"
            assert "could not be saved and is lost" in last.data["message"]
            assert "server.pending_max_messages" in last.data["message"]
            assert app.state.runtime.sessions.waiting == 2  # memory held no more than the bound

            storage.recover()
            deadline = time.monotonic() + WAIT_S
            while ANSWER not in (contents := [m.content for m in await _messages_in_storage(settings, session_id)]):
                assert time.monotonic() < deadline, "the kept messages were never written"
                await asyncio.sleep(0.2)
            # the kept ones, in order ("third" too where a short row still fitted); the lost answer is not there
            assert contents[:4] == ["first", "First answer.", "second", ANSWER]
            assert "Third answer, never kept." not in contents


async def test_kept_messages_are_bounded_in_bytes_too(tmp_path: Path) -> None:
    from weblens.store.pending import PendingFullError, PendingWrites
    from weblens.store.sqlite_sessions import SqliteSessions

    sqlite = SqliteSessions(tmp_path / "s.sqlite3")
    async with PendingWrites(sqlite, max_bytes=len(ANSWER) * 2) as store:
        session = await store.create("t")
        sqlite.connection().execute("PRAGMA query_only = ON")
        for _ in range(2):
            with pytest.raises(StorageError) as kept:
                await store.add(session.id, StoredMessage(role="assistant", content=ANSWER[: len(ANSWER) // 2]))
            assert not isinstance(kept.value, PendingFullError)
        with pytest.raises(PendingFullError, match=r"server\.pending_max_mb"):
            await store.add(session.id, StoredMessage(role="assistant", content=ANSWER))
        assert store.waiting == 2 and store.waiting_bytes <= len(ANSWER) * 2


async def test_a_new_chat_on_failing_storage_is_a_503_json_error_not_a_500(
    llm: ScriptedLLM, make_settings: Callable[..., Settings], database_url: str | None, request: pytest.FixtureRequest
) -> None:
    with served(make_settings(database_url=database_url)) as (app, server):
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            assert (await http.get("/api/sessions")).status_code == 200  # opened and migrated
            Storage(app, database_url, request).fail()
            response = await http.post("/api/chat", json={"message": "hello"})
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "upstream_error" and error["message"].startswith("saved sessions are unavailable")


@contextmanager
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers: a database host that hangs."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield int(sock.getsockname()[1])


async def test_a_replica_without_its_database_serves_the_rest_and_says_what_it_cannot(
    llm: ScriptedLLM, make_settings: Callable[..., Settings]
) -> None:
    with silent_port() as port:
        url = f"postgresql://weblens:pg-secret-pw@127.0.0.1:{port}/weblens?connect_timeout=2"
        with served(make_settings(database_url=url)) as (_, server):
            async with httpx.AsyncClient(base_url=server.url(), timeout=60) as http:
                assert (await http.get("/health")).json()["status"] == "ok"
                tool = await http.post("/api/tools/web_search", json={"arguments": {"query": "still here"}})
                assert tool.status_code == 200 and "results for still here" in tool.text

                started = time.monotonic()
                chat = await http.post("/api/chat", json={"message": "hello"})
                assert time.monotonic() - started < 30  # bounded by the timeouts, not a hang
                assert chat.status_code == 503
                assert f"127.0.0.1:{port}/weblens" in chat.json()["error"]["message"]
                listed = await http.get("/api/sessions")
                assert listed.status_code == 503

                ready = await http.get("/ready")
                assert ready.status_code == 503
                body = ready.json()
                assert body["status"] == "down" and body["checks"]["postgresql"]["status"] == "down"
                assert "postgresql" in body["error"]["message"]
                for text in (chat.text, listed.text, ready.text):
                    assert "pg-secret-pw" not in text and "Traceback" not in text
