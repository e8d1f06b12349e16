"""A scripted OpenAI-compatible chat model: real HTTP, streamed chunks, tool-call deltas, errors.

Point `WEBLENS_LLM_BASE_URL` (or `Settings(llm=...)`) at `model.base_url` and script
what the model says, turn by turn::

    with ScriptedLLM([Turn(tool_calls=[call("web_search", {"query": "AI news"})]),
                      Turn(text="Here is the news [1].")]) as model:
        ...  # run the agent
        assert model.sent[1]["messages"][-1]["role"] == "tool"   # the result went back

Each request takes the next turn; `responder` computes a turn from the request instead
(for concurrent clients). Text streams in small chunks and tool-call arguments are
split across chunks, as real servers do; `Turn` also scripts the ways real servers differ
(tool calls keyed without an index or all at index 0, a name repeated in every fragment,
`reasoning_content`, a finish reason of "length"). `unsupported=["response_format"]` makes it
refuse requests carrying those fields with HTTP 400, as servers without structured output
(or without `stream_options`, `tool_choice`, `tools`) do.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = ["ScriptedCall", "ScriptedLLM", "Turn", "call"]

COMPLETION_PATHS = ("/v1/chat/completions", "/chat/completions")
DEFAULT_MODEL = "scripted-model"
_TEXT_CHUNK = 4
_ARGS_CHUNK = 7


@dataclass
class ScriptedCall:
    """A tool call the model makes; `arguments` may be a dict or raw (even broken) JSON text."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


def call(name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None) -> ScriptedCall:
    return ScriptedCall(name=name, arguments=arguments if arguments is not None else {}, id=id)


@dataclass
class Turn:
    """One model answer: text and/or tool calls, or an HTTP error, or an error mid-stream."""

    text: str = ""
    tool_calls: list[ScriptedCall] = field(default_factory=list)
    finish_reason: str | None = None
    """Default: "tool_calls" when there are tool calls, else "stop"."""
    usage: tuple[int, int] = (12, 8)
    """(prompt_tokens, completion_tokens) reported at the end of the stream."""
    status: int = 200
    error: str = ""
    """With a 4xx/5xx `status`, the error message; with 200, an error sent after the text."""
    break_off: bool = False
    """The connection drops after the text and tool calls, before the stream ends."""
    chunk_interval_s: float = 0.0
    """Pause between streamed chunks (a slow model)."""
    delay_s: float = 0.0
    """Pause before the response starts (time to first token)."""
    call_indexes: CallIndexes = "openai"
    """How tool-call fragments are keyed: "openai" (index 0, 1, ...), "zero" (every call at index 0,
    told apart by id, as Ollama behind LiteLLM sends), "absent" (no index, as Gemini's endpoint sends)."""
    name_every_fragment: bool = False
    """Repeat the call's id and whole name in every fragment (some gateways), not only the first."""
    reasoning: str = ""
    """Thinking sent first in `reasoning_content` deltas (DeepSeek, vLLM), not in the content."""


CallIndexes = Literal["openai", "zero", "absent"]
Responder = Callable[[dict[str, Any]], Turn]


def _sse(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {payload}\n\n".encode()


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class ScriptedLLM:
    """A fake chat-completions server driven by a list of `Turn`s; see the module docstring."""

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        responder: Responder | None = None,
        model: str = DEFAULT_MODEL,
        latency_s: float = 0.0,
        unsupported: Iterable[str] = (),
        reasoning_back: bool = False,
    ) -> None:
        self.server = FakeServer(latency_s=latency_s)
        self.unsupported = frozenset(unsupported)
        """Request fields refused with HTTP 400 (`response_format`, `tool_choice`), as servers without them do."""
        self.reasoning_back = reasoning_back
        """Refuse an assistant tool-call message without `reasoning_content`, as DeepSeek's thinking mode does."""
        self.model = model
        self.responder = responder
        self._turns: deque[Turn] = deque(turns)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        for path in COMPLETION_PATHS:
            self.server.route("POST", path, self._answer)

    # -- scripting ---------------------------------------------------------------

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        return len(self._turns)

    @property
    def sent(self) -> list[dict[str, Any]]:
        """The request bodies the client sent, in order (messages, tools, model...)."""
        return [r.json() for r in self.server.requests if r.path in COMPLETION_PATHS]

    @property
    def base_url(self) -> str:
        return self.server.url("/v1")

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> ScriptedLLM:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> ScriptedLLM:
        await self.server.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.__aexit__()

    # -- serving -----------------------------------------------------------------

    def _next_turn(self, body: dict[str, Any]) -> Turn | None:
        if self.responder is not None:
            return self.responder(body)
        with self._lock:
            return self._turns.popleft() if self._turns else None

    def _answer(self, request: RecordedRequest) -> Reply:
        try:
            body = request.json()
        except ValueError:
            return self._error(400, "request body is not JSON")
        refused = sorted(self.unsupported & body.keys()) if isinstance(body, dict) else []
        if refused:
            return self._error(400, f"unsupported parameter: {refused[0]}")
        missing = self._missing_reasoning(body) if self.reasoning_back else None
        if missing is not None:
            return self._error(
                400, f"Missing `reasoning_content` field in the assistant message at message index {missing}"
            )
        turn = self._next_turn(body)
        if turn is None:
            return self._error(400, "ScriptedLLM has no scripted turn left")
        if turn.status >= 400:
            return self._error(turn.status, turn.error or "scripted failure", delay_s=turn.delay_s)
        if not body.get("stream"):
            return Reply(body=self._completion(turn), delay_s=turn.delay_s)
        events = list(self._chunks(turn, include_usage=bool((body.get("stream_options") or {}).get("include_usage"))))
        return Reply(
            chunks=lambda: iter(events),
            content_type="text/event-stream",
            delay_s=turn.delay_s,
            drip=(1, turn.chunk_interval_s) if turn.chunk_interval_s else None,
            break_off=turn.break_off,
        )

    @staticmethod
    def _missing_reasoning(body: dict[str, Any]) -> int | None:
        for number, message in enumerate(body.get("messages") or ()):
            if (
                message.get("role") == "assistant"
                and message.get("tool_calls")
                and not message.get("reasoning_content")
            ):
                return number
        return None

    @staticmethod
    def _error(status: int, message: str, *, delay_s: float = 0.0) -> Reply:
        body = {"error": {"message": message, "type": "scripted_error", "param": None, "code": str(status)}}
        return Reply(status=status, body=body, delay_s=delay_s)

    def _envelope(self, number: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _calls(self, turn: Turn, number: int) -> list[tuple[str, ScriptedCall]]:
        return [(c.id or f"call_{number}_{i}", c) for i, c in enumerate(turn.tool_calls)]

    @staticmethod
    def _keyed(turn: Turn, index: int, fragment: dict[str, Any]) -> dict[str, Any]:
        if turn.call_indexes == "absent":
            return fragment
        return {"index": 0 if turn.call_indexes == "zero" else index, **fragment}

    def _chunks(self, turn: Turn, *, include_usage: bool) -> Iterator[bytes]:
        number = next(self._ids)
        yield _sse(self._envelope(number, {"role": "assistant", "content": ""}))
        for piece in _pieces(turn.reasoning, _TEXT_CHUNK):
            yield _sse(self._envelope(number, {"content": None, "reasoning_content": piece}))
        for piece in _pieces(turn.text, _TEXT_CHUNK):
            yield _sse(self._envelope(number, {"content": piece}))
        for index, (call_id, scripted) in enumerate(self._calls(turn, number)):
            head = {"id": call_id, "type": "function", "function": {"name": scripted.name, "arguments": ""}}
            yield _sse(self._envelope(number, {"tool_calls": [self._keyed(turn, index, head)]}))
            for piece in _pieces(scripted.arguments_text(), _ARGS_CHUNK):
                fragment: dict[str, Any] = {"function": {"arguments": piece}}
                if turn.name_every_fragment:
                    fragment = {"id": call_id, "function": {"name": scripted.name, "arguments": piece}}
                yield _sse(self._envelope(number, {"tool_calls": [self._keyed(turn, index, fragment)]}))
        if turn.error:
            yield _sse({"error": {"message": turn.error, "type": "scripted_error"}})
            return
        if turn.break_off:
            return
        finish = turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")
        yield _sse(self._envelope(number, {}, finish))
        if include_usage:
            prompt, completion = turn.usage
            usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
            yield _sse({**self._envelope(number, {}), "choices": [], "usage": usage})
        yield _sse("[DONE]")

    def _completion(self, turn: Turn) -> dict[str, Any]:
        number = next(self._ids)
        calls = [
            {"id": call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
            for call_id, c in self._calls(turn, number)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if calls:
            message["tool_calls"] = calls
        prompt, completion = turn.usage
        finish = turn.finish_reason or ("tool_calls" if calls else "stop")
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }
