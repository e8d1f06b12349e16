"""What `web_search` adds on top of the upstream, against a fake DuckDuckGo with 50 ms latency.

The fake is `bench/rawfake.py`: a raw asyncio Protocol server in its own process, so it
cannot be the bottleneck (a raw-socket client does 100 concurrent requests in ~1.2× one).
Prints medians of several rounds, each figure next to its baseline from the same run:

- added latency of `web_search` over a direct call with weblens' own client (target < 2 ms)
- 100 concurrent different searches relative to one search (target ≤ 3×) and the client
  CPU per search in that burst (target ≤ 1 ms), for:
  raw sockets (the floor), weblens' client alone, `web_search`, and `web_search` on
  httpx's own connection pool (httpcore, what weblens used before: the baseline)
- the same burst through `weblens.search(q)`: one-off calls, which share one router per
  event loop, beside `weblens.search(q, router=runtime.router)` and beside one-off calls
  that each build and close their own router (`settings=`: what a one-off call did before)
- upstream calls for 100 concurrent identical searches (target 1)
- cache-hit latency (target < 1 ms)

DuckDuckGo's client-side rate limit (1 request/s by default) is raised for the run:
the benchmark measures weblens, not the queue.

    .venv/bin/python bench/search.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from itertools import count

import httpx

import weblens
from rawfake import raw_request, spawn
from weblens.cache import Cache
from weblens.config import Settings
from weblens.net import DEFAULT_LIMITS, create_client
from weblens.runtime import Runtime
from weblens.tools.search import SearchTool

LATENCY_S = 0.05
ROUNDS = 5
SEQUENTIAL_CALLS = 40
CONCURRENT = 100
CACHE_HITS = 300
_queries = count()
Call = Callable[[], Awaitable[object]]


def unique(prefix: str) -> str:
    return f"{prefix} {next(_queries)}"


_runtimes = contextlib.AsyncExitStack()
"""Every runtime the benchmark builds, closed at the end (each owns its pooled client)."""


def runtime(base_url: str, *, cache: bool, client: httpx.AsyncClient | None = None) -> Runtime:
    built = Runtime(settings_for(base_url, cache=cache), cache=Cache(None, enabled=cache), client=client)
    _runtimes.push_async_callback(built.aclose)
    return built


def settings_for(base_url: str, *, cache: bool) -> Settings:
    return Settings(
        duckduckgo={"base_url": base_url, "requests_per_second": 100_000},
        search={"provider": ["duckduckgo"]},
        cache={"enabled": cache},
    )


def one_off_call(prefix: str, **options: object) -> Call:
    """`weblens.search(q, **options)`: with no options, the loop's shared router."""

    async def call() -> object:
        return await weblens.search(unique(prefix), **options)  # type: ignore[arg-type]

    return call


def search_call(tool: SearchTool, prefix: str) -> Call:
    async def call() -> object:
        result = await tool.execute({"query": unique(prefix)})
        assert result.ok, result.text
        return result

    return call


async def burst(call: Call) -> tuple[float, float]:
    """(100 concurrent calls / one call, client CPU ms per call in the burst)."""
    await call()  # warm: connections open, caches filled
    started = time.perf_counter()
    await call()
    one = time.perf_counter() - started
    cpu, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(call() for _ in range(CONCURRENT)))
    many = time.perf_counter() - started
    return many / one, (time.process_time() - cpu) * 1e3 / CONCURRENT


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


async def main(base_url: str, rounds: int) -> None:
    port = int(base_url.rsplit(":", 1)[1])
    added, calls, hits = [], [], []
    bursts: dict[str, list[tuple[float, float]]] = {}
    async with _runtimes, create_client() as client, httpx.AsyncClient(limits=DEFAULT_LIMITS) as httpcore_pool:

        async def direct() -> object:
            return (await client.post(f"{base_url}/html/", data={"q": unique("direct")})).raise_for_status()

        variants: dict[str, Call] = {
            "raw sockets (the floor)": lambda: raw_request(port),
            "weblens client alone": direct,
            "web_search": search_call(SearchTool(runtime(base_url, cache=False)), "tool"),
            "web_search on httpx's pool (before)": search_call(
                SearchTool(runtime(base_url, cache=False, client=httpcore_pool)), "old"
            ),
            "weblens.search(q, router=runtime.router)": one_off_call(
                "router", router=runtime(base_url, cache=False).router
            ),
            "weblens.search(q): one-off, shared per loop": one_off_call("oneoff"),
            "weblens.search(q, settings=s): own router (before)": one_off_call(
                "percall", settings=settings_for(base_url, cache=False)
            ),
        }
        for _ in range(rounds):  # the variants interleave, so load on the machine hits them alike
            for name, call in variants.items():
                bursts.setdefault(name, []).append(await burst(call))
            added.append(await added_latency_ms(base_url, client))
            calls.append(await identical_upstream_calls(base_url, client))
            hits.append(await cache_hit_ms(base_url))
    print(f"web_search against a raw fake DuckDuckGo (latency {LATENCY_S * 1e3:.0f} ms), medians of {rounds} rounds, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")  # fmt: skip
    print(f"  added latency per search over weblens' client   {statistics.median(added):7.2f} ms   (target < 2 ms)")
    print(f"  {CONCURRENT} concurrent different searches / 1:                      ratio   client CPU ms/call")
    for name, figures in bursts.items():
        ratio = statistics.median(f[0] for f in figures)
        cpu = statistics.median(f[1] for f in figures)
        print(f"    {name:<52} {ratio:6.2f}x   {cpu:6.2f}")
    print("    (targets for web_search: <= 3x, <= 1 ms CPU per search)")
    print(f"  upstream calls, {CONCURRENT} identical searches     {statistics.median(calls):7.0f}      (target 1)")
    print(f"  cache hit                                       {statistics.median(hits):7.3f} ms   (target < 1 ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    options = parser.parse_args()
    with spawn(LATENCY_S) as (url, _pid), tempfile.TemporaryDirectory() as home:
        # what one-off calls read: the environment (the benchmark's own settings otherwise)
        os.environ.update(
            WEBLENS_DUCKDUCKGO_BASE_URL=url, WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND="100000",
            WEBLENS_SEARCH_PROVIDER="duckduckgo", WEBLENS_CACHE_ENABLED="false", XDG_DATA_HOME=home,
        )
        asyncio.run(main(url, options.rounds))
