"""POST /api/chat: an SSE stream of delta / tool activity / done / error, saved in a session."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from typing import Any

import httpx
from pydantic import BaseModel

from weblens import Settings, Toolset, define_tool
from weblens.store.sessions import open_session_store
from weblens.testing.llm import ScriptedLLM, Turn, call

POLL_TIMEOUT_S = 10.0


async def test_an_answer_streams_and_is_saved_with_tool_calls_and_sources(
    llm: ScriptedLLM, chat: Any, client: httpx.AsyncClient
) -> None:
    llm.add(Turn(tool_calls=[call("web_search", {"query": "AI news"})]), Turn(text="Big AI news today [1]."))

    events = await chat("今天 AI 领域有什么新闻？")

    names = [e.event for e in events]
    assert names[0] == "session" and names[-1] == "done"
    assert names.index("tool_call") < names.index("tool_result") < names.index("delta")
    session_id = events[0].data["session_id"]
    assert events[0].data["title"] == "今天 AI 领域有什么新闻？"
    deltas = "".join(e.data["text"] for e in events if e.event == "delta")
    done = events[-1].data
    assert deltas == done["answer"] == "Big AI news today [1]."
    assert done["session_id"] == session_id
    assert done["message"].endswith("Sources:\n[1] AI News Daily — https://news.example/ai")
    [source] = done["sources"]
    assert (source["title"], source["url"], source["number"]) == ("AI News Daily", "https://news.example/ai", 1)
    assert source["fetched_at"] > 0 and len(source["sha256"]) == 64  # the ledger: when, and a hash of the text read
    [check] = done["citations"]
    assert (check["number"], check["status"], check["sentence"]) == (1, "cited", "Big AI news today.")
    assert done["usage"]["total_tokens"] > 0 and done["finish_reason"] == "stop"
    tool_call = next(e.data for e in events if e.event == "tool_call")
    assert tool_call["name"] == "web_search" and tool_call["key_argument"] == "AI news"

    saved = (await client.get(f"/api/sessions/{session_id}")).json()
    user, assistant = saved["messages"]
    assert (user["role"], user["content"], user["status"]) == ("user", "今天 AI 领域有什么新闻？", "complete")
    assert (assistant["role"], assistant["content"], assistant["status"]) == (
        "assistant",
        "Big AI news today [1].",
        "complete",
    )
    assert assistant["sources"] == done["sources"]
    assert assistant["citations"] == done["citations"] and assistant["flagged_urls"] == []
    [saved_call] = assistant["tool_calls"]
    assert saved_call["name"] == "web_search" and saved_call["arguments"] == {"query": "AI news"}
    assert saved_call["result"]["ok"] is True and saved_call["result"]["brief"] == "2 results"


async def test_a_follow_up_in_the_session_sends_the_history(llm: ScriptedLLM, chat: Any) -> None:
    llm.add(Turn(tool_calls=[call("web_search", {"query": "x"})]), Turn(text="First answer [2]."), Turn(text="Second."))
    first = await chat("first question")
    session_id = first[0].data["session_id"]

    second = await chat("and then?", session_id)

    assert second[-1].data["session_id"] == session_id
    history = [(m["role"], m["content"]) for m in llm.sent[2]["messages"][1:]]
    assert [role for role, _ in history] == ["user", "assistant", "user"]
    assert history[0][1] == "first question" and history[2][1] == "and then?"
    answer, sources = history[1][1].split("\n\nSources: (cite them by number)\n")
    assert answer == "First answer [2]."
    begin, end = re.search(r"<<<EXTERNAL-CONTENT (\w+) BEGIN>>>", sources), sources.rfind("END>>>")
    assert begin is not None and begin.end() < sources.index("[2] Lab — https://lab.example/") < end


async def test_a_model_failure_is_an_error_event_and_is_saved(
    llm: ScriptedLLM, chat: Any, client: httpx.AsyncClient
) -> None:
    llm.add(Turn(status=400, error="model overloaded"))

    events = await chat("hello")

    assert [e.event for e in events] == ["session", "error"]
    assert events[1].data["code"] == "upstream_error" and "model overloaded" in events[1].data["message"]
    saved = (await client.get(f"/api/sessions/{events[0].data['session_id']}")).json()
    assert [(m["role"], m["status"]) for m in saved["messages"]] == [("user", "complete"), ("assistant", "error")]
    assert "model overloaded" in saved["messages"][1]["error"]["message"]


async def test_a_client_that_leaves_mid_answer_loses_nothing_and_can_follow_again(
    llm: ScriptedLLM, client: httpx.AsyncClient, sse: Callable[[str], list[Any]]
) -> None:
    text = "This answer streams slowly, word by word, and the client will leave halfway through it."
    llm.add(Turn(text=text, chunk_interval_s=0.03))

    received = ""
    async with client.stream("POST", "/api/chat", json={"message": "tell me a long story"}) as response:
        async for chunk in response.aiter_text():
            received += chunk
            if received.count("event: delta") >= 3:
                break
    session_id = sse(received)[0].data["session_id"]
    assert (await client.get(f"/api/sessions/{session_id}")).json()["running"] is True

    again = sse((await client.get(f"/api/sessions/{session_id}/stream", params={"from": 0})).text)

    assert again[0].event == "session" and again[-1].event == "done"
    assert "".join(e.data["text"] for e in again if e.event == "delta") == text
    session = (await client.get(f"/api/sessions/{session_id}")).json()
    user, assistant = session["messages"]
    assert session["running"] is False and user["content"] == "tell me a long story"
    assert assistant["status"] == "complete" and assistant["content"] == text
    missing = await client.get(f"/api/sessions/{session_id}/stream")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_stop_during_a_tool_call_cancels_it_and_keeps_what_was_said(
    llm: ScriptedLLM,
    serve: Callable[..., Any],
    make_settings: Callable[..., Settings],
    sse: Callable[[str], list[Any]],
) -> None:
    cancelled = threading.Event()

    class Query(BaseModel):
        query: str

    async def never_finishes(params: Query) -> str:
        try:
            await asyncio.sleep(POLL_TIMEOUT_S * 2)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "too late"

    slow = define_tool(name="web_search", description="d", input_schema=Query, execute=never_finishes, timeout=60)
    server = serve(make_settings(), Toolset([slow]))
    llm.add(Turn(text="Searching.", tool_calls=[call("web_search", {"query": "slow"})]))

    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
        received = ""
        async with http.stream("POST", "/api/chat", json={"message": "find it"}) as response:
            async for chunk in response.aiter_text():
                received += chunk
                if "event: tool_call" in received and "event: stopped" not in received:
                    session_id = sse(received)[0].data["session_id"]
                    stop = await http.post(f"/api/sessions/{session_id}/stop")
                    assert stop.status_code == 200 and stop.json() == {"stopped": True}
        events = sse(received)
        session = (await http.get(f"/api/sessions/{session_id}")).json()
        again = await http.post(f"/api/sessions/{session_id}/stop")

    assert events[-1].event == "stopped"
    assert await asyncio.to_thread(cancelled.wait, POLL_TIMEOUT_S)
    assistant = session["messages"][1]
    assert assistant["status"] == "stopped" and assistant["content"] == "Searching."
    [saved_call] = assistant["tool_calls"]
    assert saved_call["name"] == "web_search" and saved_call["arguments"] == {"query": "slow"}
    assert "result" not in saved_call
    assert again.status_code == 200 and again.json() == {"stopped": False}  # nothing left to stop


async def test_one_answer_at_a_time_per_session(llm: ScriptedLLM, client: httpx.AsyncClient) -> None:
    llm.add(Turn(text="slow " * 40, chunk_interval_s=0.05), Turn(text="next"))
    async with client.stream("POST", "/api/chat", json={"message": "first"}) as response:
        async for chunk in response.aiter_text():
            session_id = chunk.split('"session_id": "')[1].split('"')[0]
            break
    second = await client.post("/api/chat", json={"message": "second", "session_id": session_id})
    assert second.status_code == 409 and "already being written" in second.json()["error"]["message"]
    await client.post(f"/api/sessions/{session_id}/stop")


async def test_a_server_shutting_down_mid_answer_saves_it_as_incomplete(
    llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings], tmp_path: Any
) -> None:
    settings = make_settings()
    server = serve(settings)
    llm.add(Turn(text="word " * 200, chunk_interval_s=0.05))
    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
        received = ""
        async with http.stream("POST", "/api/chat", json={"message": "long"}) as response:
            async for chunk in response.aiter_text():
                received += chunk
                if received.count("event: delta") >= 2:
                    break
    await asyncio.to_thread(server.stop)

    async with open_session_store(settings) as store:
        [session] = await store.sessions()
        assistant = (await store.messages(session.id))[1]
    assert assistant.status == "incomplete" and assistant.content.startswith("word")


async def test_without_a_model_the_server_runs_and_chat_names_the_settings(
    serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(with_llm=False))
    async with httpx.AsyncClient(base_url=server.url()) as http:
        assert (await http.get("/health")).json()["status"] == "ok"
        page = await http.get("/")
        assert page.status_code == 200 and "<title>weblens chat</title>" in page.text
        assert (await http.get("/static/app.js")).status_code == 200
        status = (await http.get("/api/status")).json()
        assert status["chat"] is False and "WEBLENS_LLM_BASE_URL" in status["reason"]

        response = await http.post("/api/chat", json={"message": "hello"})

        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "not_configured"
        assert "WEBLENS_LLM_BASE_URL" in error["message"] and "WEBLENS_LLM_MODEL" in error["message"]
        assert (await http.get("/api/sessions")).json()["sessions"] == []


async def test_bad_input_is_a_clear_4xx_and_saves_nothing(
    serve: Callable[..., Any], make_settings: Callable[..., Settings], llm: ScriptedLLM
) -> None:
    server = serve(make_settings(server={"max_message_chars": 50}))
    cases: list[tuple[Any, int, str, str]] = [
        (b"{not json", 400, "validation_error", "not valid JSON"),
        (b"[1, 2]", 400, "validation_error", "JSON object"),
        ({}, 400, "validation_error", "`message` must be a string"),
        ({"message": 42}, 400, "validation_error", "`message` must be a string"),
        ({"message": "   "}, 400, "validation_error", "must not be empty"),
        ({"message": "x" * 51}, 413, "too_large", "limit is 50"),
        ({"message": "hi", "session_id": "nope"}, 404, "not_found", "no session with id 'nope'"),
        ({"message": "hi", "padding": "x" * 100_000}, 413, "too_large", "request body is larger than"),
    ]
    async with httpx.AsyncClient(base_url=server.url()) as http:
        for body, status, code, words in cases:
            if isinstance(body, bytes):
                response = await http.post("/api/chat", content=body, headers={"content-type": "application/json"})
            else:
                response = await http.post("/api/chat", json=body)
            assert response.status_code == status, (body, response.text)
            error = response.json()["error"]
            assert error["code"] == code and words in error["message"], (body, error)
        assert (await http.get("/api/sessions")).json()["sessions"] == []
    assert llm.sent == []


async def test_deleting_the_session_mid_answer_ends_the_stream_with_an_error_event(
    llm: ScriptedLLM, client: httpx.AsyncClient, sse: Callable[[str], list[Any]]
) -> None:
    llm.add(Turn(text="A slow answer that keeps going for a while.", chunk_interval_s=0.05))

    received = ""
    async with client.stream("POST", "/api/chat", json={"message": "hi"}) as response:
        async for chunk in response.aiter_text():
            if "event: delta" not in received and "event: delta" in received + chunk:
                session_id = sse(received + chunk)[0].data["session_id"]
                assert (await client.delete(f"/api/sessions/{session_id}")).status_code == 204
            received += chunk

    events = sse(received)
    assert events[-1].event == "error", received
    assert events[-1].data["code"] == "not_found" and "deleted" in events[-1].data["message"]
    assert (await client.get("/api/sessions")).json()["sessions"] == []
