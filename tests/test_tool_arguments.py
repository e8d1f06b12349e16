"""Hostile arguments are a `validation_error` naming the problem, never an internal error or a crash,
and the call log survives them at INFO level."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

from weblens import define_tool
from weblens.testing.providers import FakeTavily
from weblens.tools import default_toolset

DEEP_TEXT = "[" * 100_000 + "]" * 100_000


def deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


class Anything(BaseModel):
    query: str = ""
    data: Any = None


async def _echo(params: Anything) -> str:
    return "ok"


echo = define_tool(name="echo", description="takes anything", input_schema=Anything, execute=_echo)

CASES: list[tuple[str, Any, str, str]] = [
    ("deep JSON text", '{"data": ' + DEEP_TEXT + "}", "(arguments)", "nested more than 64 levels deep"),
    ("deep dict", {"data": deep_dict(5_000)}, "data.a.a", "nested more than 64 levels deep"),
    ("huge integer in JSON", '{"data": ' + "7" * 5_000 + "}", "(arguments)", "more than 4300 digits"),
    ("huge integer", {"data": 7**6_000}, "data", "more than 4300 digits"),
    ("bad UTF-8", b'{"query": "caf\xe9"}', "(arguments)", "not valid UTF-8"),
    ("escaped lone surrogate", '{"query": "a\\ud800b"}', "query", "lone surrogate"),
    ("lone surrogate in a value", {"data": ["ok", "\udfff"]}, "data.1", "lone surrogate"),
    ("lone surrogate in a key", {"data": {"\ud800": 1}}, "data", "a key that contains a lone surrogate"),
    ("key that is no string", {"data": {(1, 2): 3}}, "data", "a key that is not a string"),
]


@pytest.mark.parametrize(("label", "args", "field", "said"), CASES, ids=[case[0] for case in CASES])
async def test_hostile_arguments_are_a_validation_error_naming_the_problem(
    label: str, args: Any, field: str, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="weblens.tools"):
        result = await echo.execute(args)

    assert result.error is not None and result.error.code == "validation_error", result.error
    [issue] = result.error.details["issues"]
    assert issue["field"].startswith(field) and said in issue["message"]
    assert said in result.text
    [record] = [r for r in caplog.records if getattr(r, "tool", None) == "echo"]
    line = record.getMessage()
    assert "validation_error" in line and len(line) < 3_000
    line.encode("utf-8")  # the line can be written: no lone surrogate in it


async def test_a_call_log_line_never_raises_even_for_unprintable_arguments(caplog: pytest.LogCaptureFixture) -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise RuntimeError("no")

        __repr__ = __str__

    with caplog.at_level(logging.INFO, logger="weblens.tools"):
        result = await echo.execute({"data": Unprintable()})

    assert result.ok
    [record] = [r for r in caplog.records if getattr(r, "tool", None) == "echo"]
    assert "not logged" in record.getMessage()


async def test_a_built_in_tool_says_what_is_wrong(tavily_runtime: Any) -> None:
    search = default_toolset(tavily_runtime).get("web_search")
    assert search is not None

    results = [await search.execute(args) for args, _, _ in HOSTILE_FOR_SEARCH]

    for result, (_, field, said) in zip(results, HOSTILE_FOR_SEARCH, strict=True):
        assert result.error is not None and result.error.code == "validation_error"
        assert result.error.details["issues"][0]["field"] == field and said in result.error.message


HOSTILE_FOR_SEARCH: list[tuple[Any, str, str]] = [
    ('{"query": ' + DEEP_TEXT + "}", "(arguments)", "nested"),
    ('{"query": "rain", "max_results": ' + "9" * 4_301 + "}", "(arguments)", "4300 digits"),
    (b'{"query": "\xff"}', "(arguments)", "UTF-8"),
    ('{"query": "\\udc80 rain"}', "query", "lone surrogate"),
]


@pytest.fixture
async def tavily_runtime() -> Any:
    from weblens.config import Settings
    from weblens.runtime import Runtime

    async with FakeTavily() as tavily:
        settings = Settings(**tavily.settings(), cache={"enabled": False})
        async with Runtime(settings) as runtime:
            yield runtime
