"""The OpenAI-compatible model client, shared by the agent and by tools that need a model."""

from weblens.llm.chat import ChatModel, ModelTurn, ToolCall, Usage

__all__ = ["ChatModel", "ModelTurn", "ToolCall", "Usage"]
