"""`think`: the model writes its reasoning down; the UI shows it, the context stays small."""

from __future__ import annotations

from pydantic import BaseModel, Field

from weblens.context import ToolContext
from weblens.result import ToolOk, ToolResult
from weblens.tool import Tool

__all__ = ["Think", "ThinkParams"]

DESCRIPTION = (
    "Use this tool to think through a problem step by step before acting: to plan, to weigh "
    "options, or to check what you know. The thought is shown to the user; it does not fetch "
    "new information or change anything."
)


class ThinkParams(BaseModel):
    thought: str = Field(min_length=1, description="Your internal reasoning or thought process")


class Think(Tool[ThinkParams]):
    """Seed 002's Think: echoes the thought as the brief; the model gets an acknowledgement."""

    name = "think"
    description = DESCRIPTION
    params = ThinkParams
    key_param = "thought"

    async def run(self, params: ThinkParams, ctx: ToolContext) -> ToolResult:
        return ToolOk(output="", message="Thought recorded.", brief=f"💭 Thinking: {params.thought}")
