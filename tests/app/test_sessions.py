"""The SQLite session store on its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from weblens.app.sessions import SessionStore, StoredMessage
from weblens.errors import NotFoundError


def test_messages_keep_tool_calls_sources_and_status_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "sessions.sqlite3"
    store = SessionStore(path)
    question = "  What's   the weather\nin Beijing today, and tomorrow, and the day after that?"
    session = store.create(first_message=question)
    assert session.title == "What's the weather in Beijing today, and tomorrow, and the d…"
    store.add(session.id, StoredMessage(role="user", content="q"))
    store.add(
        session.id,
        StoredMessage(
            role="assistant",
            content="partial",
            status="incomplete",
            tool_calls=[{"id": "c1", "name": "get_weather", "arguments": {"location": "北京"}}],
            sources=[{"title": "Open-Meteo", "url": "https://open-meteo.com/", "number": 1}],
        ),
    )
    store.close()

    reopened = SessionStore(path)
    messages = reopened.messages(session.id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].status == "incomplete" and messages[1].tool_calls[0]["arguments"] == {"location": "北京"}
    assert messages[1].sources[0]["url"] == "https://open-meteo.com/"
    assert [m.content for m in reopened.messages(session.id, last=1)] == ["partial"]
    assert reopened.get(session.id).message_count == 2
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_delete_removes_messages_and_unknown_ids_are_not_found(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3")
    session = store.create("t")
    store.add(session.id, StoredMessage(role="user", content="q"))
    store.delete(session.id)
    assert store.messages(session.id) == []
    for action in (lambda: store.get(session.id), lambda: store.rename(session.id, "x"), lambda: store.delete("x")):
        with pytest.raises(NotFoundError):
            action()


def test_citation_checks_are_kept_and_a_database_from_before_them_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    old = sqlite3.connect(path)  # the schema before citation checks: no `checks` column
    old.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at REAL NOT NULL, "
        "updated_at REAL NOT NULL); CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, "
        "session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, role TEXT NOT NULL, "
        "content TEXT NOT NULL, status TEXT NOT NULL, tool_calls TEXT NOT NULL DEFAULT '[]', "
        "sources TEXT NOT NULL DEFAULT '[]', error TEXT, usage TEXT, created_at REAL NOT NULL);"
        "INSERT INTO sessions VALUES ('s1', 'old', 1, 1);"
        "INSERT INTO messages (session_id, role, content, status, created_at) "
        "VALUES ('s1', 'user', 'hi', 'complete', 1);"
    )
    old.commit()
    old.close()
    store = SessionStore(path)
    check = {"number": 1, "status": "quote_not_found", "sentence": "It said so.", "passage": "", "score": 0.0}
    store.add("s1", StoredMessage(role="assistant", content="It said so [1].", citations=[check],
                                  flagged_urls=["https://made-up.example/"]))  # fmt: skip
    store.close()

    first, second = SessionStore(path).messages("s1")
    assert first.content == "hi" and first.citations == [] and first.flagged_urls == []
    assert second.citations == [check] and second.flagged_urls == ["https://made-up.example/"]
