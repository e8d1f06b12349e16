"""The model client lives in `weblens.llm` (web_extract needs it too); re-exported here for the agent."""

from weblens.llm.chat import ChatModel, ModelTurn, ToolCall

__all__ = ["ChatModel", "ModelTurn", "ToolCall"]
