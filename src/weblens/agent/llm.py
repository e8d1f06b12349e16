"""Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM), streamed.

The official `openai` SDK makes the request (retries, HTTP errors); weblens reads the
streamed server-sent events itself (`json.loads` per chunk) and assembles them (text
pieces and tool-call fragments) into one `ModelTurn`. The SDK's typed chunks cost
~0.3 ms of CPU each in `construct_type`, a quarter of a stream's time (`bench/agent.py`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2
import openai

from weblens.agent.events import Usage
from weblens.config import Settings, setting_hint
from weblens.errors import NotConfiguredError, ToolTimeoutError, UpstreamError
from weblens.net import error_for_status
from weblens.redact import mask_url, register_secret, register_url_secrets

__all__ = ["ChatModel", "ModelTurn", "ToolCall"]

MAX_RETRIES = 2
"""The SDK's own retries of 429/5xx/connection failures before the stream starts."""
_NO_KEY = "not-needed"  # local servers (Ollama, vLLM) take no key, but the SDK wants one
_DRAIN_S = 0.1
"""After `[DONE]`, how long to read what is left of the body so the connection can be reused."""


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

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> AsyncGenerator[str | ModelTurn, None]:
        """Yield text pieces as they arrive, then the assembled `ModelTurn` last."""
        turn = ModelTurn()
        calls: dict[int, ToolCall] = {}
        what = f"the model at {mask_url(self.base_url)}"
        with _translated(what):
            kwargs: dict[str, Any] = {"tools": list(tools)} if tools else {}
            request = self._client.chat.completions.with_streaming_response.create(
                model=self.model,
                messages=list(messages),
                stream=True,
                stream_options={"include_usage": True},
                **kwargs,
            )  # type: ignore[call-overload]
            async with request as response:  # closes the response when the caller stops early
                lines = response.http_response.aiter_lines()
                async for data in _event_data(lines):
                    if data.startswith("[DONE]"):
                        await _drain(lines)
                        break
                    for piece in _absorb(_chunk(data, what), turn, calls):
                        turn.text += piece
                        yield piece
        turn.tool_calls = [calls[i] for i in sorted(calls)]
        for number, call in enumerate(turn.tool_calls):
            call.id = call.id or f"call_{number}"
        yield turn


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


def _absorb(chunk: dict[str, Any], turn: ModelTurn, calls: dict[int, ToolCall]) -> Iterator[str]:
    """Fold one streamed chunk into the turn; yield its text pieces.

    Read leniently, as the SDK did: a field of the wrong type is skipped, not a failure.
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
            for position, fragment in enumerate(_objects(delta.get("tool_calls"))):
                index = fragment.get("index")  # arguments arrive in pieces, by index
                call = calls.setdefault(index if isinstance(index, int) else position, ToolCall(id="", name=""))
                call.id = _text(fragment, "id") or call.id
                function = fragment.get("function")
                if isinstance(function, dict):
                    call.name += _text(function, "name")
                    call.arguments += _text(function, "arguments")
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            turn.finish_reason = finish


def _objects(value: object) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _text(parent: dict[str, Any], key: str) -> str:
    value = parent.get(key)
    return value if isinstance(value, str) else ""


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


@contextmanager
def _translated(what: str) -> Iterator[None]:
    """SDK and transport failures as weblens errors, naming the endpoint (never the key)."""
    try:
        yield
    except openai.APIStatusError as exc:
        raise error_for_status(
            exc.status_code,
            provider=what,
            detail=_detail(exc),
            headers=exc.response.headers,
            key_hint=setting_hint("llm", "api_key"),
        ) from exc
    except (openai.APITimeoutError, httpx2.TimeoutException) as exc:  # httpx2: while reading the stream
        raise ToolTimeoutError(f"{what} timed out", retryable=True) from exc
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
