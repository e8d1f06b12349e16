"""The long fuzz run: generated hostile input at every surface, counted, never stopping at the first failure.

Surfaces: tool arguments through `execute()` (every built-in tool), provider answers served by
the provider fakes to the router (every provider), and pages given to extraction. Prints, per
surface, how many cases ran and how many crashed (an exception escaped or a code outside the
closed set), hung (past the bound) or were an `internal_error` — target 0 / 0 / 0 — with one
example of each bad outcome to reproduce it.

    .venv/bin/python bench/fuzz.py                 # 10 000 cases per surface
    .venv/bin/python bench/fuzz.py --cases 1000 --surface pages
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.search.models import make_request
from weblens.testing.fuzz import (
    PAGE_BOUND_S,
    TOOL_BOUND_S,
    Fakes,
    Tally,
    arguments,
    field_names,
    fuzz_settings,
    page_outcome,
    pages,
    provider_replies,
    required_names,
    search_outcome,
    tool_outcome,
)
from weblens.tools import default_toolset

SURFACES = ("tools", "providers", "pages")


def run(surface: str, cases: int, fakes: Fakes, runner: asyncio.Runner, runtime: Runtime, tally: Tally) -> None:
    if surface == "tools":
        tools = list(default_toolset(runtime))
        strategy = st.sampled_from(tools).flatmap(
            lambda tool: st.tuples(st.just(tool), arguments(field_names(tool), required_names(tool)))
        )

        @fuzz_settings(cases, derandomize=False)
        @given(case=strategy)
        def tool_case(case: tuple[Any, Any]) -> None:
            tool, args = case
            tally.add(surface, runner.run(tool_outcome(tool, args, bound_s=TOOL_BOUND_S)), (tool.name, args))

        tool_case()
    elif surface == "providers":
        request = make_request(query="rain barrels", max_results=5)
        strategy = st.sampled_from(sorted(fakes.providers)).flatmap(
            lambda name: st.tuples(st.just(name), provider_replies(name))
        )

        @fuzz_settings(cases, derandomize=False)
        @given(case=strategy)
        def provider_case(case: tuple[str, Any]) -> None:
            name, reply = case
            outcome = runner.run(
                search_outcome(runtime.router, fakes.providers[name], reply, request, bound_s=TOOL_BOUND_S)
            )
            tally.add(surface, outcome, (name, reply))

        provider_case()
    else:

        @fuzz_settings(cases, derandomize=False)
        @given(page=pages())
        def page_case(page: tuple[bytes, str]) -> None:
            tally.add(surface, page_outcome(page[0], page[1], bound_s=PAGE_BOUND_S), page)

        page_case()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases per surface")
    parser.add_argument("--surface", choices=SURFACES, action="append", help="only these surfaces")
    options = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # a provider failing on garbage is logged as a warning
    tally = Tally()
    print(f"{'surface':<10} {'cases':>7} {'crashes':>8} {'hangs':>6} {'internal':>9} {'seconds':>8}  outcomes")
    with Fakes() as fakes, asyncio.Runner() as runner, tempfile.TemporaryDirectory() as data_dir:
        runtime = Runtime(Settings(**fakes.settings_values(data_dir)), resolver=fakes.resolve)
        for surface in options.surface or SURFACES:
            started = time.perf_counter()
            run(surface, options.cases, fakes, runner, runtime, tally)
            seconds = time.perf_counter() - started
            counts = tally.counts.get(surface, {})
            crashes, hangs, internal = tally.bad(surface)
            common = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:6])
            ran = sum(counts.values())
            print(f"{surface:<10} {ran:>7} {crashes:>8} {hangs:>6} {internal:>9} {seconds:>8.1f}  {common}", flush=True)
        runner.run(runtime.aclose())
    for surface, examples in tally.examples.items():
        for outcome, example in examples.items():
            print(f"{surface} {outcome} example: {example}")


if __name__ == "__main__":
    main()
