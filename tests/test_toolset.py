"""The registry: enable-lists, factories that leave unconfigured tools out, calls by name."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from weblens import Toolset, define_tool
from weblens.tools import SetTodoList, Think


class Q(BaseModel):
    query: str


async def echo(params: Q) -> str:
    return params.query


def make(name: str) -> Any:
    return define_tool(name=name, description=f"{name} tool", input_schema=Q, execute=echo)


def test_enable_list_limits_what_is_exposed() -> None:
    toolset = Toolset([make("a"), make("b"), make("c")], enabled=["c", "a", "missing"])
    assert toolset.names == ["c", "a"]
    assert "b" not in toolset and toolset.get("b") is None
    assert toolset.unavailable == ("missing",)
    assert [s["function"]["name"] for s in toolset.schemas("openai")] == ["c", "a"]
    assert len(toolset) == 2


def test_only_returns_a_view_of_the_same_tools() -> None:
    full = Toolset([make("a"), make("b")])
    view = full.only(["b"])
    assert view.names == ["b"] and full.names == ["a", "b"]


def test_factories_returning_none_leave_the_tool_out() -> None:
    settings = {"key": None}

    def keyed(s: dict[str, Any]) -> Any:
        return make("keyed") if s["key"] else None

    assert Toolset.from_factories([keyed, lambda s: make("free")], settings).names == ["free"]
    settings["key"] = "set"
    assert Toolset.from_factories([keyed, lambda s: make("free")], settings).names == ["keyed", "free"]


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        Toolset([make("a"), make("a")])


async def test_call_by_name_and_unknown_names() -> None:
    toolset = Toolset([make("a"), make("b")], enabled=["a"])
    assert (await toolset.call("a", {"query": "hi"})).text == "hi"
    result = await toolset.call("b", {"query": "hi"})
    assert result.error is not None and result.error.code == "not_found"
    assert result.error.message == "Unknown tool 'b'. Available tools: a"


def test_key_argument_for_ui_lines() -> None:
    toolset = Toolset([make("search"), Think(), SetTodoList()])
    assert toolset.key_argument("search", '{"query": "news today"}') == "news today"
    assert toolset.key_argument("think", {"thought": "plan first"}) == "plan first"
    assert toolset.key_argument("set_todo_list", {"todos": []}) is None
    assert toolset.key_argument("search", "not json") is None
    assert toolset.key_argument("nope", {"query": "x"}) is None
