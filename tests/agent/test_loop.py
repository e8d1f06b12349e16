"""The tool-calling loop against a scripted model over real HTTP."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel

from weblens import ToolResult, define_tool
from weblens.agent.loop import NO_TOOLS_NOTE, REPEAT_NOTE, STEP_LIMIT_NOTE
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


async def test_a_plain_question_calls_no_tool(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    calls: list[str] = []
    llm.add(Turn(text="Paris is the capital of France."))

    answer = await ask("What is the capital of France?", [make_search(calls=calls)])

    assert answer.text == "Paris is the capital of France."
    assert answer.done.message == "Paris is the capital of France."
    assert answer.done.sources == [] and calls == [] and answer.calls == []
    assert answer.done.finish_reason == "stop" and answer.done.steps == 0
    assert [t["function"]["name"] for t in llm.sent[0]["tools"]] == ["web_search"]
    assert llm.sent[0]["stream"] is True


async def test_tool_results_go_back_to_the_model_and_sources_end_the_answer(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    calls: list[str] = []
    results = [("AI News Daily", "https://news.example/ai"), ("Robots Weekly", "https://robots.example/w")]
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news today"}, id="c1")]),
        Turn(text="Two labs released new models today [1]."),
    )

    answer = await ask("今天 AI 领域有什么新闻？", [make_search(results, calls=calls)])

    assert calls == ["AI news today"]
    second = llm.sent[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"] == {"name": "web_search", "arguments": '{"query": "AI news today"}'}
    tool = tool_messages(llm.sent[1])[0]
    assert tool["tool_call_id"] == "c1"
    assert "[1] AI News Daily — https://news.example/ai" in tool["content"]
    assert "[2] Robots Weekly — https://robots.example/w" in tool["content"]
    fence = tool["content"].index("<<<EXTERNAL-CONTENT", tool["content"].index("Sources:"))
    assert fence < tool["content"].index("[1] AI News Daily") < tool["content"].rindex("END>>>")  # titles are fenced
    done = answer.done
    assert done.answer == "Two labs released new models today [1]."
    assert [(s.number, s.title, s.url) for s in done.sources] == [(1, "AI News Daily", "https://news.example/ai")]
    assert done.message.endswith("Sources:\n[1] AI News Daily — https://news.example/ai")
    assert done.steps == 1
    assert done.usage.total_tokens == 40
    call_event, result_event = answer.calls[0], answer.results[0]
    assert (call_event.name, call_event.key_argument, call_event.arguments) == (
        "web_search",
        "AI news today",
        {"query": "AI news today"},
    )
    assert result_event.ok and result_event.outcome == "ok" and result_event.brief == "2 results"
    assert result_event.result_count == 2 and result_event.duration_ms >= 0


async def test_an_answer_citing_nothing_lists_what_the_tools_returned(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(Turn(tool_calls=[call("web_search", {"query": "q"})]), Turn(text="Here is what I found."))

    answer = await ask("news?", [make_search([("A", "https://a.example/"), ("B", "https://b.example/")])])

    assert [s.url for s in answer.done.sources] == ["https://a.example/", "https://b.example/"]


async def test_a_url_no_tool_returned_is_never_a_source(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "q"})]),
        Turn(text="See [1] and [7] and https://made-up.example/story."),
    )

    answer = await ask("news?", [make_search([("A", "https://a.example/"), ("Bad", "javascript:alert(1)")])])

    assert [s.url for s in answer.done.sources] == ["https://a.example/"]
    assert "made-up.example" not in answer.done.message.split("Sources:")[1]
    assert "javascript:" not in answer.done.message


async def test_calls_of_one_step_run_concurrently(llm: ScriptedLLM, ask: Any) -> None:
    both_started = asyncio.Event()
    started: list[str] = []

    class Key(BaseModel):
        key: str

    async def waits_for_the_other(params: Key) -> str:
        started.append(params.key)
        if len(started) == 2:
            both_started.set()
        await both_started.wait()  # a sequential loop would time out here
        return f"done {params.key}"

    tool = define_tool(name="slow", description="d", input_schema=Key, execute=waits_for_the_other, timeout=5)
    llm.add(
        Turn(tool_calls=[call("slow", {"key": "a"}), call("slow", {"key": "b"})]),
        Turn(text="Both finished."),
    )

    answer = await ask("go", [tool])

    assert [r.ok for r in answer.results] == [True, True]
    assert [m["content"] for m in tool_messages(llm.sent[1])] == ["done a", "done b"]


async def test_a_repeated_call_is_answered_from_the_earlier_result(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    calls: list[str] = []
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "same"})]),
        Turn(tool_calls=[call("web_search", '{ "query":"same" }')]),
        Turn(text="Answer [1]."),
    )

    answer = await ask("q", [make_search(calls=calls)])

    assert calls == ["same"]
    repeated = tool_messages(llm.sent[2])[-1]["content"]
    assert repeated.startswith(REPEAT_NOTE.format(name="web_search"))
    assert "[1] AI News Daily" in repeated
    assert [r.repeated for r in answer.results] == [False, True]
    assert answer.done.answer == "Answer [1]."


async def test_identical_calls_in_one_step_run_once(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    calls: list[str] = []
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "x"}), call("web_search", {"query": "x"})]),
        Turn(text="ok"),
    )

    answer = await ask("q", [make_search(calls=calls)])

    assert calls == ["x"]
    assert len(tool_messages(llm.sent[1])) == 2
    assert sorted(r.repeated for r in answer.results) == [False, True]


async def test_the_step_limit_ends_with_an_answer_without_tools(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    calls: list[str] = []
    llm.add(*[Turn(tool_calls=[call("web_search", {"query": f"try {i}"})]) for i in range(2)])
    llm.add(Turn(text="From what I found so far: [2]."))

    answer = await ask("keep searching", [make_search(calls=calls)], max_steps=2)

    assert calls == ["try 0", "try 1"]
    final = llm.sent[2]
    assert "tools" not in final
    assert final["messages"][-1] == {"role": "user", "content": STEP_LIMIT_NOTE}
    assert answer.done.finish_reason == "step_limit"
    assert answer.done.answer == "From what I found so far: [2]."
    assert answer.done.steps == 2
    assert llm.remaining == 0


async def test_a_model_that_ignores_the_limit_still_gives_an_answer(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(*[Turn(tool_calls=[call("web_search", {"query": q})]) for q in ("a", "b")])

    answer = await ask("q", [make_search()], max_steps=1)

    assert answer.done.answer == "(The model returned no answer.)"
    assert answer.done.finish_reason == "step_limit"


async def test_a_failed_tool_goes_to_the_model_and_the_answer_says_so(
    llm: ScriptedLLM, ask: Any, make_failing: Any
) -> None:
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "AI news"})]),
        Turn(text="I could not search the web just now (the search service failed)."),
    )

    answer = await ask("AI news?", [make_failing()])

    result = answer.results[0]
    assert not result.ok and result.outcome == "upstream_error"
    assert "HTTP 500" in result.brief
    content = tool_messages(llm.sent[1])[0]["content"]
    assert content.startswith("Error (upstream_error):") and "HTTP 500" in content
    assert answer.error is None
    assert "could not search" in answer.done.answer and answer.done.sources == []


async def test_unknown_tools_and_bad_arguments_are_errors_the_model_reads(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(
        Turn(tool_calls=[call("web_serch", {"query": "x"}), call("web_search", '{"query": ')]),
        Turn(text="Sorry."),
    )

    answer = await ask("q", [make_search()])

    assert sorted(r.outcome for r in answer.results) == ["not_found", "validation_error"]
    contents = [m["content"] for m in tool_messages(llm.sent[1])]
    assert "Available tools: web_search" in contents[0]
    assert "not valid JSON" in contents[1]
    assert answer.done.answer == "Sorry."


async def test_without_tools_the_model_is_told_web_access_is_unavailable(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(text="I can't look that up right now, but generally..."))

    answer = await ask("北京今天温度？", [], enabled=["get_weather", "web_search"])

    first = llm.sent[0]
    assert "tools" not in first
    expected = NO_TOOLS_NOTE.format(why="these tools are not configured: get_weather, web_search")
    assert expected in first["messages"][0]["content"]
    assert answer.done.notice == "Web access is unavailable: these tools are not configured: get_weather, web_search."
    assert answer.done.answer.startswith("I can't look that up")


async def test_the_enable_list_limits_what_the_model_sees(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    llm.add(Turn(text="hi"))

    await ask("hi", [make_search(), make_search(name="secret_tool")], enabled=["web_search"])

    assert [t["function"]["name"] for t in llm.sent[0]["tools"]] == ["web_search"]


async def test_history_goes_before_the_new_message(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(text="You asked about Paris."))
    history = [{"role": "user", "content": "Paris?"}, {"role": "assistant", "content": "The capital of France."}]

    await ask("What did I ask?", [], history)

    roles = [(m["role"], m["content"]) for m in llm.sent[0]["messages"][1:]]
    assert roles == [*[(m["role"], m["content"]) for m in history], ("user", "What did I ask?")]


async def test_text_before_a_tool_call_and_the_answer_are_separate_paragraphs(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(Turn(text="Let me check.", tool_calls=[call("web_search", {"query": "x"})]), Turn(text="Found it [1]."))

    answer = await ask("q", [make_search()])

    assert answer.text == "Let me check.\n\nFound it [1]."
    assert llm.sent[1]["messages"][2]["content"] == "Let me check."


async def test_a_model_error_is_an_error_event(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(status=400, error="context length exceeded"))

    answer = await ask("q")

    assert answer.error is not None
    assert answer.error.code == "upstream_error" and "context length exceeded" in answer.error.message
    assert not any(e.type == "done" for e in answer.events)


async def test_an_error_mid_stream_keeps_the_text_streamed_so_far(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(text="Half an ans", error="the server overloaded"))

    answer = await ask("q")

    assert answer.text == "Half an ans"
    assert answer.error is not None and "overloaded" in answer.error.message


async def test_a_garbled_stream_is_an_error_event_not_a_traceback(llm: ScriptedLLM, ask: Any) -> None:
    garbled = Reply(body="data: {not json at all\n\n", content_type="text/event-stream")
    llm.server.queue("/v1/chat/completions", garbled)

    answer = await ask("q")

    assert answer.error is not None and answer.error.code == "upstream_error"
    assert "not valid JSON" in answer.error.message


async def test_tool_context_carries_the_thread(llm: ScriptedLLM, model: Any) -> None:
    from weblens import ToolContext, Toolset
    from weblens.agent import Agent

    seen: list[str | None] = []

    class Empty(BaseModel):
        pass

    async def who(params: Empty, ctx: ToolContext) -> ToolResult:
        seen.append(ctx.thread_id)
        return ToolResult.success("ok")

    tool = define_tool(name="who", description="d", input_schema=Empty, execute=who)
    llm.add(Turn(tool_calls=[call("who")]), Turn(text="done"))

    events = [e async for e in Agent(model, Toolset([tool])).run("q", ctx=ToolContext(thread_id="t-1"))]

    assert seen == ["t-1"] and events[-1].type == "done"
    assert json.loads(llm.sent[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]) == {}


async def test_each_executed_tool_call_is_logged_once(
    llm: ScriptedLLM, ask: Any, make_search: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="weblens.tools")
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": "q"})]),
        Turn(tool_calls=[call("web_search", {"query": "q"})]),
        Turn(text="ok"),
    )

    await ask("q", [make_search()])

    records = [r for r in caplog.records if getattr(r, "tool", None) == "web_search"]
    assert len(records) == 1
    assert records[0].arguments == {"query": "q"} and records[0].result_count == 1  # type: ignore[attr-defined]


async def test_tool_call_ids_a_server_reuses_are_made_unique(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    # some OpenAI-compatible servers number calls per response ("call_0", "call_1", ...) or repeat one id
    llm.add(
        Turn(tool_calls=[call("web_search", {"query": q}, id="call_0") for q in ("a", "b")]),
        Turn(tool_calls=[call("web_search", {"query": "c"}, id="call_0")]),
        Turn(text="done [1]."),
    )

    answer = await ask("q", [make_search()])

    ids = [c.id for c in answer.calls]
    assert len(set(ids)) == 3 and sorted(r.id for r in answer.results) == sorted(ids)
    sent = llm.sent[2]["messages"]
    assistant_ids = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    assert assistant_ids == ids == [m["tool_call_id"] for m in tool_messages(llm.sent[2])]
    assert answer.done.answer == "done [1]."


async def test_a_model_without_tool_support_still_answers_plainly(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    # what Ollama answers for a model that cannot call tools (vLLM's refusal also names tools)
    llm.add(Turn(status=400, error="registry.ollama.ai/library/gemma:2b does not support tools"))
    llm.add(Turn(text="Paris is the capital of France."))

    answer = await ask("What is the capital of France?", [make_search()])

    assert answer.error is None
    assert answer.done.answer == "Paris is the capital of France."
    assert answer.done.notice is not None and "Web access is unavailable" in answer.done.notice
    assert "tools" in llm.sent[0] and "tools" not in llm.sent[1]
    assert NO_TOOLS_NOTE.split("(")[0] in llm.sent[1]["messages"][0]["content"]


async def test_other_model_refusals_are_still_errors(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    llm.add(Turn(status=400, error="the context is too long"))

    answer = await ask("hi", [make_search()])

    assert answer.error is not None and "too long" in answer.error.message and llm.remaining == 0
    assert len(llm.sent) == 1
