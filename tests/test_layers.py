"""Imports point down the layers of DESIGN.md; a module never reaches above its layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src" / "weblens"
CORE = ("weblens.errors", "weblens.redact", "weblens.arguments", "weblens.closing", "weblens.result",
        "weblens.context", "weblens.tool", "weblens.schema", "weblens.toolset", "weblens.progress", "weblens.loops",
        "weblens.placeholders")
ABOVE_CORE = ("weblens.net", "weblens.browser",
              "weblens.cache", "weblens.store", "weblens.config", "weblens.runtime", "weblens.search",
              "weblens.fetch", "weblens.weather", "weblens.llm", "weblens.extract", "weblens.tools", "weblens.mcp",
              "weblens.agent", "weblens.app", "weblens.cli", "weblens.testing")
TOOL_LAYER = ("weblens.tool", "weblens.toolset", "weblens.tools", "weblens.result", "weblens.context",
              "weblens.runtime")
UPPER = ("weblens.mcp", "weblens.agent", "weblens.app", "weblens.cli")

# module prefix -> imports it must not make
FORBIDDEN: dict[str, tuple[str, ...]] = {
    **{core: ABOVE_CORE for core in CORE},
    "weblens.net": (*TOOL_LAYER, *UPPER, "weblens.search", "weblens.fetch", "weblens.browser", "weblens.testing"),
    "weblens.browser": (*TOOL_LAYER, *UPPER, "weblens.search", "weblens.fetch", "weblens.testing"),
    "weblens.cache": (*TOOL_LAYER, *UPPER, "weblens.net", "weblens.testing"),
    "weblens.store": (*TOOL_LAYER, *UPPER, "weblens.net", "weblens.cache", "weblens.search",
                      "weblens.fetch", "weblens.testing"),
    "weblens.metrics": (*TOOL_LAYER, *UPPER, "weblens.net", "weblens.search", "weblens.fetch", "weblens.testing"),
    "weblens.policy": (*TOOL_LAYER, *UPPER, "weblens.config", "weblens.net", "weblens.cache", "weblens.search",
                       "weblens.fetch", "weblens.testing"),
    "weblens.urls": ABOVE_CORE,
    "weblens.workers": ABOVE_CORE,
    "weblens.search": (*TOOL_LAYER, *UPPER, "weblens.testing"),
    "weblens.fetch": (*TOOL_LAYER, *UPPER, "weblens.testing", "weblens.sites"),
    "weblens.sites": (*TOOL_LAYER, *UPPER, "weblens.testing"),
    "weblens.weather": (*TOOL_LAYER, *UPPER, "weblens.testing"),
    "weblens.llm": (*TOOL_LAYER, *UPPER, "weblens.search", "weblens.fetch", "weblens.testing"),
    "weblens.extract": (*TOOL_LAYER, *UPPER, "weblens.testing"),
    "weblens.tools": (*UPPER, "weblens.testing"),
    "weblens.mcp": ("weblens.agent", "weblens.app", "weblens.cli", "weblens.testing"),
    "weblens.agent": ("weblens.app", "weblens.cli", "weblens.testing"),
    "weblens.app": ("weblens.cli", "weblens.testing"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {name for name in found if name.startswith("weblens")}


def violates(imported: str, forbidden: tuple[str, ...]) -> bool:
    return any(imported == f or imported.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_module_imports_only_from_below(path: Path) -> None:
    name = module_name(path)
    rules = [f for prefix, f in FORBIDDEN.items() if name == prefix or name.startswith(prefix + ".")]
    bad = sorted(i for i in imports_of(path) for f in rules if violates(i, f))
    assert not bad, f"{name} imports {bad} from a layer above it"
