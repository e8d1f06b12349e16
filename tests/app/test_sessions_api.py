"""Session CRUD under /api/sessions."""

from __future__ import annotations

from typing import Any

import httpx

from weblens.testing.llm import ScriptedLLM, Turn


async def test_create_list_get_rename_delete(client: httpx.AsyncClient) -> None:
    created = await client.post("/api/sessions", json={"title": "Trip planning"})
    assert created.status_code == 201
    session = created.json()
    assert session["title"] == "Trip planning" and session["message_count"] == 0
    untitled = (await client.post("/api/sessions")).json()
    assert untitled["title"] == "New chat"

    listed = (await client.get("/api/sessions")).json()["sessions"]
    assert {s["id"] for s in listed} == {session["id"], untitled["id"]}

    got = (await client.get(f"/api/sessions/{session['id']}")).json()
    assert got["title"] == "Trip planning" and got["messages"] == []

    renamed = await client.patch(f"/api/sessions/{session['id']}", json={"title": "  Kyoto in May  "})
    assert renamed.status_code == 200 and renamed.json()["title"] == "Kyoto in May"
    listed = (await client.get("/api/sessions")).json()["sessions"]
    assert listed[0]["id"] == session["id"]  # most recently updated first

    deleted = await client.delete(f"/api/sessions/{session['id']}")
    assert deleted.status_code == 204
    missing = await client.get(f"/api/sessions/{session['id']}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert [s["id"] for s in (await client.get("/api/sessions")).json()["sessions"]] == [untitled["id"]]


async def test_unknown_sessions_and_bad_titles_are_4xx(client: httpx.AsyncClient) -> None:
    for method in ("GET", "PATCH", "DELETE"):
        response = await client.request(method, "/api/sessions/unknown", json={"title": "x"})
        assert response.status_code == 404, method
        assert "no session with id 'unknown'" in response.json()["error"]["message"]
    session = (await client.post("/api/sessions", json={"title": "a"})).json()
    for body in ({"title": ""}, {"title": 5}, {}):
        response = await client.patch(f"/api/sessions/{session['id']}", json=body)
        assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    too_long = await client.post("/api/sessions", json={"title": "t" * 201})
    assert too_long.status_code == 413
    bad = await client.post("/api/sessions", content=b"{", headers={"content-type": "application/json"})
    assert bad.status_code == 400


async def test_chat_in_a_created_session_and_delete_removes_its_messages(
    client: httpx.AsyncClient, llm: ScriptedLLM
) -> None:
    session = (await client.post("/api/sessions", json={"title": "Mine"})).json()
    llm.add(Turn(text="Hello!"))

    response = await client.post("/api/chat", json={"session_id": session["id"], "message": "hi"})

    assert "event: done" in response.text
    got = (await client.get(f"/api/sessions/{session['id']}")).json()
    assert got["title"] == "Mine" and [m["content"] for m in got["messages"]] == ["hi", "Hello!"]
    assert (await client.get("/api/sessions")).json()["sessions"][0]["message_count"] == 2
    await client.delete(f"/api/sessions/{session['id']}")
    assert (await client.get(f"/api/sessions/{session['id']}")).status_code == 404


async def test_sessions_are_found_by_title_or_by_what_was_said(
    client: httpx.AsyncClient, chat: Any, llm: ScriptedLLM
) -> None:
    llm.add(Turn(text="The lighthouse stands on Skerryvore."))
    await chat("Tell me about a lighthouse")
    await client.post("/api/sessions", json={"title": "Weather in Paris"})
    await client.post("/api/sessions", json={"title": "100% _literal_ title"})

    async def titles(query: str) -> list[str]:
        response = await client.get("/api/sessions", params={"q": query})
        return [s["title"] for s in response.json()["sessions"]]

    assert await titles("paris") == ["Weather in Paris"]
    assert await titles("skerryvore") == ["Tell me about a lighthouse"]  # in the answer
    assert await titles("100%") == ["100% _literal_ title"]
    assert await titles("_lit") == ["100% _literal_ title"]
    assert await titles("%") == ["100% _literal_ title"]  # not a wildcard
    assert len(await titles("")) == 3
