"""The session store on each backend: SQLite (default) and PostgreSQL (`WEBLENS_DATABASE_URL`)."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from weblens import Settings
from weblens.errors import NotFoundError
from weblens.store.migrations import LATEST, MIGRATIONS
from weblens.store.sessions import SessionStore, StorageError, StoredMessage, open_session_store


def _settings(tmp_path: Path, database_url: str | None) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=database_url)


def _versions(tmp_path: Path, database_url: str | None) -> list[int]:
    if database_url is None:
        rows = sqlite3.connect(tmp_path / "data" / "sessions.sqlite3").execute("SELECT version FROM schema_version")
        return sorted(row[0] for row in rows)
    with psycopg.connect(database_url) as conn:
        return sorted(row[0] for row in conn.execute("SELECT version FROM schema_version"))


async def test_messages_keep_tool_calls_sources_and_status_across_reopen(
    tmp_path: Path, database_url: str | None
) -> None:
    settings = _settings(tmp_path, database_url)
    async with open_session_store(settings) as store:
        question = "  What's   the weather\nin Beijing today, and tomorrow, and the day after that?"
        session = await store.create(first_message=question)
        assert session.title == "What's the weather in Beijing today, and tomorrow, and the d…"
        await store.add(session.id, StoredMessage(role="user", content="q"))
        await store.add(
            session.id,
            StoredMessage(
                role="assistant",
                content="partial \x00 nul and \ud800 lone surrogate",
                status="incomplete",
                tool_calls=[{"id": "c1", "name": "get_weather", "arguments": {"location": "北京\x00"}}],
                sources=[{"title": "Open-Meteo", "url": "https://open-meteo.com/", "number": 1}],
            ),
        )

    async with open_session_store(settings) as reopened:
        messages = await reopened.messages(session.id)
        assert [m.role for m in messages] == ["user", "assistant"]
        assert messages[1].status == "incomplete"
        assert messages[1].tool_calls[0]["arguments"] == {"location": "北京\x00"}
        assert messages[1].sources[0]["url"] == "https://open-meteo.com/"
        assert messages[1].content == "partial \ufffd nul and \ufffd lone surrogate"
        assert [m.content for m in await reopened.messages(session.id, last=1)] == [messages[1].content]
        assert (await reopened.get(session.id)).message_count == 2
    assert _versions(tmp_path, database_url) == [m.version for m in MIGRATIONS]


async def test_search_rename_delete_and_unknown_ids(tmp_path: Path, database_url: str | None) -> None:
    async with open_session_store(_settings(tmp_path, database_url)) as store:
        trip = await store.create("Trip to Kyoto")
        other = await store.create("Groceries")
        await store.add(other.id, StoredMessage(role="user", content="buy 100% OAT_milk"))
        assert [s.id for s in await store.sessions("kyoto")] == [trip.id]
        assert [s.id for s in await store.sessions("100% oat_")] == [other.id]
        assert await store.sessions("100%_oat") == []  # % and _ are literal
        renamed = await store.rename(trip.id, "  Kyoto in May ")
        assert renamed.title == "Kyoto in May"
        assert (await store.sessions())[0].id == trip.id  # most recently updated first
        await store.delete(other.id)
        assert await store.messages(other.id) == []
        for action in (store.get(other.id), store.rename(other.id, "x"), store.delete("nope")):
            with pytest.raises(NotFoundError):
                await action
        with pytest.raises(NotFoundError, match="deleted"):
            await store.add(other.id, StoredMessage(role="user", content="late"))


async def test_replicas_starting_at_once_migrate_once(tmp_path: Path, database_url: str | None) -> None:
    settings = _settings(tmp_path, database_url)
    stores: list[SessionStore] = [open_session_store(settings) for _ in range(6)]
    try:
        await asyncio.gather(*(store.open() for store in stores))
        session = await stores[0].create("shared")
        await stores[1].add(session.id, StoredMessage(role="user", content="from replica 1"))
        assert [m.content for m in await stores[5].messages(session.id)] == ["from replica 1"]
    finally:
        for store in stores:
            await store.aclose()
    assert _versions(tmp_path, database_url) == list(range(1, LATEST + 1))
    async with open_session_store(settings) as again:  # idempotent: nothing left to apply
        await again.open()
    assert _versions(tmp_path, database_url) == list(range(1, LATEST + 1))


async def test_an_sqlite_file_written_before_versioning_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "data" / "sessions.sqlite3"
    path.parent.mkdir(parents=True)
    old = sqlite3.connect(path)
    for sql in MIGRATIONS[0].sqlite:
        old.execute(sql)
    old.execute("INSERT INTO sessions VALUES ('old', 'from last year', 1, 1)")
    old.commit()
    old.close()
    async with open_session_store(_settings(tmp_path, None)) as store:
        assert [s.title for s in await store.sessions()] == ["from last year"]
        await store.add("old", StoredMessage(role="assistant", content="a", flagged_urls=["https://x.example/"]))
        assert (await store.messages("old"))[0].flagged_urls == ["https://x.example/"]
    assert _versions(tmp_path, None) == [m.version for m in MIGRATIONS]  # adopted as 1, then migrated


async def test_an_unreachable_database_is_a_quick_storage_error_without_the_password(tmp_path: Path) -> None:
    """A server that accepts connections and never answers (a dead host behind a proxy) must not hang."""
    with socket_that_never_answers() as port:
        url = f"postgresql://weblens:hunter2-secret@127.0.0.1:{port}/weblens?connect_timeout=2"
        async with open_session_store(_settings(tmp_path, url)) as store:
            started = asyncio.get_running_loop().time()
            with pytest.raises(StorageError) as caught:
                await store.create("x")
            assert asyncio.get_running_loop().time() - started < 30
    assert "hunter2" not in caught.value.message and "weblens@" not in caught.value.message
    assert f"127.0.0.1:{port}/weblens" in caught.value.message


@contextmanager
def socket_that_never_answers() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never says a word."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def test_a_database_url_must_be_postgresql() -> None:
    with pytest.raises(ValueError, match="WEBLENS_DATABASE_URL must start with postgresql://"):
        Settings(database_url="mysql://x@y/z")
    assert Settings(database_url="  ").database_url is None


def test_weblens_config_masks_the_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from weblens.cli import app

    monkeypatch.setenv("WEBLENS_DATABASE_URL", "postgresql://weblens:pg-pass-9731@db.internal:5432/weblens")
    result = CliRunner().invoke(app, ["config"])
    assert result.exit_code == 0
    assert "database_url" in result.output and "pg-pass-9731" not in result.output


async def test_citation_checks_are_kept_with_the_answer(tmp_path: Path, database_url: str | None) -> None:
    settings = _settings(tmp_path, database_url)
    check = {"number": 1, "status": "quote_not_found", "sentence": "It said so.", "passage": "", "score": 0.0}
    async with open_session_store(settings) as store:
        session = await store.create(first_message="q")
        await store.add(session.id, StoredMessage(role="user", content="q"))
        await store.add(
            session.id,
            StoredMessage(role="assistant", content="It said so [1].", citations=[check],
                          flagged_urls=["https://made-up.example/"]),
        )  # fmt: skip
    async with open_session_store(settings) as reopened:
        first, second = await reopened.messages(session.id)
    assert first.citations == [] and first.flagged_urls == []
    assert second.citations == [check] and second.flagged_urls == ["https://made-up.example/"]
