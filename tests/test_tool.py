"""The tool core: declaring, validating, executing, and the one result envelope."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from weblens import (
    NotFoundError,
    Retry,
    Tool,
    ToolContext,
    ToolError,
    ToolOk,
    ToolResult,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
    define_tool,
)
from weblens.redact import register_secret


class AddParams(BaseModel):
    a: int = Field(description="first number")
    b: int = Field(default=1, ge=0, description="second number")


class AddOutput(BaseModel):
    sum: int


async def add(params: AddParams) -> AddOutput:
    return AddOutput(sum=params.a + params.b)


adder = define_tool(name="add", description="Add two numbers.", input_schema=AddParams, execute=add)


class Echo(Tool[AddParams]):
    name = "echo"
    description = "Echo the arguments."
    params = AddParams

    async def run(self, params: AddParams, ctx: ToolContext) -> Any:
        return {"a": params.a, "thread": ctx.thread_id}


async def test_define_tool_returns_data_text_and_timing() -> None:
    result = await adder.execute({"a": 2, "b": 3})
    assert result.ok
    assert result.data == {"sum": 5}
    assert json.loads(result.text) == {"sum": 5}
    assert result.duration_ms > 0
    assert result.attempts == 1
    assert result.error is None


async def test_subclassed_tool_gets_context() -> None:
    result = await Echo().execute({"a": 7}, ToolContext(thread_id="t-1"))
    assert result.data == {"a": 7, "thread": "t-1"}


async def test_arguments_may_be_a_json_string() -> None:
    assert (await adder.execute('{"a": 1}')).data == {"sum": 2}


async def test_invalid_arguments_give_field_level_issues() -> None:
    result = await adder.execute({"b": -1})
    assert not result.ok and result.error is not None
    assert result.error.code == "validation_error"
    fields = {issue["field"] for issue in result.error.details["issues"]}
    assert fields == {"a", "b"}
    assert "a: Field required" in result.error.message
    assert "b: Input should be greater than or equal to 0" in result.error.message


async def test_malformed_json_arguments_are_a_validation_error() -> None:
    result = await adder.execute('{"a": 1')
    assert result.error is not None and result.error.code == "validation_error"
    assert "not valid JSON" in result.error.message


async def test_an_unknown_parameter_is_an_error_naming_it_and_what_the_tool_takes() -> None:
    result = await adder.execute({"a": 1, "query": "cats"})
    assert result.error is not None and result.error.code == "validation_error"
    assert result.error.details["issues"] == [
        {"field": "query", "message": "unknown parameter; this tool takes a, b", "type": "extra_forbidden"}
    ]
    assert "query: unknown parameter; this tool takes a, b" in result.error.message
    # the declaration says so too, so a model (and strict clients) know before calling
    assert adder.json_schema["additionalProperties"] is False


async def test_unknown_keys_inside_nested_objects_are_refused_too() -> None:
    class Point(BaseModel):
        x: int

    class Shape(BaseModel):
        points: list[Point]

    async def count(params: Shape) -> int:
        return len(params.points)

    tool = define_tool(name="count", description="d", input_schema=Shape, execute=count)
    result = await tool.execute({"points": [{"x": 1, "y": 2}]})
    assert result.error is not None and result.error.details["issues"][0]["field"] == "points.0.y"
    assert tool.json_schema["$defs"]["Point"]["additionalProperties"] is False


async def test_a_params_model_that_takes_any_keys_keeps_them() -> None:
    class Anything(BaseModel):
        model_config = ConfigDict(extra="allow")

    class Wrapper(BaseModel):
        options: Anything

    async def echo(params: BaseModel) -> Any:
        return params.model_dump()

    open_tool = define_tool(name="open", description="d", input_schema=Anything, execute=echo)
    assert (await open_tool.execute({"q": 1})).data == {"q": 1}
    nested = define_tool(name="nested", description="d", input_schema=Wrapper, execute=echo)
    assert (await nested.execute({"options": {"q": 1}})).data == {"options": {"q": 1}}
    assert "additionalProperties" not in open_tool.json_schema or open_tool.json_schema["additionalProperties"]


def test_validate_returns_params_or_raises() -> None:
    assert adder.validate({"a": 1}) == AddParams(a=1, b=1)
    with pytest.raises(ToolValidationError) as info:
        adder.validate({"a": "x"})
    assert info.value.issues[0]["field"] == "a"


async def test_raise_on_error_raises_the_matching_exception() -> None:
    with pytest.raises(ToolValidationError) as info:
        await adder.execute({}, raise_on_error=True)
    assert info.value.issues[0]["field"] == "a"

    async def slow(params: AddParams) -> None:
        import asyncio

        await asyncio.sleep(5)

    slow_tool = define_tool(name="slow", description="d", input_schema=AddParams, execute=slow, timeout=0.05)
    with pytest.raises(ToolTimeoutError):
        await slow_tool.execute({"a": 1}, raise_on_error=True)


async def test_weblens_errors_become_error_results() -> None:
    async def missing(params: AddParams) -> None:
        raise NotFoundError("no such thing")

    tool = define_tool(name="missing", description="d", input_schema=AddParams, execute=missing)
    result = await tool.execute({"a": 1})
    assert not result.ok and result.error is not None
    assert result.error.code == "not_found"
    assert result.error.message == "no such thing"
    assert "not_found" in result.text


async def test_a_bug_in_the_body_is_an_internal_error_without_traceback(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(params: AddParams) -> None:
        raise KeyError("oops")

    tool = define_tool(name="broken", description="d", input_schema=AddParams, execute=broken)
    result = await tool.execute({"a": 1})
    assert result.error is not None and result.error.code == "internal_error"
    assert "KeyError" in result.error.message
    assert "Traceback" not in result.text and "Traceback" not in result.error.message


async def test_secrets_are_masked_in_error_messages() -> None:
    register_secret("sk-very-secret-value")

    async def leaky(params: AddParams) -> None:
        raise UpstreamError("upstream said: bad key sk-very-secret-value", status=401)

    tool = define_tool(name="leaky", description="d", input_schema=AddParams, execute=leaky)
    result = await tool.execute({"a": 1})
    assert result.error is not None
    assert "sk-very-secret-value" not in result.model_dump_json()
    assert "***" in result.error.message


async def test_every_call_is_logged_once_with_secrets_redacted(caplog: pytest.LogCaptureFixture) -> None:
    class KeyParams(BaseModel):
        query: str
        api_key: str
        access_token: str = ""
        max_tokens: int = 0

    async def body(params: KeyParams) -> ToolResult:
        return ToolResult.success("ok", sources=[])

    tool = define_tool(name="keyed", description="d", input_schema=KeyParams, execute=body)
    with caplog.at_level(logging.INFO, logger="weblens.tools"):
        await tool.execute({"query": "cats", "api_key": "abcd-1234", "access_token": "tok-5678", "max_tokens": 500})
    records = [r for r in caplog.records if getattr(r, "tool", None) == "keyed"]
    assert len(records) == 1
    record = records[0]
    # a token is a secret, a count of tokens is not
    assert record.arguments == {  # type: ignore[attr-defined]
        "query": "cats", "api_key": "***", "access_token": "***", "max_tokens": 500,
    }  # fmt: skip
    assert record.outcome == "ok"  # type: ignore[attr-defined]
    assert record.duration_ms >= 0  # type: ignore[attr-defined]
    assert "abcd-1234" not in caplog.text and "tok-5678" not in caplog.text


def test_seed_002_constructors_map_onto_tool_result() -> None:
    ok = ToolOk(output="body", message="Fetched", brief="1 page")
    assert ok.ok and ok.text == "body\n\nFetched" and ok.brief == "1 page"
    err = ToolError(output="", message="HTTP 404 error", brief="HTTP 404", code="not_found")
    assert not err.ok and err.error is not None
    assert err.error.code == "not_found" and err.error.message == "HTTP 404 error" and err.brief == "HTTP 404"
    assert ToolError(message="boom").error.code == "internal_error"  # type: ignore[union-attr]


def test_tool_declaration_errors_are_programmer_errors() -> None:
    class Nameless(Tool[AddParams]):
        params = AddParams

    with pytest.raises(TypeError):
        Nameless()
    with pytest.raises(ValueError):
        Retry(max_attempts=0)

    def not_async(params: AddParams) -> None:
        return None

    with pytest.raises(TypeError):
        define_tool(name="x", description="d", input_schema=AddParams, execute=not_async)  # type: ignore[arg-type]


def test_instances_override_class_defaults() -> None:
    tool = Echo(name="echo2", description="Other.", timeout=3, retry=Retry(max_attempts=2))
    assert (tool.name, tool.description, tool.timeout, tool.retry.max_attempts) == ("echo2", "Other.", 3, 2)
    assert Echo().name == "echo"


def test_key_argument_picks_the_first_required_string() -> None:
    class SearchParams(BaseModel):
        count: int = 3
        query: str

    tool = define_tool(name="s", description="d", input_schema=SearchParams, execute=add)
    assert tool.key_argument({"query": "  weather   in Paris ", "count": 2}) == "weather in Paris"
    assert tool.key_argument({"count": 2}) is None
    assert tool.key_argument({"query": "x" * 200}).endswith("…")  # type: ignore[union-attr]
