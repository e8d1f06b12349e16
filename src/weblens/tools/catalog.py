"""Every built-in tool's factory, in one list: the CLI, the MCP gateway and the agent read it.

A factory takes a `Runtime` and returns a tool, or None when the tool is not configured
(e.g. no API key), so an unconfigured tool is simply absent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from weblens.runtime import Runtime
from weblens.tool import Tool
from weblens.tools.extract import EXTRACT_FACTORIES
from weblens.tools.fetch import FETCH_FACTORIES
from weblens.tools.screenshot import SCREENSHOT_FACTORIES
from weblens.tools.search import SEARCH_FACTORIES
from weblens.tools.sites import SITES_FACTORIES
from weblens.tools.think import Think
from weblens.tools.todo import SetTodoList
from weblens.tools.weather import GetWeather
from weblens.toolset import Toolset

__all__ = ["FACTORIES", "default_toolset"]


def _think(runtime: Runtime) -> Tool[Any]:
    return Think()


def _todo(runtime: Runtime) -> Tool[Any]:
    return SetTodoList()


def _weather(runtime: Runtime) -> Tool[Any]:
    return GetWeather(runtime)


FACTORIES: list[Any] = [
    _think,
    _todo,
    _weather,
    *SEARCH_FACTORIES,
    *FETCH_FACTORIES,
    *SITES_FACTORIES,
    *SCREENSHOT_FACTORIES,
    *EXTRACT_FACTORIES,
]


def default_toolset(runtime: Runtime, *, enabled: Iterable[str] | None = None) -> Toolset:
    """All configured built-in tools made from `runtime`; `enabled` limits which are exposed."""
    return Toolset.from_factories(FACTORIES, runtime, enabled=enabled)
