"""Seed 002's Think and SetTodoList, as weblens tools."""

from __future__ import annotations

from weblens.tools import SetTodoList, Think


async def test_think_echoes_the_thought_as_brief_only() -> None:
    result = await Think().execute({"thought": "分析项目结构..."})
    assert result.ok
    assert result.brief == "💭 Thinking: 分析项目结构..."
    assert "分析项目结构" not in result.text  # the model's context only gets an acknowledgement
    assert result.text == "Thought recorded."


async def test_think_rejects_an_empty_thought() -> None:
    result = await Think().execute({"thought": ""})
    assert result.error is not None and result.error.code == "validation_error"


async def test_todo_list_renders_status_styles() -> None:
    result = await SetTodoList().execute(
        {
            "todos": [
                {"title": "Completed", "status": "Done"},
                {"title": "Current", "status": "In Progress"},
                {"title": "Future", "status": "Pending"},
            ]
        }
    )
    assert result.ok and result.text == "Todo list updated"
    assert result.brief == "- ~~Completed~~ [Done]\n- **Current** [In Progress]\n- Future [Pending]\n"
    assert result.data == {
        "todos": [
            {"title": "Completed", "status": "Done"},
            {"title": "Current", "status": "In Progress"},
            {"title": "Future", "status": "Pending"},
        ]
    }


async def test_todo_list_rejects_empty_titles_and_unknown_statuses() -> None:
    empty = await SetTodoList().execute({"todos": [{"title": "", "status": "Done"}]})
    assert empty.error is not None and empty.error.details["issues"][0]["field"] == "todos.0.title"
    unknown = await SetTodoList().execute({"todos": [{"title": "x", "status": "Blocked"}]})
    assert unknown.error is not None and unknown.error.code == "validation_error"


async def test_empty_todo_list_is_fine() -> None:
    result = await SetTodoList().execute({"todos": []})
    assert result.ok and result.brief == ""
