"""POST /api/chat against habits of real OpenAI-compatible servers, as the page's user sees them."""

from __future__ import annotations

from typing import Any

import httpx

from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply


async def test_a_thinking_model_behind_ollama_answers_without_its_thinking(
    llm: ScriptedLLM, chat: Any, client: httpx.AsyncClient
) -> None:
    calls = [call("web_search", {"query": "AI news"}), call("web_search", {"query": "AI chips"})]
    llm.add(
        Turn(text="<think>Two searches.</think>", tool_calls=calls, call_indexes="zero", finish_reason="stop"),
        Turn(text="<think>\nSource 1 has it.\n</think>\n\nBig AI news today [1].", finish_reason="length"),
    )

    events = await chat("AI news?")

    assert [e.data["arguments"]["query"] for e in events if e.event == "tool_call"] == ["AI news", "AI chips"]
    done = events[-1].data
    assert "".join(e.data["text"] for e in events if e.event == "delta") == done["answer"] == "Big AI news today [1]."
    assert done["finish_reason"] == "length" and "cut short" in done["notice"]
    saved = (await client.get(f"/api/sessions/{done['session_id']}")).json()
    assert saved["messages"][1]["content"] == "Big AI news today [1]."


async def test_a_base_url_that_reaches_a_web_page_says_which_setting(llm: ScriptedLLM, chat: Any) -> None:
    page = "<!doctype html><html><head><title>LM Studio</title></head><body></body></html>"
    llm.server.queue("/v1/chat/completions", Reply(body=page, content_type="text/html"))

    events = await chat("hello")

    assert [e.event for e in events] == ["session", "error"]
    message = events[1].data["message"]
    assert "HTML page" in message and "WEBLENS_LLM_BASE_URL" in message and "<title>" not in message
