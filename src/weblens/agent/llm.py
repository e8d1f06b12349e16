"""Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM), streamed.

The model is reached through the official `openai` SDK; weblens only assembles the
streamed chunks (text pieces and tool-call fragments) into one `ModelTurn` and turns
SDK failures into weblens errors.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import openai
from openai.types.chat import ChatCompletionChunk

from weblens.agent.events import Usage
from weblens.config import Settings, setting_hint
from weblens.errors import NotConfiguredError, ToolTimeoutError, UpstreamError
from weblens.net import error_for_status
from weblens.redact import mask_url, register_secret, register_url_secrets

__all__ = ["ChatModel", "ModelTurn", "ToolCall"]

MAX_RETRIES = 2
"""The SDK's own retries of 429/5xx/connection failures before the stream starts."""
_NO_KEY = "not-needed"  # local servers (Ollama, vLLM) take no key, but the SDK wants one


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
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or _NO_KEY, timeout=timeout, max_retries=max_retries
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
        with _translated(f"the model at {mask_url(self.base_url)}"):
            kwargs: dict[str, Any] = {"tools": list(tools)} if tools else {}
            stream = await self._client.chat.completions.create(
                model=self.model,
                messages=list(messages),
                stream=True,
                stream_options={"include_usage": True},
                **kwargs,
            )  # type: ignore[call-overload]
            async with stream:  # closes the response when the caller stops early
                async for chunk in stream:
                    for piece in _absorb(chunk, turn, calls):
                        turn.text += piece
                        yield piece
        turn.tool_calls = [calls[i] for i in sorted(calls)]
        for number, call in enumerate(turn.tool_calls):
            call.id = call.id or f"call_{number}"
        yield turn


def _absorb(chunk: ChatCompletionChunk, turn: ModelTurn, calls: dict[int, ToolCall]) -> Iterator[str]:
    """Fold one streamed chunk into the turn; yield its text pieces."""
    if chunk.usage is not None:
        usage = chunk.usage
        turn.usage = Usage(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens,
        )
    for choice in chunk.choices:
        delta = choice.delta
        if delta.content:
            yield delta.content
        for fragment in delta.tool_calls or ():  # arguments arrive in pieces, by index
            call = calls.setdefault(fragment.index, ToolCall(id="", name=""))
            call.id = fragment.id or call.id
            if fragment.function is not None:
                call.name += fragment.function.name or ""
                call.arguments += fragment.function.arguments or ""
        if choice.finish_reason:
            turn.finish_reason = choice.finish_reason


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
    except openai.APITimeoutError as exc:
        raise ToolTimeoutError(f"{what} timed out", retryable=True) from exc
    except openai.APIConnectionError as exc:
        raise UpstreamError(f"could not reach {what}: {exc}", retryable=True) from exc
    except openai.OpenAIError as exc:
        detail = _detail(exc) if isinstance(exc, openai.APIError) else str(exc)
        raise UpstreamError(f"{what} reported an error: {detail}") from exc
    except json.JSONDecodeError as exc:  # the SDK parses each streamed chunk as JSON
        raise UpstreamError(f"{what} sent a chunk that is not valid JSON: {exc.msg}") from exc


def _detail(exc: openai.APIError) -> str:
    body = exc.body
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return exc.message
