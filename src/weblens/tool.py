"""The tool core: declare a tool once, call it safely, get one `ToolResult` back.

A tool is a name, a description, a pydantic params model and an async body. `execute`
validates, asks for approval when needed, runs the body under a real timeout (the body
is cancelled, so an in-flight HTTP request is closed), retries retryable failures with
backoff that honours `retry_after_s`, and turns every failure into an error result.
Code below a tool that waits its turn for something shared (a free worker process) wraps
the wait in `deadline_paused`: that time is not the call's, so it is not counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from weblens.arguments import check_arguments, first_problem, parse_arguments
from weblens.context import ToolContext
from weblens.errors import (
    ApprovalRequiredError,
    ToolCancelledError,
    ToolTimeoutError,
    ToolValidationError,
    WeblensError,
)
from weblens.redact import redact, redact_secrets, redact_text, redact_values, valid_unicode
from weblens.result import ToolResult
from weblens.schema import close_objects, is_open

__all__ = ["DEFAULT_TIMEOUT_S", "FunctionTool", "Retry", "Tool", "deadline_paused", "define_tool"]

DEFAULT_TIMEOUT_S = 30.0
_KEY_ARGUMENT_MAX = 80
_LOGGED_ARGUMENTS_MAX = 2000
"""Longest arguments text in a call-log line; the structured field keeps them whole."""

logger = logging.getLogger("weblens.tools")
P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Retry:
    """How often to re-run a retryable failure: `delay` seconds, doubling each time."""

    max_attempts: int = 1
    delay: float = 0.5
    backoff: float = 2.0
    max_delay: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("Retry.max_attempts must be at least 1")
        if self.delay < 0:
            raise ValueError("Retry.delay must not be negative")

    def wait_before(self, attempt: int, retry_after_s: float | None) -> float:
        """Seconds to wait before `attempt` (2, 3, ...); the upstream's word wins."""
        if retry_after_s is not None:
            return max(0.0, retry_after_s)
        return min(self.max_delay, self.delay * self.backoff ** (attempt - 2))


NO_RETRY = Retry()
_EMPTY_CONTEXT = ToolContext()


class _Deadline:
    """A running call's deadline, pushed back by the time its body spent waiting its turn for
    something shared (`deadline_paused`); overlapping waits (of tasks it started) count once."""

    def __init__(self, when: float) -> None:
        self.when = when
        self.not_counted = 0.0
        self.waits: list[str] = []
        self._waiting = 0
        self._since = 0.0
        self._timeout: asyncio.Timeout | None = None

    def bind(self, timeout: asyncio.Timeout | None) -> None:
        """The attempt's timeout that enforces `when` (None once it is left)."""
        self._timeout = timeout
        if timeout is not None and self._waiting:
            timeout.reschedule(None)

    def _reschedule(self, when: float | None) -> None:
        if self._timeout is not None and not self._timeout.expired():
            self._timeout.reschedule(when)

    def pause(self, why: str) -> None:
        if why not in self.waits:
            self.waits.append(why)
        if self._waiting == 0:
            self._since = asyncio.get_running_loop().time()
            self._reschedule(None)
        self._waiting += 1

    def resume(self) -> None:
        self._waiting -= 1
        if self._waiting == 0:
            waited = asyncio.get_running_loop().time() - self._since
            self.not_counted += waited
            self.when += waited
            self._reschedule(self.when)


_CALL_DEADLINE: ContextVar[_Deadline | None] = ContextVar("weblens_call_deadline", default=None)


@contextlib.contextmanager
def deadline_paused(why: str) -> Iterator[None]:
    """Time inside is not counted against the running tool call's deadline (if any): for a wait
    for something shared, such as "a free worker", which says nothing about this call's work.
    The timeout error names `why` and how long such waits took."""
    deadline = _CALL_DEADLINE.get()
    if deadline is None:
        yield
        return
    deadline.pause(why)
    try:
        yield
    finally:
        deadline.resume()


def _issues(exc: ValidationError, known: list[str]) -> list[dict[str, Any]]:
    issues = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(part) for part in err["loc"]) or "(arguments)"
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            # say what the tool does take, so the model can fix its call in one step
            message = "unknown parameter" + (f"; this tool takes {', '.join(known)}" if len(err["loc"]) == 1 else "")
        issues.append({"field": field, "message": message, "type": err["type"]})
    return issues


class Tool(Generic[P]):
    """Base class: set `name`, `description`, `params` and implement `run`.

    Class attributes are defaults; `__init__` keyword arguments override them per
    instance, so one implementation serves several configured tools.
    """

    name: str = ""
    description: str = ""
    params: type[P]
    output: type[BaseModel] | None = None
    """Declared structured output (becomes MCP `outputSchema`)."""
    needs_approval: bool = False
    timeout: float = DEFAULT_TIMEOUT_S
    retry: Retry = NO_RETRY
    key_param: ClassVar[str | None] = None
    """The argument a UI shows for a call; None picks the first required string field."""

    def __init__(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        retry: Retry | None = None,
        needs_approval: bool | None = None,
    ) -> None:
        if name is not None:
            self.name = name
        if description is not None:
            self.description = description
        if timeout is not None:
            self.timeout = timeout
        if retry is not None:
            self.retry = retry
        if needs_approval is not None:
            self.needs_approval = needs_approval
        if not self.name or not getattr(self, "params", None):
            raise TypeError(f"{type(self).__name__} needs a name and a params model")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    async def run(self, params: P, ctx: ToolContext) -> Any:
        """The body. Return a `ToolResult`, a pydantic model or JSON-like data; raise
        a `WeblensError` for a failure the caller should see as such."""
        raise NotImplementedError

    def render(self, data: Any) -> str:
        """Text for the model when the body returned plain data."""
        if isinstance(data, str):
            return data
        return json.dumps(data, ensure_ascii=False, default=str)

    # -- schemas -----------------------------------------------------------------

    @cached_property
    def closed(self) -> bool:
        """Unknown arguments are a validation error, never silently dropped, unless the params
        model says otherwise (its own `extra` setting, or an object in it that takes any keys)."""
        return self.params.model_config.get("extra") is None and not is_open(self.params.model_json_schema())

    @cached_property
    def json_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        return close_objects(schema) if self.closed else schema

    @cached_property
    def _optional_fields(self) -> frozenset[str]:
        return frozenset(name for name, field in self.params.model_fields.items() if not field.is_required())

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        return self.output.model_json_schema() if self.output is not None else None

    def schema(self, dialect: str = "openai") -> dict[str, Any]:
        """This tool's declaration for a model API: openai, openai-strict, anthropic, gemini, mcp."""
        from weblens.schema import export

        return export(self, dialect)

    # -- calling -----------------------------------------------------------------

    def validate(self, args: Mapping[str, Any] | str | BaseModel | None) -> P:
        """Parse and check arguments (a dict or a JSON string); raise `ToolValidationError`."""
        if isinstance(args, self.params):
            return args
        if isinstance(args, BaseModel):
            args = args.model_dump()
        if isinstance(args, str | bytes):
            args = parse_arguments(args, self.name)
        elif args is not None:
            check_arguments(args, self.name)
        if args is None:
            args = {}
        elif isinstance(args, Mapping) and None in args.values():
            # OpenAI strict mode makes optional fields nullable: null means "use the default"
            optional = self._optional_fields
            args = {k: v for k, v in args.items() if v is not None or k not in optional}
        try:
            return self.params.model_validate(args, extra="forbid" if self.closed else None)
        except ValidationError as exc:
            issues = _issues(exc, list(self.params.model_fields))
            detail = "; ".join(f"{i['field']}: {i['message']}" for i in issues)
            raise ToolValidationError(f"Invalid arguments for {self.name}: {detail}", issues) from None

    def key_argument(self, args: Mapping[str, Any]) -> str | None:
        """The one argument worth showing in a UI line (seed 002's extract_key_argument)."""
        key = self.key_param or self._first_required_string()
        value = args.get(key) if key else None
        if value is None or value == "" or first_problem(value) is not None:
            return None
        try:
            text = " ".join(str(value).split())
        except (ValueError, RecursionError):  # a value no str() can render is not worth a UI line
            return None
        return text if len(text) <= _KEY_ARGUMENT_MAX else text[: _KEY_ARGUMENT_MAX - 1] + "…"

    def _first_required_string(self) -> str | None:
        schema = self.json_schema
        for field in schema.get("required", []):
            if schema.get("properties", {}).get(field, {}).get("type") == "string":
                return str(field)
        return None

    async def execute(
        self,
        args: Mapping[str, Any] | str | BaseModel | None = None,
        ctx: ToolContext | None = None,
        *,
        raise_on_error: bool = False,
    ) -> ToolResult:
        """Run the tool; always a `ToolResult` unless `raise_on_error` asks for exceptions."""
        ctx = ctx or _EMPTY_CONTEXT
        started = time.perf_counter()
        tries = [0]
        if ctx.tracer is not None:
            with ctx.tracer.start_as_current_span(f"tool {self.name}") as span:
                result = await self._execute(args, ctx, tries)
                span.set_attribute("weblens.tool", self.name)
                span.set_attribute("weblens.outcome", "ok" if result.ok else result.error.code)  # type: ignore[union-attr]
        else:
            result = await self._execute(args, ctx, tries)
        result = _without_secrets(result)
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        result.attempts = max(1, tries[0])
        self._log(args, result)
        if raise_on_error:
            result.raise_for_error()
        return result

    async def _execute(self, args: Any, ctx: ToolContext, tries: list[int]) -> ToolResult:
        try:
            params = self.validate(args)
            if self.needs_approval:
                await self._approve(params, ctx)
            return await self._run_guarded(params, ctx, tries)
        except WeblensError as exc:
            return ToolResult.from_exception(exc)
        except Exception as exc:  # a bug in a body must not reach the model as a traceback
            logger.warning("tool %s raised %s", self.name, type(exc).__name__, exc_info=True)
            return ToolResult.failure("internal_error", f"{self.name} failed: {type(exc).__name__}: {exc}")

    async def _approve(self, params: P, ctx: ToolContext) -> None:
        if ctx.approve is None:
            raise ApprovalRequiredError(f"{self.name} needs approval and no approver was given")
        verdict = ctx.approve(self.name, params.model_dump(mode="json"))
        if inspect.isawaitable(verdict):
            verdict = await verdict
        if not verdict:
            raise ApprovalRequiredError(f"{self.name} was not approved")

    async def _run_guarded(self, params: P, ctx: ToolContext, tries: list[int]) -> ToolResult:
        signal = ctx.cancel
        if signal is not None and signal.cancelled:
            raise ToolCancelledError(signal.reason)
        task = asyncio.current_task()
        assert task is not None
        unsubscribe = signal.subscribe(task.cancel) if signal is not None else None
        loop = asyncio.get_running_loop()
        deadline = _Deadline(loop.time() + self.timeout)
        token = _CALL_DEADLINE.set(deadline)
        try:
            while True:
                tries[0] += 1
                try:
                    async with asyncio.timeout_at(deadline.when) as timeout:
                        deadline.bind(timeout)
                        try:
                            return self._wrap(await self.run(params, ctx))
                        finally:
                            deadline.bind(None)
                except TimeoutError:
                    raise self._timed_out(deadline) from None
                except WeblensError as exc:
                    if not exc.retryable or tries[0] >= self.retry.max_attempts:
                        raise
                    wait = self.retry.wait_before(tries[0] + 1, exc.retry_after_s)
                    if loop.time() + wait >= deadline.when:
                        raise
                    await asyncio.sleep(wait)
        except asyncio.CancelledError:
            if signal is not None and signal.cancelled:
                task.uncancel()
                raise ToolCancelledError(signal.reason) from None
            raise
        finally:
            _CALL_DEADLINE.reset(token)
            if unsubscribe is not None:
                unsubscribe()

    def _timed_out(self, deadline: _Deadline) -> ToolTimeoutError:
        """The call's timeout, saying what was measured: wall-clock time since it started, but for waits
        for something shared."""
        measured = "wall-clock time since the call started"
        if deadline.waits:
            measured += f"; {deadline.not_counted:.1f} s waiting for {' and '.join(deadline.waits)} not counted"
        return ToolTimeoutError(
            f"{self.name} did not finish within {self.timeout:g} s ({measured})",
            details={
                "measured": "wall_clock",
                "timeout_s": self.timeout,
                "not_counted_s": round(deadline.not_counted, 3),
            },
        )

    def _wrap(self, out: Any) -> ToolResult:
        if isinstance(out, ToolResult):
            return out
        if isinstance(out, BaseModel):
            data = out.model_dump(mode="json")
            return ToolResult.success(self.render(data), data=data)
        return ToolResult.success(self.render(out), data=out)

    def _log(self, args: Any, result: ToolResult) -> None:
        if not logger.isEnabledFor(logging.INFO):
            return
        safe_args, shown = _loggable(args)
        outcome = "ok" if result.ok else result.error.code  # type: ignore[union-attr]
        logger.info(
            "tool %s %s in %.1f ms, %s attempt(s), results=%s, arguments=%s",
            self.name,
            outcome,
            result.duration_ms,
            result.attempts,
            result.result_count,
            shown,
            extra={
                "tool": self.name,
                "arguments": safe_args,
                "duration_ms": round(result.duration_ms, 3),
                "outcome": outcome,
                "attempts": result.attempts,
                "result_count": result.result_count,
            },
        )


def _loggable(args: Any) -> tuple[Any, str]:
    """(arguments for a structured log field, the same as one line), secrets masked; never raises,
    whatever the arguments: a call log that crashes would turn any bad call into a crash."""
    try:
        if isinstance(args, BaseModel):
            args = args.model_dump(mode="json")
        problem = first_problem(args)
        if problem is not None:
            field, message, _ = problem
            summary = redact_text(f"<not logged: {field}: {message}>")
            return summary, summary
        safe = redact(args) if isinstance(args, dict) else redact_secrets(str(args or ""))
        shown = redact_text(json.dumps(safe, ensure_ascii=False, default=str))
    except Exception as exc:  # e.g. an object whose __str__ fails
        summary = f"<not logged: {type(exc).__name__}>"
        return summary, summary
    if len(shown) > _LOGGED_ARGUMENTS_MAX:
        shown = shown[:_LOGGED_ARGUMENTS_MAX] + f"… ({len(shown)} characters)"
    return safe, shown


def _without_secrets(result: ToolResult) -> ToolResult:
    """`result` with known secrets masked everywhere a model, a client or a store could read
    them: an upstream that echoes a key in a successful answer leaks nothing. Lone surrogates
    become "?", so the result can always be serialised. (Errors also
    have URL userinfo masked; content keeps it: a page may show `http://user:pass@host`.)"""
    result.text = redact_secrets(valid_unicode(result.text))
    result.brief = redact_secrets(valid_unicode(result.brief))
    result.data = redact_values(result.data)
    result.sources = [
        source.model_copy(update={"title": redact_values(source.title), "url": redact_values(source.url)})
        for source in result.sources
    ]
    if result.error is not None:
        result.error.message = redact_text(result.error.message)
        result.error.details = redact_values(result.error.details)
    return result


Execute = Callable[..., Awaitable[Any]]


class FunctionTool(Tool[P]):
    """A tool made by `define_tool` from a params model and an async function."""

    def __init__(
        self,
        *,
        name: str,
        description: str,
        params: type[P],
        execute: Execute,
        output: type[BaseModel] | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: Retry | None = None,
        needs_approval: bool = False,
    ) -> None:
        if not inspect.iscoroutinefunction(execute):
            raise TypeError("define_tool(execute=...) must be an async function")
        self.params = params
        self.output = output
        self._fn = execute
        self._takes_ctx = len(inspect.signature(execute).parameters) >= 2
        super().__init__(
            name=name, description=description, timeout=timeout, retry=retry, needs_approval=needs_approval
        )

    async def run(self, params: P, ctx: ToolContext) -> Any:
        if self._takes_ctx:
            return await self._fn(params, ctx)
        return await self._fn(params)


def define_tool(
    *,
    name: str,
    description: str,
    input_schema: type[P],
    execute: Execute,
    output_schema: type[BaseModel] | None = None,
    needs_approval: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
    retry: Retry | None = None,
) -> FunctionTool[P]:
    """Seed 003's `defineTool`: a tool from a pydantic model and `async def execute(input, ctx)`."""
    return FunctionTool(
        name=name,
        description=description,
        params=input_schema,
        execute=execute,
        output=output_schema,
        timeout=timeout,
        retry=retry,
        needs_approval=needs_approval,
    )
