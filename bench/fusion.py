"""What asking several providers at once costs: a fused search over three providers against
one provider, each fake answering after 50 ms. The providers are asked concurrently, so
the target is a ratio near 1 (not 3). Interleaved rounds in one process; prints medians.

    .venv/bin/python bench/fusion.py
"""

from __future__ import annotations

import asyncio
import statistics
import time
from itertools import count

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.search.models import make_request
from weblens.testing.providers import FakeBrave, FakeSerper, FakeTavily

LATENCY_S = 0.05
ROUNDS = 7
CALLS = 20
_queries = count()


async def _timed(runtime: Runtime, providers: list[str]) -> float:
    started = time.perf_counter()
    for _ in range(CALLS):
        request = make_request(query=f"q{next(_queries)}", max_results=10)
        await runtime.router.search(request, providers=providers, use_cache=False)
    return (time.perf_counter() - started) / CALLS


async def main() -> None:
    async with FakeTavily(latency_s=LATENCY_S) as tavily, FakeBrave(latency_s=LATENCY_S) as brave, \
            FakeSerper(latency_s=LATENCY_S) as serper:  # fmt: skip
        values = {**tavily.settings(), **brave.settings(), **serper.settings()}
        values["brave"]["requests_per_second"] = 1000
        async with Runtime(Settings(**values, cache={"enabled": False}), cache=Cache(None)) as runtime:
            await _timed(runtime, ["tavily", "brave", "serper"])  # warm up connections and imports
            singles, fused, ratios = [], [], []
            for _ in range(ROUNDS):
                one = await _timed(runtime, ["brave"])
                three = await _timed(runtime, ["tavily", "brave", "serper"])
                singles.append(one)
                fused.append(three)
                ratios.append(three / one)
    print(f"one provider:          median {statistics.median(singles) * 1000:.1f} ms per search")
    print(f"three providers fused: median {statistics.median(fused) * 1000:.1f} ms per search")
    print(f"ratio fused/single:    median {statistics.median(ratios):.2f} (target near 1; sequential would be ~3)")


if __name__ == "__main__":
    asyncio.run(main())
