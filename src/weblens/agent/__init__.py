"""The built-in agent: an OpenAI-compatible model, a tool-calling loop over a `Toolset`, typed events."""

from weblens.agent.events import (
    AgentEvent,
    CitedSource,
    Delta,
    Done,
    ErrorEvent,
    ToolCallEvent,
    ToolResultEvent,
    Usage,
)
from weblens.agent.llm import ChatModel, ModelTurn, ToolCall
from weblens.agent.loop import Agent, ChatModelLike

__all__ = [
    "Agent",
    "AgentEvent",
    "ChatModel",
    "ChatModelLike",
    "CitedSource",
    "Delta",
    "Done",
    "ErrorEvent",
    "ModelTurn",
    "ToolCall",
    "ToolCallEvent",
    "ToolResultEvent",
    "Usage",
]
