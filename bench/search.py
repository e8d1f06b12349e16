"""What `web_search` adds on top of the upstream, against a fake DuckDuckGo with 50 ms latency.

The fake server runs in a separate process, so its event loop does not compete with
the one being measured. Prints medians of several rounds:

- added latency of `web_search` over a direct httpx call to the same endpoint (target < 2 ms)
- 100 concurrent different searches relative to one search (target < 3x)
- upstream calls for 100 concurrent identical searches (target 1)
- cache-hit latency (target < 1 ms)

DuckDuckGo's client-side rate limit (1 request/s by default) is raised for the run:
the benchmark measures weblens, not the queue.

    .venv/bin/python bench/search.py
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from itertools import count

import httpx

from weblens.cache import Cache
from weblens.config import Settings
from weblens.net import create_client
from weblens.runtime import Runtime
from weblens.tools.search import SearchTool

LATENCY_S = 0.05
ROUNDS = 5
SEQUENTIAL_CALLS = 40
CONCURRENT = 100
CACHE_HITS = 300
_queries = count()


def serve() -> None:
    """Child process: a fake DuckDuckGo, plus /__count to read how many searches it answered."""
    from weblens.testing import Reply
    from weblens.testing.providers import FakeDuckDuckGo

    fake = FakeDuckDuckGo(latency_s=LATENCY_S)
    fake.route("GET", "/__count", lambda request: Reply(body={"count": fake.count("/html/")}))
    fake.start()
    print(fake.url(), flush=True)
    sys.stdin.read()  # until the parent closes our stdin


def unique(prefix: str) -> str:
    return f"{prefix} {next(_queries)}"


def runtime(base_url: str, *, cache: bool) -> Runtime:
    settings = Settings(
        duckduckgo={"base_url": base_url, "requests_per_second": 100_000},
        search={"provider": ["duckduckgo"]},
        cache={"enabled": cache},
    )
    return Runtime(settings=settings, cache=Cache(None, enabled=cache))


async def added_latency_ms(base_url: str, client: httpx.AsyncClient) -> float:
    """Median of paired differences (tool call minus the direct call just before it)."""
    tool = SearchTool(runtime(base_url, cache=False))
    await tool.execute({"query": "warm up"})
    direct, through = [], []
    for _ in range(SEQUENTIAL_CALLS):
        started = time.perf_counter()
        reply = await client.post(f"{base_url}/html/", data={"q": unique("direct")})
        reply.raise_for_status()
        direct.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = await tool.execute({"query": unique("tool")})
        through.append(time.perf_counter() - started)
        assert result.ok, result.text
    return statistics.median(t - d for d, t in zip(direct, through, strict=True)) * 1e3


async def concurrency_ratio(base_url: str) -> float:
    tool = SearchTool(runtime(base_url, cache=False))
    await tool.execute({"query": "warm up"})
    started = time.perf_counter()
    assert (await tool.execute({"query": unique("one")})).ok
    one = time.perf_counter() - started
    started = time.perf_counter()
    results = await asyncio.gather(*(tool.execute({"query": unique("many")}) for _ in range(CONCURRENT)))
    many = time.perf_counter() - started
    assert all(r.ok for r in results), next(r.text for r in results if not r.ok)
    return many / one


async def direct_concurrency_ratio(base_url: str, client: httpx.AsyncClient) -> float:
    """The floor: the same 100 concurrent requests made with httpx alone."""
    started = time.perf_counter()
    (await client.post(f"{base_url}/html/", data={"q": unique("one")})).raise_for_status()
    one = time.perf_counter() - started
    started = time.perf_counter()
    await asyncio.gather(*(client.post(f"{base_url}/html/", data={"q": unique("many")}) for _ in range(CONCURRENT)))
    return (time.perf_counter() - started) / one


async def identical_upstream_calls(base_url: str, client: httpx.AsyncClient) -> int:
    tool = SearchTool(runtime(base_url, cache=True))
    before = (await client.get(f"{base_url}/__count")).json()["count"]
    query = unique("same")
    results = await asyncio.gather(*(tool.execute({"query": query}) for _ in range(CONCURRENT)))
    assert all(r.ok for r in results)
    after = (await client.get(f"{base_url}/__count")).json()["count"]
    return int(after - before)


async def cache_hit_ms(base_url: str) -> float:
    tool = SearchTool(runtime(base_url, cache=True))
    query = unique("cached")
    assert (await tool.execute({"query": query})).ok
    times = []
    for _ in range(CACHE_HITS):
        started = time.perf_counter()
        result = await tool.execute({"query": query})
        times.append(time.perf_counter() - started)
        assert result.ok
    return statistics.median(times) * 1e3


async def main(base_url: str) -> None:
    added, ratios, floors, calls, hits = [], [], [], [], []
    async with create_client() as client:
        for _ in range(ROUNDS):
            added.append(await added_latency_ms(base_url, client))
            ratios.append(await concurrency_ratio(base_url))
            floors.append(await direct_concurrency_ratio(base_url, client))
            calls.append(await identical_upstream_calls(base_url, client))
            hits.append(await cache_hit_ms(base_url))
    print(f"web_search vs direct httpx (upstream latency {LATENCY_S * 1e3:.0f} ms), medians of {ROUNDS} rounds:")
    print(f"  added latency per search       {statistics.median(added):7.2f} ms   (target < 2 ms)")
    print(f"  {CONCURRENT} concurrent / 1 search       {statistics.median(ratios):7.2f} x    (target < 3x)")
    print(f"    same with httpx alone        {statistics.median(floors):7.2f} x    (the floor on this machine)")
    print(f"  upstream calls, {CONCURRENT} identical   {statistics.median(calls):7.0f}      (target 1)")
    print(f"  cache hit                      {statistics.median(hits):7.3f} ms   (target < 1 ms)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        child = subprocess.Popen(
            [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert child.stdout is not None
            asyncio.run(main(child.stdout.readline().strip()))
        finally:
            if child.stdin is not None:
                child.stdin.close()
            child.wait(timeout=10)
