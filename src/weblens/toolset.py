"""A registry of tools: what a model, the MCP gateway or the agent may call.

Tools are registered directly or through factories; a factory returns None when its
tool is not configured (no API key), so such a tool is simply absent (seed 004). An
enable-list narrows what is exposed without changing what is registered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from weblens.context import ToolContext
from weblens.result import ToolResult
from weblens.tool import Tool

__all__ = ["ToolFactory", "Toolset"]

ToolFactory = Callable[[Any], "Tool[Any] | None"]
"""Builds a tool from settings, or returns None when the tool is not configured."""
ToolObserver = Callable[[str, ToolResult], None]
"""Told of every call's result (tool name, result); must not raise."""


class Toolset:
    """Tools by name, in registration order, optionally limited to an enable-list."""

    def __init__(self, tools: Iterable[Tool[Any]] = (), *, enabled: Iterable[str] | None = None) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._enabled: tuple[str, ...] | None = tuple(enabled) if enabled is not None else None
        self._observers: list[ToolObserver] = []
        for tool in tools:
            self.add(tool)

    @classmethod
    def from_factories(
        cls, factories: Iterable[ToolFactory], settings: Any, *, enabled: Iterable[str] | None = None
    ) -> Toolset:
        """Build every configured tool; unconfigured ones (factory returned None) are left out."""
        built = (factory(settings) for factory in factories)
        return cls((tool for tool in built if tool is not None), enabled=enabled)

    def add(self, tool: Tool[Any]) -> Tool[Any]:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def only(self, names: Iterable[str]) -> Toolset:
        """A view exposing only `names` (an enable-list); unknown names are ignored."""
        view = Toolset(enabled=names)
        view._tools = self._tools
        view._observers = self._observers
        return view

    def observe(self, observer: ToolObserver) -> None:
        """Call `observer(name, result)` after every call through this toolset and its views (metrics)."""
        self._observers.append(observer)

    @property
    def enabled(self) -> tuple[str, ...] | None:
        return self._enabled

    @property
    def unavailable(self) -> tuple[str, ...]:
        """Enabled names with no registered tool (e.g. a provider with no key)."""
        return tuple(n for n in self._enabled or () if n not in self._tools)

    def _visible(self) -> Iterator[Tool[Any]]:
        if self._enabled is None:
            yield from self._tools.values()
        else:
            yield from (self._tools[n] for n in self._enabled if n in self._tools)

    def __iter__(self) -> Iterator[Tool[Any]]:
        return self._visible()

    def __len__(self) -> int:
        return sum(1 for _ in self._visible())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    @property
    def names(self) -> list[str]:
        return [tool.name for tool in self._visible()]

    def get(self, name: str) -> Tool[Any] | None:
        if self._enabled is not None and name not in self._enabled:
            return None
        return self._tools.get(name)

    def schemas(self, dialect: str = "openai") -> list[dict[str, Any]]:
        """Every exposed tool's declaration in one dialect (see `weblens.schema.DIALECTS`)."""
        return [tool.schema(dialect) for tool in self._visible()]

    async def call(
        self,
        name: str,
        args: Mapping[str, Any] | str | BaseModel | None = None,
        ctx: ToolContext | None = None,
    ) -> ToolResult:
        """Call a tool by name; an unknown name is an error result listing the known ones."""
        tool = self.get(name)
        if tool is None:
            known = ", ".join(self.names) or "(none)"
            return ToolResult.failure("not_found", f"Unknown tool {name!r}. Available tools: {known}")
        result = await tool.execute(args, ctx)
        for observer in self._observers:
            observer(name, result)
        return result

    def key_argument(self, name: str, args: Mapping[str, Any] | str | None) -> str | None:
        """The argument a UI shows on one line for a call, or None."""
        tool = self.get(name)
        if tool is None or args is None:
            return None
        if isinstance(args, str):
            try:
                parsed = json.loads(args)
            except (ValueError, RecursionError):  # not JSON, an integer past the digit limit, too deep
                return None
            if not isinstance(parsed, dict):
                return None
            args = parsed
        return tool.key_argument(args)
