"""The built-in tools: thin wrappers that turn search, fetch and weather calls into Tools."""

from weblens.tools.catalog import FACTORIES, default_toolset
from weblens.tools.think import Think
from weblens.tools.todo import SetTodoList, Todo

__all__ = ["FACTORIES", "SetTodoList", "Think", "Todo", "default_toolset"]
