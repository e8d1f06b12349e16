"""The agent against the ways real OpenAI-compatible servers stream differently from OpenAI.

Each test scripts one server's habit over real HTTP and asserts what the user gets.
"""

from __future__ import annotations

import json
from typing import Any

from weblens import Toolset
from weblens.agent import Agent, ChatModel
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply

from .conftest import Answer


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


async def _run_on(llm: ScriptedLLM, question: str, tools: list[Any] | None = None, **model: Any) -> Answer:
    """The agent's answer through a model set up as given, on a server the `ask` fixture cannot stand for."""
    chat = ChatModel(base_url=llm.base_url, **{"model": "m", "timeout": 10, **model})
    try:
        return Answer([e async for e in Agent(chat, Toolset(tools or [])).run(question)])
    finally:
        await chat.aclose()


async def _two_searches(llm: ScriptedLLM, ask: Any, make_search: Any, **habit: Any) -> Answer:
    queries: list[str] = []
    calls = [call("web_search", {"query": "Oslo weather"}), call("web_search", {"query": "Bergen weather"})]
    llm.add(Turn(tool_calls=calls, **habit), Turn(text="Both looked up [1]."))
    answer = await ask("weather in Oslo and Bergen?", [make_search(calls=queries)])
    assert sorted(queries) == ["Bergen weather", "Oslo weather"], answer.events
    assert [c.arguments for c in answer.calls] == [{"query": "Oslo weather"}, {"query": "Bergen weather"}]
    assert [r.ok for r in answer.results] == [True, True]
    assert len(tool_messages(llm.sent[1])) == 2
    return answer


async def test_parallel_calls_all_at_index_zero_stay_apart(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    answer = await _two_searches(llm, ask, make_search, call_indexes="zero")
    assert answer.done.answer == "Both looked up [1]."


async def test_calls_streamed_without_an_index_stay_apart(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    await _two_searches(llm, ask, make_search, call_indexes="absent")


async def test_a_name_repeated_in_every_fragment_is_one_name(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    answer = await _two_searches(llm, ask, make_search, name_every_fragment=True)
    assert [c.name for c in answer.calls] == ["web_search", "web_search"]


async def test_a_no_argument_call_with_an_empty_arguments_string_runs(llm: ScriptedLLM, ask: Any) -> None:
    from pydantic import BaseModel

    from weblens import ToolResult, define_tool

    class NoArgs(BaseModel):
        pass

    async def now(params: NoArgs) -> ToolResult:
        return ToolResult.success("It is noon.")

    clock = define_tool(name="current_time", description="The time", input_schema=NoArgs, execute=now)
    llm.add(Turn(tool_calls=[call("current_time", "")]), Turn(text="Noon."))

    answer = await ask("time?", [clock])

    assert [r.ok for r in answer.results] == [True] and answer.done.answer == "Noon."
    assert llm.sent[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"] == "{}"


async def test_thinking_in_the_content_is_not_the_answer(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    """DeepSeek-R1 / Qwen3 through Ollama write their reasoning into the content as <think>…</think>."""
    llm.add(Turn(text="<think>\nThe user wants the capital. It is Paris.\n</think>\n\nParis is the capital of France."))

    answer = await ask("capital of France?", [make_search()])

    assert answer.text == "Paris is the capital of France."
    assert answer.done.answer == "Paris is the capital of France." and "think" not in answer.done.message


async def test_thinking_before_a_tool_call_is_not_sent_back_or_shown(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(
        Turn(text="<think>I should search.</think>", tool_calls=[call("web_search", {"query": "AI news"})]),
        Turn(text="<think>Source 1 says it.</think>AI news [1]."),
    )

    answer = await ask("AI news?", [make_search()])

    assert answer.done.answer == "AI news [1]."
    assert llm.sent[1]["messages"][-2]["content"] is None


async def test_reasoning_fields_are_not_shown(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(reasoning="Let me think about France.", text="Paris."))

    answer = await ask("capital of France?")

    assert answer.text == "Paris." and answer.done.answer == "Paris."


async def test_a_server_that_refuses_stream_options_still_answers(make_search: Any) -> None:
    """Mistral, older vLLM and some gateways answer 400 "Unknown parameter: 'stream_options'"."""
    async with ScriptedLLM(unsupported=["stream_options"]) as llm:
        llm.add(Turn(tool_calls=[call("web_search", {"query": "AI news"})]), Turn(text="AI news [1]."))
        answer = await _run_on(llm, "AI news?", [make_search()])

        assert answer.error is None and answer.done.answer == "AI news [1]."
        assert ["stream_options" in body for body in llm.sent] == [True, False, False]  # asked once


async def test_an_html_page_instead_of_a_stream_names_the_base_url_setting(llm: ScriptedLLM, ask: Any) -> None:
    """A base URL without /v1 often reaches a web UI that answers 200 with its HTML page."""
    page = "<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>app</body></html>"
    llm.server.queue("/v1/chat/completions", Reply(body=page, content_type="text/html; charset=utf-8"))

    answer = await ask("hi")

    assert answer.error is not None and answer.error.code == "upstream_error"
    assert "HTML page" in answer.error.message and "WEBLENS_LLM_BASE_URL" in answer.error.message


async def test_an_empty_stream_is_an_error_not_an_empty_answer(llm: ScriptedLLM, ask: Any) -> None:
    llm.server.queue("/v1/chat/completions", Reply(body="", content_type="text/event-stream"))

    answer = await ask("hi")

    assert answer.error is not None and "empty stream" in answer.error.message


async def test_a_stalled_stream_times_out_and_names_the_setting() -> None:
    async with ScriptedLLM([Turn(text="a slow answer", chunk_interval_s=2.0)]) as llm:
        answer = await _run_on(llm, "hi", timeout=0.3, max_retries=0)

    assert answer.error is not None and answer.error.code == "timeout"
    assert "0.3 s" in answer.error.message and "WEBLENS_LLM_TIMEOUT" in answer.error.message


def test_scripted_fragments_are_keyed_as_scripted() -> None:
    """The scripted server really sends the habit the tests above rely on."""
    llm = ScriptedLLM()
    calls = [call("a", {"x": 1}), call("b", {"y": 2})]
    for habit, expected in (("zero", {0}), ("absent", {None}), ("openai", {0, 1})):
        chunks = list(llm._chunks(Turn(tool_calls=calls, call_indexes=habit), include_usage=False))
        found = set()
        for raw in chunks:
            data = raw.decode().removeprefix("data: ").strip()
            if data == "[DONE]":
                continue
            for fragment in json.loads(data)["choices"][0]["delta"].get("tool_calls") or ():
                found.add(fragment.get("index"))
        assert found == expected, habit


async def test_calls_without_ids_at_one_index_are_told_apart_by_their_names(llm: ScriptedLLM, model: ChatModel) -> None:
    def fragment(**function: str) -> str:
        delta = {"tool_calls": [{"index": 0, "function": function}]}
        return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}) + "\n\n"

    body = "".join(
        [
            fragment(name="web_search", arguments='{"query": '),
            fragment(arguments='"Oslo"}'),
            fragment(name="get_weather", arguments='{"city": "Oslo"}'),
            fragment(name="web_search", arguments='{"query": "Bergen"}'),
            "data: [DONE]\n\n",
        ]
    )
    llm.server.queue("/v1/chat/completions", Reply(body=body, content_type="text/event-stream"))

    turn = await model.complete([{"role": "user", "content": "q"}])

    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("web_search", '{"query": "Oslo"}'),
        ("get_weather", '{"city": "Oslo"}'),
        ("web_search", '{"query": "Bergen"}'),
    ]
    assert len({c.id for c in turn.tool_calls}) == 3


async def test_a_tool_name_in_the_wrong_case_calls_the_tool(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    queries: list[str] = []
    llm.add(Turn(tool_calls=[call("Web_Search", {"query": "AI news"})]), Turn(text="AI news [1]."))

    answer = await ask("AI news?", [make_search(calls=queries)])

    assert queries == ["AI news"] and [r.ok for r in answer.results] == [True]
    assert answer.calls[0].name == "web_search"
    assert llm.sent[1]["messages"][-2]["tool_calls"][0]["function"]["name"] == "web_search"


async def test_an_invented_tool_is_an_error_the_model_reads(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    llm.add(Turn(tool_calls=[call("browse_internet", {"url": "x"})]), Turn(text="I could not browse."))

    answer = await ask("q", [make_search()])

    assert [r.outcome for r in answer.results] == ["not_found"]
    assert "Available tools: web_search" in tool_messages(llm.sent[1])[0]["content"]
    assert answer.error is None and answer.done.answer == "I could not browse."


async def test_arguments_that_are_not_an_object_are_an_error_the_model_reads(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(Turn(tool_calls=[call("web_search", '["AI news"]')]), Turn(text="Sorry."))

    answer = await ask("q", [make_search()])

    assert [r.outcome for r in answer.results] == ["validation_error"]
    assert answer.error is None and answer.done.answer == "Sorry."


async def test_arguments_encoded_twice_are_read_once_more(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    """Some models behind vLLM/Ollama send the arguments object as a JSON string inside JSON."""
    queries: list[str] = []
    llm.add(Turn(tool_calls=[call("web_search", json.dumps('{"query": "AI news"}'))]), Turn(text="AI news [1]."))

    answer = await ask("q", [make_search(calls=queries)])

    assert queries == ["AI news"] and answer.calls[0].arguments == {"query": "AI news"}


async def test_an_answer_cut_at_the_token_limit_says_so(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(text="The three reasons are: first,", finish_reason="length"))

    answer = await ask("why?")

    assert answer.done.finish_reason == "length"
    assert answer.done.notice is not None and "cut short" in answer.done.notice


async def test_an_answer_stopped_by_the_content_filter_says_so(llm: ScriptedLLM, ask: Any) -> None:
    llm.add(Turn(text="", finish_reason="content_filter"))

    answer = await ask("something")

    assert answer.done.finish_reason == "content_filter"
    assert answer.done.notice is not None and "content filter" in answer.done.notice


async def test_tool_calls_with_finish_reason_stop_still_run(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    """vLLM and Ollama end a tool-calling turn with "stop"; the calls are what counts."""
    queries: list[str] = []
    llm.add(Turn(tool_calls=[call("web_search", {"query": "x"})], finish_reason="stop"), Turn(text="x [1]."))

    answer = await ask("q", [make_search(calls=queries)])

    assert queries == ["x"] and answer.done.answer == "x [1]." and answer.done.finish_reason == "stop"


async def test_finish_reason_tool_calls_without_calls_is_the_answer(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    llm.add(Turn(text="Paris.", finish_reason="tool_calls"))

    answer = await ask("q", [make_search()])

    assert answer.error is None and answer.done.answer == "Paris." and answer.calls == []


async def test_a_stream_that_ends_before_the_model_finished_is_an_error(llm: ScriptedLLM, ask: Any) -> None:
    """No finish_reason and no [DONE]: the server closed the stream cleanly but early."""
    chunk = {"choices": [{"index": 0, "delta": {"content": "The answer is"}, "finish_reason": None}]}
    llm.server.queue(
        "/v1/chat/completions", Reply(body="data: " + json.dumps(chunk) + "\n\n", content_type="text/event-stream")
    )

    answer = await ask("q")

    assert answer.text == "The answer is"
    assert answer.error is not None and "ended before" in answer.error.message


async def test_a_stream_without_done_that_finished_is_complete(llm: ScriptedLLM, ask: Any) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Paris."}, "finish_reason": "stop"}]}
    llm.server.queue(
        "/v1/chat/completions", Reply(body="data: " + json.dumps(chunk) + "\n\n", content_type="text/event-stream")
    )

    answer = await ask("q")

    assert answer.error is None and answer.done.answer == "Paris."


async def test_arguments_sent_as_an_object_are_read(llm: ScriptedLLM, model: ChatModel) -> None:
    """llama.cpp's server can send `arguments` as a JSON object instead of JSON text."""
    delta = {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "web_search", "arguments": {"query": "x"}}}]}
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": "tool_calls"}]}
    body = "data: " + json.dumps(chunk) + "\n\ndata: [DONE]\n\n"
    llm.server.queue("/v1/chat/completions", Reply(body=body, content_type="text/event-stream"))

    turn = await model.complete([{"role": "user", "content": "q"}])

    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [("web_search", {"query": "x"})]


async def test_a_call_written_as_json_text_is_run_not_shown(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    """Small models behind Ollama answer with the call in the content instead of tool_calls."""
    queries: list[str] = []
    written = '```json\n{"name": "web_search", "parameters": {"query": "AI news"}}\n```'
    llm.add(Turn(text=written), Turn(text="AI news [1]."))

    answer = await ask("AI news?", [make_search(calls=queries)])

    assert queries == ["AI news"]
    assert answer.text == "AI news [1]." and answer.done.answer == "AI news [1]."
    assistant = llm.sent[1]["messages"][-2]
    assert assistant["content"] is None and assistant["tool_calls"][0]["function"]["name"] == "web_search"


async def test_calls_written_in_tool_call_tags_are_run(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    queries: list[str] = []
    written = (
        '<tool_call>\n{"name": "web_search", "arguments": {"query": "a"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "web_search", "arguments": {"query": "b"}}\n</tool_call>'
    )
    llm.add(Turn(text=written), Turn(text="Done [1]."))

    answer = await ask("q", [make_search(calls=queries)])

    assert sorted(queries) == ["a", "b"] and answer.done.answer == "Done [1]."


async def test_json_that_is_not_a_call_is_the_answer(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    text = '{"name": "Ada Lovelace", "born": 1815}'
    llm.add(Turn(text=text))

    answer = await ask("Give me Ada as JSON", [make_search()])

    assert answer.text == text and answer.done.answer == text and answer.calls == []
    assert len(llm.sent) == 1


async def test_text_that_merely_starts_like_a_call_streams_as_it_comes(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    for text in ("[1] is the first source; see it.", "```python\nprint('hi')\n```", '{ "a": 1 } is JSON.'):
        llm.add(Turn(text=text))

        answer = await ask("q", [make_search()])

        assert answer.done.answer == text
        streamed = [e.text for e in answer.events if e.type == "delta"]
        assert len(streamed) > 1 or text.startswith("{"), streamed


async def test_deepseek_thinking_mode_gets_its_reasoning_back_with_the_tool_calls(make_search: Any) -> None:
    """DeepSeek answers 400 "Missing `reasoning_content` field" when a tool-call turn comes back without it."""
    async with ScriptedLLM(reasoning_back=True) as llm:
        llm.add(
            Turn(reasoning="The user wants news; search.", tool_calls=[call("web_search", {"query": "AI news"})]),
            Turn(reasoning="Source 1 answers it.", text="AI news [1]."),
        )
        answer = await _run_on(llm, "AI news?", [make_search()], model="deepseek-reasoner")

        assert answer.error is None and answer.done.answer == "AI news [1]."
        assert "search" not in answer.text
        assert llm.sent[1]["messages"][-2]["reasoning_content"] == "The user wants news; search."


async def test_servers_that_send_no_reasoning_get_none_back(llm: ScriptedLLM, ask: Any, make_search: Any) -> None:
    llm.add(Turn(tool_calls=[call("web_search", {"query": "x"})]), Turn(text="x [1]."))

    await ask("q", [make_search()])

    assert "reasoning_content" not in llm.sent[1]["messages"][-2]


async def test_a_server_that_wants_a_key_when_none_is_set_says_so() -> None:
    async with ScriptedLLM([Turn(status=401, error="Incorrect API key provided: not-needed")]) as llm:
        answer = await _run_on(llm, "hi", model="gpt-4o-mini")

    assert answer.error is not None and answer.error.code == "not_configured"
    assert "no API key is set" in answer.error.message and "WEBLENS_LLM_API_KEY" in answer.error.message
