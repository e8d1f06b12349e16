"""One params model, every dialect: golden files keep each export stable and reviewable.

Regenerate after an intended change with `UPDATE_GOLDEN=1 pytest tests/test_schema.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from weblens import define_tool
from weblens.schema import (
    DIALECTS,
    compact_schema,
    gemini_schema,
    inline_refs,
    is_recursive,
    strict_schema,
    without_absent,
)

GOLDEN = Path(__file__).parent / "golden"


class Filter(BaseModel):
    site: str = Field(description="only results from this site")
    exclude: bool = False


class SearchParams(BaseModel):
    query: str = Field(min_length=1, description="what to search for")
    max_results: int = Field(default=5, ge=1, le=10, description="how many results")
    freshness: Literal["day", "week", "month"] | None = Field(default=None, description="recency")
    filters: list[Filter] = Field(default_factory=list, description="site filters")


class SearchOutput(BaseModel):
    query: str
    urls: list[str]


async def _search(params: SearchParams) -> SearchOutput:
    return SearchOutput(query=params.query, urls=[])


TOOL = define_tool(
    name="sample_search",
    description="Search the web.",
    input_schema=SearchParams,
    execute=_search,
    output_schema=SearchOutput,
)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_export_matches_golden_file(dialect: str) -> None:
    exported = TOOL.schema(dialect)
    path = GOLDEN / f"{dialect}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(json.dumps(exported, indent=2, ensure_ascii=False) + "\n")
    assert exported == json.loads(path.read_text())


def _keys(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            found |= _keys(value)
    elif isinstance(node, list):
        for item in node:
            found |= _keys(item)
    return found


def test_gemini_schema_has_no_refs_additional_properties_or_titles() -> None:
    keys = _keys(gemini_schema(TOOL.json_schema))
    assert not keys & {"$ref", "$defs", "additionalProperties", "title", "default"}
    params = gemini_schema(TOOL.json_schema)
    assert params["properties"]["freshness"] == {
        "type": "string",
        "enum": ["day", "week", "month"],
        "nullable": True,
        "description": "recency",
    }
    assert params["properties"]["filters"]["items"]["properties"]["site"]["type"] == "string"


def test_openai_strict_requires_every_property_and_closes_objects() -> None:
    params = strict_schema(TOOL.json_schema)
    assert params["required"] == ["query", "max_results", "freshness", "filters"]
    assert params["additionalProperties"] is False
    assert params["properties"]["max_results"]["type"] == ["integer", "null"]
    assert "(default: 5)" in params["properties"]["max_results"]["description"]
    filter_def = params["$defs"]["Filter"]
    assert filter_def["required"] == ["site", "exclude"] and filter_def["additionalProperties"] is False


def test_a_property_named_like_a_keyword_survives() -> None:
    class Odd(BaseModel):
        title: str
        default: int = 0

    tool = define_tool(name="odd", description="d", input_schema=Odd, execute=_search)
    for dialect in DIALECTS:
        exported = json.dumps(tool.schema(dialect))
        assert '"title": {' in exported and '"default": {' in exported, dialect


def test_recursive_models_do_not_loop() -> None:
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    inlined = inline_refs(Node.model_json_schema())
    assert "$defs" not in json.dumps(inlined)


def test_mcp_export_has_input_and_output_schema() -> None:
    exported = TOOL.schema("mcp")
    assert exported["inputSchema"]["type"] == "object"
    assert exported["outputSchema"]["properties"]["urls"]["type"] == "array"


class Rank(BaseModel):
    provider: str
    rank: int


class Hit(BaseModel):
    url: str
    kind: Literal["page", "pdf"] | None = None
    version: Literal["v1"] | None = None
    found_by: list[Rank] | None = None
    score: float | None = Field(default=None, description="fusion score")
    either: int | str | None = None


class Hits(BaseModel):
    hits: list[Hit]
    best: Hit | None = None


HIT = {"url": "https://example.com/"}
_INSTANCES: list[tuple[dict[str, Any], bool]] = [
    ({"hits": []}, True),
    ({"hits": [HIT], "best": None}, True),
    ({"hits": [{**HIT, "kind": "pdf", "version": "v1", "found_by": [{"provider": "brave", "rank": 1}]}]}, True),
    ({"hits": [{**HIT, "kind": None, "version": None, "found_by": None, "score": None, "either": None}]}, True),
    ({"hits": [{**HIT, "score": 0.5, "either": "x"}], "best": HIT}, True),
    ({"hits": [{**HIT, "kind": "video"}]}, False),
    ({"hits": [{**HIT, "version": "v2"}]}, False),
    ({"hits": [{**HIT, "found_by": [{"provider": "brave"}]}]}, False),
    ({"hits": [{**HIT, "found_by": "brave"}]}, False),
    ({"hits": [{**HIT, "score": "high"}]}, False),
    ({"hits": [{**HIT, "either": 1.5}]}, False),
    ({"hits": [{"kind": "pdf"}]}, False),
    ({"hits": [HIT], "best": {"kind": "pdf"}}, False),
    ({"hits": None}, False),
]


def _type_lists(node: Any) -> list[Any]:
    """Every `type` written as a list, anywhere in `node`."""
    if isinstance(node, list):
        return [found for item in node for found in _type_lists(item)]
    if not isinstance(node, dict):
        return []
    own = [node["type"]] if isinstance(node.get("type"), list) else []
    return own + [found for value in node.values() for found in _type_lists(value)]


def test_compact_schema_accepts_exactly_what_the_original_accepts() -> None:
    from jsonschema import Draft202012Validator

    original = Hits.model_json_schema()
    compact = compact_schema(original)
    assert not _keys(compact) & {"$ref", "$defs"}
    assert _type_lists(compact) == []  # portable: one type per schema, as single-type dialects want
    assert compact["properties"]["hits"]["items"]["properties"]["score"] == {
        "description": "fusion score", "title": "Score", "type": "number",
    }  # fmt: skip
    assert compact["properties"]["hits"]["items"]["properties"]["kind"]["enum"] == ["page", "pdf"]
    Draft202012Validator.check_schema(compact)
    for instance, valid in _INSTANCES:
        assert Draft202012Validator(original).is_valid(instance) is valid, instance
        sent = without_absent(instance, compact)
        assert Draft202012Validator(compact).is_valid(sent) is valid, sent
    assert without_absent({"hits": [{**HIT, "score": None, "kind": None}], "best": None}, compact) == {"hits": [HIT]}


def test_a_required_null_is_sent_and_stays_any_of() -> None:
    from jsonschema import Draft202012Validator

    class Page(BaseModel):
        next_start_index: int | None
        byline: str | None = None
        words: int | None = 0  # null is not the default here: absent would mean 0

    compact = compact_schema(Page.model_json_schema())
    props = compact["properties"]
    assert props["next_start_index"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    assert props["words"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    assert props["byline"]["type"] == "string"
    page = {"next_start_index": None, "byline": None, "words": None}
    assert without_absent(page, compact) == {"next_start_index": None, "words": None}
    assert Draft202012Validator(compact).is_valid(without_absent(page, compact))
    assert page["byline"] is None  # a copy: the data itself keeps its nulls


def test_compact_schema_keeps_the_refs_of_a_recursive_model() -> None:
    from jsonschema import Draft202012Validator

    class Node(BaseModel):
        name: str
        children: list[Node] | None = None

    schema = Node.model_json_schema()
    assert is_recursive(schema) and not is_recursive(Hits.model_json_schema())
    compact = compact_schema(schema)
    assert compact["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}

    deep = {"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": None}]}]}
    assert without_absent(deep, compact) == {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    assert Draft202012Validator(compact).is_valid(without_absent(deep, compact))
    assert not Draft202012Validator(compact).is_valid({"name": "a", "children": [{"children": []}]})


def test_unknown_dialect_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="choose one of"):
        TOOL.schema("cobol")


async def test_nulls_from_strict_mode_mean_defaults() -> None:
    # strict mode forces the model to send every field; null stands for "not given"
    params = TOOL.validate({"query": "cats", "max_results": None, "freshness": None, "filters": None})
    assert (params.max_results, params.freshness, params.filters) == (5, None, [])
    result = await TOOL.execute({"query": None})
    assert result.error is not None and result.error.code == "validation_error"
