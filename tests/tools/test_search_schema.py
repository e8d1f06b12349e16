"""`web_search` with its optional filters, in every schema dialect (golden files keep each export reviewable).

Regenerate after an intended change with `UPDATE_GOLDEN=1 pytest tests/tools/test_search_schema.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.schema import DIALECTS
from weblens.tools.search import SearchTool

GOLDEN = Path(__file__).parent.parent / "golden" / "web_search"
NEW = ["include_domains", "exclude_domains", "time_range", "country", "language", "safesearch", "topic", "providers"]
TOOL = SearchTool(Runtime(Settings(), cache=Cache(None)))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_export_matches_golden_file(dialect: str) -> None:
    exported = TOOL.schema(dialect)
    path = GOLDEN / f"{dialect}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(json.dumps(exported, indent=2, ensure_ascii=False) + "\n")
    assert exported == json.loads(path.read_text())


def _parameters(exported: dict[str, object], dialect: str) -> dict[str, object]:
    if dialect.startswith("openai"):
        return exported["function"]["parameters"]  # type: ignore[index, no-any-return]
    key = {"anthropic": "input_schema", "mcp": "inputSchema"}.get(dialect, "parameters")
    return exported[key]  # type: ignore[return-value]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_offers_every_filter_and_requires_only_the_query(dialect: str) -> None:
    params = _parameters(TOOL.schema(dialect), dialect)
    assert set(NEW) <= set(params["properties"])  # type: ignore[call-overload]
    required = params.get("required")  # type: ignore[attr-defined]
    assert required == (["query", "max_results", *NEW] if dialect == "openai-strict" else ["query"])


def test_enums_survive_gemini_and_strict_mode() -> None:
    gemini = _parameters(TOOL.schema("gemini"), "gemini")["properties"]
    assert gemini["time_range"] == {  # type: ignore[index]
        "type": "string", "enum": ["day", "week", "month", "year"], "nullable": True,
        "description": "Only pages from the last day, week, month or year",
    }
    assert "$ref" not in json.dumps(gemini) and "anyOf" not in json.dumps(gemini)
    strict = _parameters(TOOL.schema("openai-strict"), "openai-strict")
    assert strict["additionalProperties"] is False
    safesearch = strict["properties"]["safesearch"]["anyOf"]  # type: ignore[index]
    assert {"enum": ["off", "moderate", "strict"], "type": "string"} in safesearch and {"type": "null"} in safesearch
    assert {"type": "null"} in strict["properties"]["include_domains"]["anyOf"]  # type: ignore[index]
