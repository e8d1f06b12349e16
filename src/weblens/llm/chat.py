"""Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM), streamed.

The official `openai` SDK makes the request (retries, HTTP errors); weblens reads the
streamed server-sent events itself (`json.loads` per chunk) and assembles them (text
pieces and tool-call fragments) into one `ModelTurn`. The SDK's typed chunks cost
~0.3 ms of CPU each in `construct_type`, a quarter of a stream's time (`bench/agent.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2
import openai
from pydantic import BaseModel

from weblens.config import Settings, setting_hint
from weblens.errors import NotConfiguredError, ToolTimeoutError, UpstreamError
from weblens.llm.think import ThinkFilter
from weblens.net import error_for_status
from weblens.redact import mask_url, register_secret, register_url_secrets

__all__ = ["ChatModel", "ModelTurn", "ToolCall", "Usage"]

logger = logging.getLogger("weblens.llm")

MAX_RETRIES = 2
"""The SDK's own retries of 429/5xx/connection failures before the stream starts."""
_NO_KEY = "not-needed"  # local servers (Ollama, vLLM) take no key, but the SDK wants one
_DRAIN_S = 0.1
"""After `[DONE]`, how long to read what is left of the body so the connection can be reused."""


class Usage(BaseModel):
    """Tokens the model reported, summed over every model call of one answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, other: Usage | None) -> None:
        if other is not None:
            self.prompt_tokens += other.prompt_tokens
            self.completion_tokens += other.completion_tokens
            self.total_tokens += other.total_tokens


@dataclass
class ToolCall:
    """A tool call the model asked for; `arguments` is the JSON text the model wrote."""

    id: str
    name: str
    arguments: str = ""


@dataclass
class ModelTurn:
    """One model call, assembled: its text, its tool calls, why it stopped, what it cost."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage | None = None
    reasoning: str = ""
    """`reasoning_content` the server streamed (DeepSeek, vLLM, llama.cpp): never shown, but DeepSeek's
    thinking mode wants it back with the tool calls of the same answer."""


def _missing_settings_error(missing: Sequence[str]) -> NotConfiguredError:
    hints = "; ".join(setting_hint("llm", key) for key in missing)
    names = " and ".join(f"WEBLENS_LLM_{key.upper()}" for key in missing)
    return NotConfiguredError(f"No language model is configured: {names} must be set ({hints})")


class ChatModel:
    """A streaming chat model at an OpenAI-compatible base URL."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self._keyed = bool(api_key)
        self._usage_option = True
        """Ask for token usage (`stream_options`) until the server refuses it."""
        register_secret(api_key)  # a key passed in (not from settings) must be masked in errors too
        register_url_secrets(base_url)  # and so must a password in the URL
        # the SDK brings its own HTTP stack (httpx2) and wraps its transport errors
        # the SDK appends paths to the base URL as text, so a query it carries (`/v1?api-key=…`,
        # `?api-version=…`) is sent as the SDK's default query instead
        parts = urlsplit(base_url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True)) or None
        self._client = openai.AsyncOpenAI(
            base_url=urlunsplit(parts._replace(query="")) if query else base_url,
            api_key=api_key or _NO_KEY,
            timeout=timeout,
            max_retries=max_retries,
            default_query=query,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> ChatModel:
        """The configured model; NotConfiguredError names what is missing."""
        llm = settings.llm
        missing = [key for key in ("base_url", "model") if not getattr(llm, key)]
        if missing:
            raise _missing_settings_error(missing)
        assert llm.base_url is not None and llm.model is not None
        key = llm.api_key.get_secret_value() if llm.api_key is not None else None
        return cls(base_url=llm.base_url, model=llm.model, api_key=key, timeout=llm.timeout)

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        response_format: dict[str, Any] | None = None,
        tool_choice: dict[str, Any] | str | None = None,
    ) -> ModelTurn:
        """The whole turn at once: for callers that want data (structured output), not a stream."""
        turn = ModelTurn()
        async for item in self.stream(messages, tools, response_format=response_format, tool_choice=tool_choice):
            if isinstance(item, ModelTurn):
                turn = item
        return turn

    async def stream(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        response_format: dict[str, Any] | None = None,
        tool_choice: dict[str, Any] | str | None = None,
    ) -> AsyncGenerator[str | ModelTurn, None]:
        """Yield text pieces as they arrive, then the assembled `ModelTurn` last.

        `response_format` (a JSON Schema the answer must follow) and `tool_choice` (a forced
        tool call) are sent only when given: not every OpenAI-compatible server takes them.
        """
        turn = ModelTurn(finish_reason="")  # set by the stream; "stop" when it ended with [DONE] alone
        calls = _CallAssembler()
        thinking = ThinkFilter()
        what = f"the model at {mask_url(self.base_url)}"
        kwargs: dict[str, Any] = {"tools": list(tools)} if tools else {}
        if response_format is not None:
            kwargs["response_format"] = response_format
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        with _translated(what, self.timeout, keyed=self._keyed):
            async with AsyncExitStack() as opened:  # closes the response when the caller stops early
                response = await self._open(opened, messages, kwargs)
                _expect_event_stream(response.http_response.headers.get("content-type", ""), what)
                lines = response.http_response.aiter_lines()
                chunks, finished = 0, False
                async for data in _event_data(lines):
                    if data.startswith("[DONE]"):
                        finished = True
                        await _drain(lines)
                        break
                    chunks += 1
                    for piece in _absorb(_chunk(data, what), turn, calls):
                        shown = thinking.feed(piece)
                        if shown:
                            turn.text += shown
                            yield shown
                if not chunks:
                    raise UpstreamError(f"{what} answered with an empty stream (no chat-completion chunks)")
                if not (finished or turn.finish_reason):
                    # closed cleanly but early (a proxy's timeout, a crashed worker): the answer is incomplete
                    raise UpstreamError(
                        f"the stream from {what} ended before the model finished (no finish_reason, no [DONE])",
                        retryable=True,
                    )
        rest = thinking.flush()
        if rest:
            turn.text += rest
            yield rest
        turn.tool_calls = calls.calls()
        turn.finish_reason = turn.finish_reason or "stop"
        yield turn

    async def _open(self, opened: AsyncExitStack, messages: Sequence[dict[str, Any]], kwargs: dict[str, Any]) -> Any:
        """Start the streamed request; a server that refuses `stream_options` (Mistral, older vLLM,
        some gateways: HTTP 400/422 naming it) is asked again without it, and from then on."""
        while True:
            extra = {"stream_options": {"include_usage": True}} if self._usage_option else {}
            request = self._client.chat.completions.with_streaming_response.create(
                model=self.model, messages=list(messages), stream=True, **extra, **kwargs
            )  # type: ignore[call-overload]
            try:
                return await opened.enter_async_context(request)
            except openai.APIStatusError as exc:
                if not (self._usage_option and exc.status_code in (400, 422) and "stream_options" in _detail(exc)):
                    raise
                logger.warning("%s refused stream_options; asking without it (no token usage)", self.model)
                self._usage_option = False


async def _event_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The `data` of each server-sent event (multi-line data joined by newlines, as the SSE spec says)."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
        # `event:`, `id:`, `retry:` and `:` comments carry nothing a chat chunk needs
    if data:  # a last event the server did not end with a blank line
        yield "\n".join(data)


async def _drain(lines: AsyncIterator[str]) -> None:
    """Read the little left after `[DONE]` (an HTTP/1.1 connection is reused only once its body is read)."""
    try:
        async with asyncio.timeout(_DRAIN_S):
            async for _ in lines:
                pass
    except (TimeoutError, httpx2.TransportError):
        pass  # the answer is complete; the connection is closed instead of reused


def _chunk(data: str, what: str) -> dict[str, Any]:
    """One streamed chunk as JSON; an `error` object inside the stream is the endpoint's failure."""
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError as exc:
        raise UpstreamError(f"{what} sent a chunk that is not valid JSON: {exc.msg}") from None
    if not isinstance(chunk, dict):
        raise UpstreamError(f"{what} sent a chunk that is not a JSON object")
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        detail = message if isinstance(message, str) and message else "An error occurred during streaming"
        raise UpstreamError(f"{what} reported an error: {detail}")
    return chunk


class _CallAssembler:
    """Tool-call fragments into whole calls, as servers really stream them.

    OpenAI gives each call an `index` and sends its id and name once, in the first fragment.
    Some servers (Ollama behind LiteLLM, some vLLM/Dynamo parsers) put every parallel call at
    index 0, and some (Gemini's OpenAI endpoint, some gateways) send no index at all: a
    fragment with a new id is then a new call, and one without an id continues the last call.
    A name sent again whole in a later fragment is the same name, not more of it.
    """

    def __init__(self) -> None:
        self._calls: list[tuple[tuple[int, int], ToolCall]] = []
        self._at: dict[int | None, ToolCall] = {}

    def add(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index")
        key = index if isinstance(index, int) and not isinstance(index, bool) else None
        call_id = _text(fragment, "id")
        function = fragment.get("function")
        name = _text(function, "name") if isinstance(function, dict) else ""
        call = self._at.get(key) or (self._calls[-1][1] if key is None and self._calls else None)
        if call is None or (call_id and call.id and call_id != call.id) or self._starts_anew(call, call_id, name):
            call = ToolCall(id="", name="")
            self._calls.append(((key if key is not None else -1, len(self._calls)), call))
        self._at[key] = call
        call.id = call_id or call.id
        if name != call.name:
            call.name += name
        if isinstance(function, dict):
            arguments = function.get("arguments")
            if isinstance(arguments, dict):  # llama.cpp's --tool-args-object: an object, not JSON text
                call.arguments = json.dumps(arguments, ensure_ascii=False)
            elif isinstance(arguments, str):
                call.arguments += arguments

    @staticmethod
    def _starts_anew(call: ToolCall, call_id: str, name: str) -> bool:
        """Without ids to tell them apart: a name after a call's arguments begins the next call,
        unless it is the same name again while the arguments are still unfinished."""
        if not name or not call.arguments or (call_id and call_id == call.id):
            return False
        return name != call.name or _whole_json(call.arguments)

    def calls(self) -> list[ToolCall]:
        """In index order (the order the model wrote them), each with an id."""
        calls = [call for _, call in sorted(self._calls, key=lambda item: item[0])]
        for number, call in enumerate(calls):
            call.id = call.id or f"call_{number}"
            call.arguments = _unwrapped(call.arguments)
        return calls


def _absorb(chunk: dict[str, Any], turn: ModelTurn, calls: _CallAssembler) -> Iterator[str]:
    """Fold one streamed chunk into the turn; yield its text pieces.

    Read leniently, as the SDK did: a field of the wrong type is skipped, not a failure.
    `reasoning_content` / `reasoning` (DeepSeek, vLLM, OpenRouter) is the model's thinking,
    not its answer: never yielded; `reasoning_content` is kept on the turn to be sent back.
    """
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        turn.usage = Usage(
            prompt_tokens=_count(usage, "prompt_tokens"),
            completion_tokens=_count(usage, "completion_tokens"),
            total_tokens=_count(usage, "total_tokens"),
        )
    for choice in _objects(chunk.get("choices")):
        delta = choice.get("delta")
        if isinstance(delta, dict):
            content = delta.get("content")
            if isinstance(content, str) and content:
                yield content
            reasoning = delta.get("reasoning_content")
            if isinstance(reasoning, str):
                turn.reasoning += reasoning
            for fragment in _objects(delta.get("tool_calls")):
                calls.add(fragment)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            turn.finish_reason = finish


def _unwrapped(arguments: str) -> str:
    """Arguments some models encode twice (a JSON string holding the JSON object) read once more."""
    try:
        inner = json.loads(arguments)
        if isinstance(inner, str) and isinstance(json.loads(inner), dict):
            return inner
    except (ValueError, RecursionError):
        pass
    return arguments


def _whole_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _objects(value: object) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _text(parent: dict[str, Any], key: str) -> str:
    value = parent.get(key)
    return value if isinstance(value, str) else ""


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


def _expect_event_stream(content_type: str, what: str) -> None:
    """A 200 that is not an event stream is not a chat-completions endpoint: most often a base URL
    that points at a web UI or a proxy's page (missing `/v1`), which would otherwise read as an empty answer."""
    kind = content_type.partition(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        hint = setting_hint("llm", "base_url")
        raise UpstreamError(
            f"{what} answered with an HTML page, not a chat-completions stream: is this the API's base URL "
            f"(it usually ends in /v1)? {hint[0].upper()}{hint[1:]}"
        )


@contextmanager
def _translated(what: str, timeout: float, *, keyed: bool) -> Iterator[None]:
    """SDK and transport failures as weblens errors, naming the endpoint (never the key)."""
    try:
        yield
    except openai.APIStatusError as exc:
        raise error_for_status(
            exc.status_code,
            provider=what,
            detail=_detail(exc),
            headers=exc.response.headers,
            key_hint=setting_hint("llm", "api_key")
            if keyed
            else f"no API key is set: {setting_hint('llm', 'api_key')}",
        ) from exc
    except (openai.APITimeoutError, httpx2.TimeoutException) as exc:  # httpx2: while reading the stream
        hint = setting_hint("llm", "timeout")
        message = f"{what} timed out: nothing arrived for {timeout:g} s (to wait longer, {hint})"
        raise ToolTimeoutError(message, retryable=True) from exc
    except openai.APIConnectionError as exc:
        raise UpstreamError(f"could not reach {what}: {exc}", retryable=True) from exc
    except (httpx2.TransportError, httpx2.DecodingError) as exc:
        raise UpstreamError(f"the stream from {what} broke off: {exc or type(exc).__name__}", retryable=True) from exc
    except openai.OpenAIError as exc:
        detail = _detail(exc) if isinstance(exc, openai.APIError) else str(exc)
        raise UpstreamError(f"{what} reported an error: {detail}") from exc


def _detail(exc: openai.APIError) -> str:
    body = exc.body
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return exc.message
