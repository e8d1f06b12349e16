"""The tool-calling loop: the model decides, the toolset runs, the answer cites what tools returned.

One `Agent.run` is one answer. Each step is a model call that may ask for tools; the
calls of one step run concurrently and their results go back into the context. After
`max_steps` steps one last call without tools makes the model answer from what it has,
so the user always gets an answer. A repeated call (same tool, same arguments) is
answered from the earlier result, and the model is told so. A failed tool is a result
like any other: the model reads the error and says what it could not do.

What an answer may do is bounded (`RunBudget`: calls per tool, calls per step), which URLs
its tools may fetch is bounded (`UrlProvenance`), the URLs its text links to are checked
as they stream (`LinkGuard`), and every `[n]` it cites is checked against the text read
from source n once it is written (`check_citations`); `done` carries the results.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Iterable, Mapping, Sequence
from contextlib import aclosing
from typing import Any, Protocol

from weblens.agent.budget import DEFAULT_MAX_CALLS_PER_STEP, RunBudget
from weblens.agent.citations import SourceBook
from weblens.agent.events import AgentEvent, CitedSource, Delta, Done, ErrorEvent, ToolCallEvent, ToolResultEvent, Usage
from weblens.agent.links import LinkGuard, link_key
from weblens.agent.llm import ModelTurn, ToolCall
from weblens.agent.provenance import ProvenanceMode, UrlProvenance
from weblens.agent.verify import check_citations
from weblens.agent.written_calls import may_be_written_call, written_calls
from weblens.config import DEFAULT_MAX_USES, Settings
from weblens.context import ToolContext
from weblens.errors import UpstreamError, WeblensError
from weblens.redact import redact_text
from weblens.result import ToolResult
from weblens.toolset import Toolset

__all__ = ["DEFAULT_MAX_STEPS", "SYSTEM_PROMPT", "Agent", "ChatModelLike"]

DEFAULT_MAX_STEPS = 3

SYSTEM_PROMPT = (
    "You are a helpful assistant that can use tools to reach the web. Decide yourself whether a "
    "question needs a tool: use them for news, current events, prices, weather and facts you cannot "
    "know reliably; answer general questions directly, without tools.\n"
    "When you read a long page to answer a question, pass the user's question as web_fetch's query.\n"
    "Tool results number their sources like [1]; cite the ones you use with those markers. "
    "When you quote a source, copy its words exactly, in quotation marks, next to its marker. "
    "Never invent a source or a URL: only URLs the user gave or a tool returned can be fetched or linked.\n"
    "If a tool fails, say briefly what you could not find out and answer as well as you can."
)
NO_TOOLS_NOTE = (
    "Web access is unavailable right now ({why}). Answer from your own knowledge and tell the user "
    "plainly that you could not look anything up."
)
STEP_LIMIT_NOTE = (
    "[weblens] The tool step limit is reached; tools are no longer available. Answer the question "
    "now from the information above, and say what could not be found."
)
REPEAT_NOTE = (
    "[weblens] This is the same call as before ({name} with the same arguments), so it was not run "
    "again; its earlier result follows. Do not repeat it: use it, or try something else.\n\n"
)
NO_TOOL_SUPPORT = "the model does not support tool calling"
EMPTY_ANSWER = "(The model returned no answer.)"
STEP_LIMIT_FINISH = "step_limit"
CUT_SHORT = {
    "length": "The answer was cut short: the model reached its output token limit.",
    "content_filter": "The model's content filter stopped the answer.",
}
"""What the user is told when the model's last turn ended for these reasons rather than "stop"."""

logger = logging.getLogger("weblens.agent")


class ChatModelLike(Protocol):
    """What the loop needs from a model: `ChatModel`, or anything that streams the same way."""

    def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> AsyncGenerator[str | ModelTurn, None]: ...


def _call_key(call: ToolCall) -> tuple[str, str]:
    """Same tool + same arguments, whatever the key order or spacing the model wrote."""
    try:
        args = json.loads(call.arguments) if call.arguments.strip() else {}
    except (ValueError, RecursionError):  # not JSON, or JSON no tool takes (execute says which)
        return call.name, call.arguments
    return call.name, json.dumps(args, sort_keys=True, ensure_ascii=False)


def _refuses_tools(exc: UpstreamError) -> bool:
    """The endpoint refused the request because it cannot call tools (not for any other reason)."""
    said = exc.message.partition(f"HTTP {exc.status}")[2]  # the endpoint's words, not its URL
    return exc.status in (400, 422) and "tool" in said.lower()


def _shown_arguments(call: ToolCall) -> dict[str, Any] | str:
    try:
        args = json.loads(call.arguments) if call.arguments.strip() else {}
    except (ValueError, RecursionError):  # not JSON, or JSON no tool takes (execute says which)
        return call.arguments
    return args if isinstance(args, dict) else call.arguments


def _result_event(
    call: ToolCall, result: ToolResult, *, repeated: bool, sources: list[CitedSource] | None = None
) -> ToolResultEvent:
    return ToolResultEvent(
        id=call.id,
        name=call.name,
        ok=result.ok,
        outcome="ok" if result.error is None else result.error.code,
        brief=result.brief or (result.error.message if result.error is not None else ""),
        duration_ms=0.0 if repeated else round(result.duration_ms, 3),
        result_count=result.result_count,
        repeated=repeated,
        sources=sources or [],
    )


class Agent:
    """Answers a message with a model and a toolset, streaming `AgentEvent`s."""

    def __init__(
        self,
        model: ChatModelLike,
        toolset: Toolset,
        *,
        enabled: Iterable[str] | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        system_prompt: str = SYSTEM_PROMPT,
        max_uses: Mapping[str, int] | None = None,
        max_calls_per_step: int = DEFAULT_MAX_CALLS_PER_STEP,
        url_provenance: ProvenanceMode | bool = "links",
    ) -> None:
        """`max_uses`: calls per tool per answer (default `DEFAULT_MAX_USES`; unlisted tools are
        bounded only by steps × `max_calls_per_step`); `url_provenance`: tools fetch only URLs
        the user gave or earlier tool results contained (`links`, or True) or returned as their
        sources (`sources`); `off` (or False) lets them fetch any URL."""
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if max_calls_per_step < 1:
            raise ValueError("max_calls_per_step must be at least 1")
        self.model = model
        self.tools = toolset.only(enabled) if enabled is not None else toolset
        self.max_steps = max_steps
        self.system_prompt = system_prompt
        self.max_uses = dict(DEFAULT_MAX_USES if max_uses is None else max_uses)
        self.max_calls_per_step = max_calls_per_step
        self.url_provenance: ProvenanceMode = (
            ("links" if url_provenance else "off") if isinstance(url_provenance, bool) else url_provenance
        )

    @classmethod
    def from_settings(cls, model: ChatModelLike, toolset: Toolset, settings: Settings) -> Agent:
        """The agent `[llm]` and `[agent]` describe: its tools, steps, budgets and URL provenance."""
        return cls(
            model,
            toolset,
            enabled=settings.llm.tools,
            max_steps=settings.llm.max_steps,
            max_uses=settings.agent.max_uses,
            max_calls_per_step=settings.agent.max_calls_per_step,
            url_provenance=settings.agent.url_provenance,
        )

    def run(
        self,
        message: str,
        history: Sequence[Mapping[str, Any]] = (),
        ctx: ToolContext | None = None,
        *,
        known_urls: Iterable[str] = (),
    ) -> AsyncGenerator[AgentEvent, None]:
        """Stream the answer to `message`; `history` is earlier {role, content} turns;
        `known_urls` are sources earlier tool results of the session returned (they may be fetched)."""
        run = _Run(self, ctx or ToolContext())
        run.linkable.admit_all(known_urls)
        run.provenance.admit_all(known_urls)
        return run.events(message, history)


class _Run:
    """The state of one answer: the context sent to the model, sources, earlier calls."""

    def __init__(self, agent: Agent, ctx: ToolContext) -> None:
        self.agent = agent
        self.ctx = ctx
        self.book = SourceBook()
        self.earlier: dict[tuple[str, str], tuple[str, ToolResult]] = {}
        self.usage = Usage()
        self.answer: list[str] = []
        self.call_ids: set[str] = set()
        self.budget = RunBudget(agent.max_uses, max_calls_per_step=agent.max_calls_per_step)
        self.provenance = UrlProvenance(agent.url_provenance)
        """URLs tools may fetch: the user's, and those earlier tool results contained or returned."""
        self.linkable = UrlProvenance("sources", key=link_key)
        """URLs the answer may link to: the user's, earlier answers' sources and the ledger's."""
        self.guard = LinkGuard(self.linkable.allows)

    def _admit_user(self, text: str) -> None:
        self.provenance.admit_text(text, bare=True)
        self.linkable.admit_text(text, bare=True)

    def _unique_ids(self, calls: list[ToolCall]) -> None:
        """Call ids unique within the answer: some servers number calls per response or repeat one,
        and each tool result must go back under its own call's id."""
        for call in calls:
            base, n = call.id, 1
            while call.id in self.call_ids:
                n += 1
                call.id = f"{base}_{n}"
            self.call_ids.add(call.id)

    def _known_names(self, calls: list[ToolCall]) -> None:
        """A name that matches one tool but for case or spaces (`Web_Search`, small models write
        such) is that tool's; any other unknown name stays, and the model reads the list of tools."""
        names = {name.casefold(): name for name in self.agent.tools.names}
        for call in calls:
            if self.agent.tools.get(call.name) is None:
                call.name = names.get(call.name.strip().casefold(), call.name)

    def _unavailable_reason(self) -> str:
        missing = self.agent.tools.unavailable
        if missing:
            return "these tools are not configured: " + ", ".join(missing)
        return "no tools are configured"

    async def events(self, message: str, history: Sequence[Mapping[str, Any]]) -> AsyncGenerator[AgentEvent, None]:
        schemas = self.agent.tools.schemas("openai")
        notice = None if schemas else f"Web access is unavailable: {self._unavailable_reason()}."
        system = self.agent.system_prompt
        if notice is not None:
            system += "\n" + NO_TOOLS_NOTE.format(why=self._unavailable_reason())
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        messages += [{"role": m["role"], "content": m["content"]} for m in history]
        messages.append({"role": "user", "content": message})
        for earlier in (*history, {"role": "user", "content": message}):
            if earlier["role"] == "user" and isinstance(earlier["content"], str):
                self._admit_user(earlier["content"])
        steps = 0
        finish = "stop"
        try:
            while True:
                forced = bool(schemas) and steps >= self.agent.max_steps
                if forced:
                    messages.append({"role": "user", "content": STEP_LIMIT_NOTE})
                turn = ModelTurn()
                try:
                    async with aclosing(self._model_turn(messages, () if forced else schemas)) as streamed:
                        async for event in streamed:
                            if isinstance(event, ModelTurn):
                                turn = event
                            else:
                                yield event
                except UpstreamError as exc:
                    if not (schemas and steps == 0 and not self.answer and _refuses_tools(exc)):
                        raise
                    # a model that cannot call tools (Ollama, vLLM without a tool parser): answer without them
                    logger.warning("the model refused tools, answering without them: %s", redact_text(exc.message))
                    schemas = []
                    notice = f"Web access is unavailable: {NO_TOOL_SUPPORT}."
                    messages[0]["content"] += "\n" + NO_TOOLS_NOTE.format(why=NO_TOOL_SUPPORT)
                    continue
                finish = STEP_LIMIT_FINISH if forced else turn.finish_reason
                if forced or not schemas or not turn.tool_calls:
                    break
                steps += 1
                self._unique_ids(turn.tool_calls)
                self._known_names(turn.tool_calls)
                messages.append(self._assistant_message(turn))
                async with aclosing(self._call_tools(turn.tool_calls, messages)) as tool_events:
                    async for tool_event in tool_events:
                        yield tool_event
        except WeblensError as exc:
            yield ErrorEvent(code=exc.code, message=redact_text(exc.message))
            return
        except Exception as exc:  # a bug or a garbled stream must reach the user as an error, not a traceback
            logger.warning("agent run failed: %s", type(exc).__name__, exc_info=True)
            message = redact_text(f"the answer failed: {type(exc).__name__}: {exc}")
            yield ErrorEvent(code="internal_error", message=message)
            return
        cut = CUT_SHORT.get(finish)
        if cut is not None:
            notice = f"{notice} {cut}" if notice else cut
        if not "".join(self.answer).strip():
            self.answer.append(EMPTY_ANSWER)
            yield Delta(text=EMPTY_ANSWER)
        answer = "".join(self.answer)
        cited = self.book.used_by(answer)
        yield Done(
            message=answer + self.book.footer(cited),
            answer=answer,
            sources=cited,
            usage=self.usage,
            finish_reason=finish,
            steps=steps,
            notice=notice,
            citations=check_citations(answer, self.book),
            flagged_urls=list(self.guard.flagged),
            linked_urls=list(self.guard.linked),
        )

    async def _model_turn(
        self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncGenerator[Delta | ModelTurn, None]:
        separate = bool(self.answer) and not "".join(self.answer).endswith("\n")
        turn = ModelTurn()
        held: list[str] | None = [] if tools else None
        """With tools offered, text that may be a call written as text waits until it is known not to be."""
        async with aclosing(self.agent.model.stream(messages, tools)) as pieces:
            async for piece in pieces:
                if isinstance(piece, ModelTurn):
                    self.usage.add(piece.usage)
                    turn = piece
                    continue
                if held is not None:
                    held.append(piece)
                    if may_be_written_call("".join(held)):
                        continue
                    piece, held = "".join(held), None
                if separate:  # text from an earlier step ends a paragraph before this one starts
                    separate = False
                    piece = "\n\n" + piece
                if (delta := self._shown(piece)) is not None:
                    yield delta
        if held:
            text = "".join(held)
            written = [] if turn.tool_calls else written_calls(text, (t["function"]["name"] for t in tools))
            if written:
                logger.info("the model wrote %d tool call(s) as text; running them", len(written))
                turn.tool_calls, turn.text = written, ""
            else:
                if (delta := self._shown("\n\n" + text if separate else text)) is not None:
                    yield delta
        rest = self.guard.flush()  # the turn's text has ended: nothing more can join a URL
        if rest:
            self.answer.append(rest)
            yield Delta(text=rest)
        yield turn

    def _shown(self, piece: str) -> Delta | None:
        """The piece as the user sees it (links checked), kept as part of the answer."""
        shown = self.guard.feed(piece)
        if not shown:
            return None
        self.answer.append(shown)
        return Delta(text=shown)

    @staticmethod
    def _assistant_message(turn: ModelTurn) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": turn.text or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
                for c in turn.tool_calls
            ],
        }
        if turn.reasoning:  # DeepSeek's thinking mode answers 400 without it; only servers that sent it get it
            message["reasoning_content"] = turn.reasoning
        return message

    async def _call_tools(
        self, calls: list[ToolCall], messages: list[dict[str, Any]]
    ) -> AsyncGenerator[AgentEvent, None]:
        """Run one step's calls concurrently; report each as it finishes; answer in call order."""
        contents: dict[str, str] = {}
        running: dict[tuple[str, str], asyncio.Task[ToolResult]] = {}
        waiting: dict[asyncio.Task[ToolResult], list[ToolCall]] = {}
        repeats: list[tuple[ToolCall, ToolResult]] = []
        refused: list[tuple[ToolCall, ToolResult]] = []
        over_cap: set[str] = set()
        try:
            for call in calls:
                key = _call_key(call)
                if key in self.earlier:
                    content, result = self.earlier[key]
                    contents[call.id] = REPEAT_NOTE.format(name=call.name) + content
                    repeats.append((call, result))
                elif key in running:
                    waiting[running[key]].append(call)
                elif (capped := self.budget.over_step_cap(len(running) + len(refused))) is not None:
                    contents[call.id] = capped.text  # not run, not shown: a runaway step may hold thousands
                    over_cap.add(call.id)
                else:
                    args = _shown_arguments(call)  # parsed, so the call log shows fields (secrets masked)
                    refusal = self.provenance.check(self.agent.tools.get(call.name), args) or self.budget.spend(
                        call.name
                    )
                    if refusal is not None:
                        contents[call.id] = refusal.text
                        refused.append((call, refusal))
                        continue
                    task = asyncio.create_task(self.agent.tools.call(call.name, args, self.ctx))
                    running[key] = task
                    waiting[task] = [call]
            if over_cap:
                logger.warning(
                    "a model step asked for %d tool calls; %d were not run (max_calls_per_step=%d)",
                    len(calls),
                    len(over_cap),
                    self.budget.max_calls_per_step,
                )
            for call in calls:
                if call.id in over_cap:
                    continue
                yield ToolCallEvent(
                    id=call.id,
                    name=call.name,
                    arguments=_shown_arguments(call),
                    key_argument=self.agent.tools.key_argument(call.name, call.arguments),
                )
            for call, result in repeats:
                yield _result_event(call, result, repeated=True)
            for call, result in refused:
                yield _result_event(call, result, repeated=False)
            pending = set(waiting)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    first, *same = waiting[task]
                    result = task.result()
                    self.provenance.admit_result(result)
                    self.linkable.admit_result(result)
                    content = self.book.render(result)
                    self.earlier[_call_key(first)] = (content, result)
                    contents[first.id] = content
                    yield _result_event(first, result, repeated=False, sources=self.book.named_by(result))
                    for call in same:
                        contents[call.id] = REPEAT_NOTE.format(name=call.name) + content
                        yield _result_event(call, result, repeated=True)
        finally:
            for task in waiting:
                task.cancel()
        messages.extend({"role": "tool", "tool_call_id": c.id, "content": contents[c.id]} for c in calls)
