"""What an MCP client pays, once per session, to compile each tool's outputSchema, per spelling.

The official Python client checks every `structuredContent` against the tool's outputSchema; on
the first call of a session it compiles it (`validator_for(schema).check_schema(schema)`, then a
validator: `ClientSession._output_schema_validator`), and jsonschema's 2020-12 metaschema costs
about 0.2 ms of CPU per subschema. Four spellings of the same output models, timed interleaved in
this process (medians of ROUNDS rounds):

- pydantic's own schema (`$ref`s, `anyOf [X, null]`)
- refs inlined, nulls still `anyOf [X, null]` (portable, not compact)
- the previous compact form: refs inlined, `type: [X, "null"]` (compact, but the MCP Inspector
  warns once per type list: single-type dialects such as Gemini's refuse or drop them)
- what weblens declares now (`compact_schema`): refs inlined, an optional property whose default
  is null written X (its null is sent as an absent property), `anyOf [X, null]` for the rest

It also times `without_absent`, what the gateway now does to each result (a 10-result web_search,
a 7-day forecast), against `copy.deepcopy` of the same data as a yardstick.

    .venv/bin/python bench/mcp_schemas.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema.validators import validator_for
from referencing import Registry

from weblens.config import Settings
from weblens.mcp.server import declare
from weblens.runtime import Runtime
from weblens.schema import _plain, _walk, inline_refs, without_absent
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.providers import FakeBrave
from weblens.tools import default_toolset

TOOLS = ("web_search", "web_fetch", "get_weather")
COMPILES_PER_ROUND = 20
Schema = dict[str, Any]


def type_lists(schema: Schema) -> Schema:
    """The previous compact spelling, rebuilt here as the baseline: `anyOf [X, null]` as `type: [X, "null"]`."""
    out = inline_refs(schema)

    def rewrite(node: Schema) -> None:
        options = node.get("anyOf")
        if not (isinstance(options, list) and len(options) == 2 and {"type": "null"} in options):
            return
        other = options[0] if options[1] == {"type": "null"} else options[1]
        if not isinstance(other.get("type"), str) or {"const", "anyOf", "$ref"} & set(other):
            return
        node.pop("anyOf")
        for key, value in other.items():
            node.setdefault(key, value)
        node["type"] = [node["type"], "null"]
        if "enum" in node:
            node["enum"] = [*node["enum"], None]

    _walk(out, rewrite)
    return out


def count(schema: Schema, test: Callable[[Schema], bool]) -> int:
    found: list[bool] = []
    _walk(schema, lambda node: found.append(test(node)))
    return sum(found)


def compile_ms(schema: Schema) -> float:
    """CPU ms of what the official client does once per session for one outputSchema."""
    started = time.process_time()
    for _ in range(COMPILES_PER_ROUND):
        cls = validator_for(schema)
        cls.check_schema(schema)
        cls(schema, registry=Registry())
    return (time.process_time() - started) / COMPILES_PER_ROUND * 1e3


def per_call_us(fn: Callable[[], Any], calls: int = 2000) -> float:
    started = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - started) / calls * 1e6


async def sample_results(data_dir: Path) -> dict[str, Any]:
    """A real web_search (10 results) and get_weather (7 days) result, from the fakes."""
    async with FakeBrave() as brave, FakeOpenMeteo() as meteo:
        settings = Settings(
            **brave.settings(), weather=meteo.weather_settings(), search={"provider": ["brave"]},
            cache={"enabled": False}, data_dir=data_dir,
        )  # fmt: skip
        async with Runtime.from_settings(settings) as runtime:
            tools = default_toolset(runtime)
            search = await tools.call("web_search", {"query": "lantern festival", "max_results": 10})
            weather = await tools.call("get_weather", {"location": "Beijing", "days": 7})
    assert search.ok and weather.ok, (search.error, weather.error)
    return {"web_search": search.data, "get_weather": weather.data}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds

    with tempfile.TemporaryDirectory() as data_dir:
        tools = default_toolset(Runtime.from_settings(Settings(data_dir=Path(data_dir))))
        samples = asyncio.run(sample_results(Path(data_dir)))
    spellings: dict[str, dict[str, Schema]] = {}
    for name in TOOLS:
        tool = tools.get(name)
        assert tool is not None and tool.output_schema is not None
        original = _plain(tool.output_schema)
        spellings[name] = {
            "pydantic ($ref, anyOf)": original,
            "inlined, anyOf": inline_refs(original),
            "type lists (before)": type_lists(original),
            "declared now": declare(tool).output_schema or {},
        }

    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):  # interleaved: the machine's speed drifts between rounds
        for name, variants in spellings.items():
            for label, schema in variants.items():
                times.setdefault((name, label), []).append(compile_ms(schema))

    print(f"outputSchema compile, CPU ms per client session (median of {rounds} rounds of {COMPILES_PER_ROUND}):")
    print(f"  {'tool':<12} {'spelling':<24} {'subschemas':>10} {'type lists':>10} {'compile ms':>10}")
    for name, variants in spellings.items():
        for label, schema in variants.items():
            nodes = count(schema, lambda node: True)
            lists = count(schema, lambda node: isinstance(node.get("type"), list))
            ms = statistics.median(times[(name, label)])
            print(f"  {name:<12} {label:<24} {nodes:>10} {lists:>10} {ms:>10.2f}")
        before, now = (statistics.median(times[(name, label)]) for label in ("type lists (before)", "declared now"))
        portable = statistics.median(times[(name, "inlined, anyOf")])
        print(f"  {name:<12} now / before {now / before:.2f}x; now / portable without compacting {now / portable:.2f}x")

    print("\nper result, what the gateway adds (without_absent) beside a deepcopy of the same data (median µs):")
    for name, data in samples.items():
        schema = spellings[name]["declared now"]
        pruned = [per_call_us(lambda d=data, s=schema: without_absent(d, s)) for _ in range(rounds)]
        copied = [per_call_us(lambda d=data: copy.deepcopy(d)) for _ in range(rounds)]
        pruned_us, copied_us = statistics.median(pruned), statistics.median(copied)
        print(f"  {name:<12} without_absent {pruned_us:7.1f} µs   deepcopy {copied_us:7.1f} µs")


if __name__ == "__main__":
    main()
