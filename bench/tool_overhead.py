"""What `Tool.execute()` costs on top of calling the body directly.

Runs a trivial tool both ways in the same process and prints the median per-call
times over several rounds, and the overhead (target: under 50 µs).

    .venv/bin/python bench/tool_overhead.py
"""

from __future__ import annotations

import asyncio
import statistics
import time

from pydantic import BaseModel

from weblens import ToolContext, define_tool

CALLS = 20_000
ROUNDS = 7
TARGET_US = 50.0


class Params(BaseModel):
    query: str
    count: int = 5


async def body(params: Params) -> dict[str, object]:
    return {"query": params.query, "count": params.count}


async def per_call_us(fn: object, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await fn()  # type: ignore[operator]
    return (time.perf_counter() - started) / calls * 1e6


async def main() -> None:
    tool = define_tool(name="trivial", description="Return the arguments.", input_schema=Params, execute=body)
    args = {"query": "weblens", "count": 3}
    ctx = ToolContext()
    params = Params(query="weblens", count=3)

    async def bare() -> object:
        return await body(params)

    async def bare_with_validation() -> object:
        return await body(Params.model_validate(args))

    async def through_execute() -> object:
        return await tool.execute(args, ctx)

    for fn in (bare, bare_with_validation, through_execute):  # warm up
        await per_call_us(fn, 2_000)
    rows: dict[str, list[float]] = {"bare": [], "bare+validate": [], "execute": []}
    for _ in range(ROUNDS):
        rows["bare"].append(await per_call_us(bare, CALLS))
        rows["bare+validate"].append(await per_call_us(bare_with_validation, CALLS))
        rows["execute"].append(await per_call_us(through_execute, CALLS))
    medians = {name: statistics.median(values) for name, values in rows.items()}
    overhead = medians["execute"] - medians["bare"]
    print(f"tool_overhead: {ROUNDS} rounds x {CALLS} calls, medians per call")
    for name, value in medians.items():
        print(f"  {name:<14} {value:8.2f} µs")
    print(f"  overhead of execute() over the bare body: {overhead:.2f} µs (target < {TARGET_US:.0f} µs) "
          f"-> {'OK' if overhead < TARGET_US else 'MISSED'}")
    print(f"  of which argument validation: {medians['bare+validate'] - medians['bare']:.2f} µs")


if __name__ == "__main__":
    asyncio.run(main())
