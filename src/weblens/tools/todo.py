"""`set_todo_list`: the model shows its plan and progress as a checklist."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from weblens.context import ToolContext
from weblens.result import ToolOk, ToolResult
from weblens.tool import Tool

__all__ = ["SetTodoList", "SetTodoListParams", "Todo", "render_todos"]

DESCRIPTION = (
    "Set the whole todo list for the current task, to show the user your plan and progress. "
    "Send every item each time (the list is replaced, not merged). Use it for tasks with "
    "several steps; mark one item In Progress at a time and Done as soon as it is done."
)
Status = Literal["Pending", "In Progress", "Done"]


class Todo(BaseModel):
    title: str = Field(min_length=1, description="The title of the todo")
    status: Status = Field(description="The status of the todo")


class SetTodoListParams(BaseModel):
    todos: list[Todo] = Field(description="The updated todo list")


def render_todos(todos: list[Todo]) -> str:
    """Markdown: Done struck through, In Progress in bold, Pending plain (seed 002)."""
    lines = []
    for todo in todos:
        match todo.status:
            case "Done":
                lines.append(f"- ~~{todo.title}~~ [{todo.status}]")
            case "In Progress":
                lines.append(f"- **{todo.title}** [{todo.status}]")
            case _:
                lines.append(f"- {todo.title} [{todo.status}]")
    return "\n".join(lines) + ("\n" if lines else "")


class SetTodoList(Tool[SetTodoListParams]):
    """Seed 002's SetTodoList: the rendered list is the brief; the model gets an acknowledgement."""

    name = "set_todo_list"
    description = DESCRIPTION
    params = SetTodoListParams

    def key_argument(self, args: Mapping[str, Any]) -> str | None:
        return None  # the list itself is shown as the brief

    async def run(self, params: SetTodoListParams, ctx: ToolContext) -> ToolResult:
        todos = [todo.model_dump() for todo in params.todos]
        return ToolOk(message="Todo list updated", brief=render_todos(params.todos), data={"todos": todos})
