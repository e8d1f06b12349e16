"""The OpenAI-compatible model client: settings, streaming assembly, failures as weblens errors."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from weblens import Settings
from weblens.agent import ChatModel, ModelTurn
from weblens.errors import NotConfiguredError, RateLimitedError, UpstreamError
from weblens.redact import MASK
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.server import Reply

API_KEY = "sk-test-secret-123456"


async def drain(model: ChatModel, **kwargs: Any) -> tuple[list[str], ModelTurn]:
    pieces: list[str] = []
    turn = ModelTurn()
    async for piece in model.stream([{"role": "user", "content": "hi"}], **kwargs):
        if isinstance(piece, ModelTurn):
            turn = piece
        else:
            pieces.append(piece)
    return pieces, turn


def test_missing_settings_name_the_variables() -> None:
    with pytest.raises(NotConfiguredError) as caught:
        ChatModel.from_settings(Settings())
    assert "WEBLENS_LLM_BASE_URL" in caught.value.message and "WEBLENS_LLM_MODEL" in caught.value.message

    with pytest.raises(NotConfiguredError) as only_model:
        ChatModel.from_settings(Settings(llm={"base_url": "http://127.0.0.1:9/v1"}))
    assert "WEBLENS_LLM_MODEL" in only_model.value.message and "BASE_URL" not in only_model.value.message


async def test_settings_from_the_environment_reach_the_server(
    llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBLENS_LLM_BASE_URL", llm.base_url)
    monkeypatch.setenv("WEBLENS_LLM_MODEL", "qwen-max")
    monkeypatch.setenv("WEBLENS_LLM_API_KEY", API_KEY)
    llm.add(Turn(text="hello there"))
    model = ChatModel.from_settings(Settings())
    try:
        pieces, turn = await drain(model)
    finally:
        await model.aclose()

    assert "".join(pieces) == "hello there" and len(pieces) > 1
    assert turn.text == "hello there" and turn.finish_reason == "stop"
    assert turn.usage is not None and turn.usage.total_tokens == 20
    request = llm.server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert llm.sent[0]["model"] == "qwen-max"


async def test_tool_call_fragments_are_assembled(llm: ScriptedLLM, model: ChatModel) -> None:
    args = {"query": "北京 天气 today", "max_results": 3}
    llm.add(Turn(tool_calls=[call("web_search", args, id="a"), call("get_weather", {"city": "Beijing"}, id="b")]))

    _, turn = await drain(model, tools=[{"type": "function", "function": {"name": "web_search", "parameters": {}}}])

    assert [(c.id, c.name) for c in turn.tool_calls] == [("a", "web_search"), ("b", "get_weather")]
    assert turn.tool_calls[0].arguments == '{"query": "北京 天气 today", "max_results": 3}'
    assert turn.finish_reason == "tool_calls"


async def test_a_refused_key_is_not_configured_and_never_shows_the_key(llm: ScriptedLLM, model: ChatModel) -> None:
    llm.add(Turn(status=401, error="Incorrect API key provided"))

    with pytest.raises(NotConfiguredError) as caught:
        await drain(model)

    assert "HTTP 401" in caught.value.message and "WEBLENS_LLM_API_KEY" in caught.value.message
    assert API_KEY not in str(caught.value)


async def test_rate_limits_are_retried_then_reported(llm: ScriptedLLM, model: ChatModel) -> None:
    headers = {"Retry-After": "0", "retry-after-ms": "1"}
    too_many = Reply(status=429, body={"error": {"message": "slow down"}}, headers=headers)
    llm.server.queue("/v1/chat/completions", too_many, too_many)
    llm.add(Turn(text="finally"))

    pieces, _ = await drain(model)
    assert "".join(pieces) == "finally"

    llm.server.queue("/v1/chat/completions", too_many, too_many, too_many)
    with pytest.raises(RateLimitedError):
        await drain(model)


async def test_an_unreachable_endpoint_is_an_upstream_error() -> None:
    model = ChatModel(base_url="http://127.0.0.1:9/v1", model="m", timeout=5, max_retries=0)
    try:
        with pytest.raises(UpstreamError) as caught:
            await drain(model)
    finally:
        await model.aclose()
    assert "127.0.0.1:9" in caught.value.message


async def test_a_key_echoed_by_the_endpoint_never_reaches_the_user(llm: ScriptedLLM) -> None:
    from weblens import Toolset
    from weblens.agent import Agent, ErrorEvent

    settings = Settings(llm={"base_url": llm.base_url, "model": "m", "api_key": API_KEY})
    llm.add(Turn(status=400, error=f"the key {API_KEY} has no access to this model"))
    model = ChatModel.from_settings(settings)
    try:
        events = [e async for e in Agent(model, Toolset()).run("hi")]
    finally:
        await model.aclose()

    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert "has no access" in error.message and API_KEY not in error.message
    assert MASK in error.message


async def test_a_key_passed_in_directly_is_masked_when_echoed(llm: ScriptedLLM) -> None:
    from weblens import Toolset
    from weblens.agent import Agent, ErrorEvent

    key = "sk-embedded-" + uuid.uuid4().hex  # never seen by Settings, only by ChatModel
    llm.add(Turn(status=400, error=f"the key {key} has no access to this model"))
    model = ChatModel(base_url=llm.base_url, model="m", api_key=key, timeout=10)
    try:
        events = [e async for e in Agent(model, Toolset()).run("hi")]
    finally:
        await model.aclose()

    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert "has no access" in error.message and key not in error.message


async def test_usage_and_the_finish_reason_come_through(llm: ScriptedLLM, model: ChatModel) -> None:
    llm.add(Turn(text="cut at the limit", finish_reason="length", usage=(1200, 300)))

    pieces, turn = await drain(model)

    assert "".join(pieces) == turn.text == "cut at the limit"
    assert turn.finish_reason == "length"
    assert turn.usage is not None
    assert (turn.usage.prompt_tokens, turn.usage.completion_tokens, turn.usage.total_tokens) == (1200, 300, 1500)


async def test_an_error_object_inside_the_stream_is_an_upstream_error(llm: ScriptedLLM, model: ChatModel) -> None:
    llm.add(Turn(text="Half an ans", error="the server overloaded"))
    pieces: list[str] = []

    with pytest.raises(UpstreamError) as caught:
        async for piece in model.stream([{"role": "user", "content": "hi"}]):
            pieces.append(str(piece))

    assert "".join(pieces) == "Half an ans"
    assert "the server overloaded" in caught.value.message and llm.base_url in caught.value.message


async def test_a_stream_cut_short_is_a_retryable_upstream_error(llm: ScriptedLLM, model: ChatModel) -> None:
    llm.add(Turn(text="Half an answer", break_off=True))
    pieces: list[str] = []

    with pytest.raises(UpstreamError) as caught:
        async for piece in model.stream([{"role": "user", "content": "hi"}]):
            pieces.append(str(piece))

    assert "".join(pieces) == "Half an answer"
    assert caught.value.retryable and llm.base_url in caught.value.message


def _event(data: dict[str, Any] | str, *, end: str = "\n") -> str:
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}{end}{end}"


async def test_server_sent_events_are_read_as_the_spec_says(llm: ScriptedLLM, model: ChatModel) -> None:
    """Comments, `event:` lines, CRLF, `data:` without a space, JSON split over data lines, calls interleaved."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "choices": [choice]}

    def fragment(index: int, **parts: Any) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": index, **parts}]})

    usage = {"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
    split = json.dumps(chunk({"content": "two lines"})).replace(', "choices"', ',\ndata: "choices"')
    body = "".join(
        [
            ": keep-alive\n\n",
            "event: message\n" + _event(chunk({"role": "assistant", "content": "Hel"})),
            "data:" + json.dumps(chunk({"content": "lo "})) + "\r\n\r\n",
            "data: " + split + "\n\n",
            _event(fragment(1, id="b", type="function", function={"name": "get_", "arguments": ""})),
            _event(fragment(0, id="a", type="function", function={"name": "web_search", "arguments": '{"q'})),
            _event(fragment(1, function={"name": "weather", "arguments": '{"city": "Oslo"}'})),
            _event(fragment(0, function={"arguments": '": "x"}'})),
            _event(chunk({}, "tool_calls")),
            _event(usage),
            _event("[DONE]"),
            _event("not JSON: nothing after [DONE] is read"),
        ]
    )
    llm.server.queue("/v1/chat/completions", Reply(body=body, content_type="text/event-stream"))

    pieces, turn = await drain(model)

    assert pieces == ["Hel", "lo ", "two lines"] and turn.text == "Hello two lines"
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("a", "web_search", '{"q": "x"}'),
        ("b", "get_weather", '{"city": "Oslo"}'),
    ]
    assert turn.finish_reason == "tool_calls"
    assert turn.usage is not None and turn.usage.total_tokens == 12


async def test_a_caller_that_stops_early_closes_the_stream(llm: ScriptedLLM, model: ChatModel) -> None:
    llm.add(Turn(text="a long and slow answer " * 20, chunk_interval_s=0.02))

    stream = model.stream([{"role": "user", "content": "hi"}])
    first = await anext(stream)
    await stream.aclose()

    assert first == "a lo"
    for _ in range(200):  # the server sees the client go away (no timing asserted, only that it happens)
        if llm.server.disconnects:
            break
        await asyncio.sleep(0.02)
    assert llm.server.disconnects == 1
