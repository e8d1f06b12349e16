"""100 concurrent fetches of small pages against one, through weblens' guarded client.

The upstream is `bench/rawfake.py` (a raw asyncio Protocol server in its own process,
50 ms latency, small text/plain pages), so neither it nor extraction is the bottleneck:
this measures the download path (SSRF guard, pooled connections, capped read). Each
round interleaves, and the medians are printed next to each other:

- raw sockets: one GET per fresh socket, no HTTP library (the floor)
- a `Fetcher` with its own guarded client (what `web_fetch` uses through the runtime)
- the same `Fetcher` code on httpx's own connection pool (httpcore, what weblens used before)

Targets: 100 concurrent / 1 ≤ 3×, client CPU ≤ 1 ms per fetch.

    .venv/bin/python bench/fetch_concurrency.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from itertools import count

import httpx

from rawfake import SMALL_PAGE, raw_request, spawn
from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import Fetcher
from weblens.net import DEFAULT_LIMITS

LATENCY_S = 0.05
ROUNDS = 5
CONCURRENT = 100
_pages = count()
Call = Callable[[], Awaitable[object]]


async def burst(call: Call) -> tuple[float, float]:
    """(100 concurrent calls / one call, client CPU ms per call in the burst)."""
    await call()
    started = time.perf_counter()
    await call()
    one = time.perf_counter() - started
    cpu, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(call() for _ in range(CONCURRENT)))
    return (time.perf_counter() - started) / one, (time.process_time() - cpu) * 1e3 / CONCURRENT


def fetch_call(base_url: str, fetcher: Fetcher) -> Call:
    async def call() -> object:
        page = await fetcher.fetch(f"{base_url}/page/{next(_pages)}")
        assert page.content.startswith(SMALL_PAGE.decode()[:20]), page.content[:100]
        return page

    return call


async def main(base_url: str, rounds: int) -> None:
    port = int(base_url.rsplit(":", 1)[1])
    settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{port}"]}, cache={"enabled": False})
    cache = Cache(None, enabled=False)
    async with (
        httpx.AsyncClient(limits=DEFAULT_LIMITS) as httpcore_pool,
        Fetcher(settings, cache=cache) as guarded,
        Fetcher(settings, cache=cache, client=httpcore_pool) as before,
    ):
        variants: dict[str, Call] = {
            "raw sockets (the floor)": lambda: raw_request(port),
            "weblens fetch, guarded client": fetch_call(base_url, guarded),
            "weblens fetch on httpx's pool (before)": fetch_call(base_url, before),
        }
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(rounds):
            for name, call in variants.items():
                figures[name].append(await burst(call))
    print(f"{CONCURRENT} concurrent fetches of a small page / 1 (upstream latency {LATENCY_S * 1e3:.0f} ms), "
          f"medians of {rounds} rounds, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")  # fmt: skip
    print(f"  {'':<42} ratio   client CPU ms/fetch")
    for name, values in figures.items():
        ratio = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(f"  {name:<42} {ratio:5.2f}x   {cpu:6.2f}")
    print("  (targets for weblens.fetch: <= 3x, <= 1 ms CPU per fetch)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    options = parser.parse_args()
    with spawn(LATENCY_S) as (url, _pid):
        asyncio.run(main(url, options.rounds))
