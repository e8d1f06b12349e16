"""Three `weblens serve` replicas sharing one Redis, against a fake Brave that enforces its rate.

Brave's limit is per account, so a fleet must act as one client. The replicas are real
`weblens serve` processes on loopback ports; the searches go round-robin through their
tools panel API (`POST /api/tools/web_search`), all at once. Prints:

- with Redis: upstream 429s (target 0), upstream calls vs distinct queries (target equal),
  wall time and its ratio to the ideal (distinct queries / rate)
- the same run with no Redis (each replica its own bucket and cache), for contrast
- the overhead of the Redis backends against the local ones for a cached search (ms, median)

The issue's full size is 300 searches over 100 distinct queries at 1 request/s (100 s
ideal). The default is scaled down to 300 searches over 30 distinct queries at 2 requests/s
(15 s ideal), because a search waiting in the queue longer than the tool's 30 s timeout
fails: `--distinct 100 --rate 1` runs the full size and shows that limit.

    .venv/bin/python bench/fleet.py [--searches 300] [--distinct 30] [--rate 2] [--replicas 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.search.models import SearchRequest
from weblens.testing.providers import FakeBrave
from weblens.testing.redis import INSTALL_HINT, RedisServer, redis_server_path
from weblens.testing.replicas import Replicas


@contextlib.contextmanager
def replicas(count: int, brave: FakeBrave, rate: float, redis_url: str | None) -> Iterator[list[str]]:
    """`count` `weblens serve` processes; yields their base URLs once each answers."""
    env = {
        "BRAVE_API_KEY": brave.api_key,
        "WEBLENS_BRAVE_BASE_URL": brave.url(),
        "WEBLENS_BRAVE_REQUESTS_PER_SECOND": str(rate),
        "WEBLENS_SEARCH_PROVIDER": "brave",
        "WEBLENS_SEARCH_MAX_RETRY_AFTER_S": "10",
        "WEBLENS_REDIS_URL": redis_url,
    }
    with tempfile.TemporaryDirectory(prefix="weblens-fleet-") as tmp:
        fleet = Replicas(count, Path(tmp), env, ready_path="/api/tools")
        with fleet as started:
            yield [replica.url for replica in started]
            warnings = [line for line in fleet.logs().splitlines() if "WARNING" in line]
            if warnings:
                print("  replicas warned:", *sorted(set(warnings))[:5], sep="\n    ")


async def burst(urls: list[str], searches: int, distinct: int) -> tuple[float, dict[str, int]]:
    """All searches at once, round-robin over the replicas: (wall seconds, outcomes by code)."""
    outcomes: dict[str, int] = {}
    limits = httpx.Limits(max_connections=searches + 10, max_keepalive_connections=searches + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:

        async def one(i: int) -> None:
            body = {"arguments": {"query": f"fleet query {i % distinct}", "max_results": 3}}
            try:
                response = await http.post(f"{urls[i % len(urls)]}/api/tools/web_search", json=body)
                data = response.json()
                code = "ok" if data.get("ok") else (data.get("error") or {}).get("code", f"http {response.status_code}")
            except httpx.HTTPError as exc:
                code = type(exc).__name__
            outcomes[code] = outcomes.get(code, 0) + 1

        began = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(searches)))
        return time.perf_counter() - began, outcomes


def run(label: str, args: argparse.Namespace, redis_url: str | None) -> None:
    with (
        FakeBrave(requests_per_second=args.rate) as brave,
        replicas(args.replicas, brave, args.rate, redis_url) as urls,
    ):
        brave.reset()
        wall, outcomes = asyncio.run(burst(urls, args.searches, args.distinct))
        ideal = args.distinct / args.rate
        print(f"{label}: {args.searches} searches, {args.distinct} distinct, {args.replicas} replicas, "
              f"fake Brave at {args.rate:g}/s")
        print(f"  upstream 429s:            {brave.rejected}" + ("   (target 0)" if redis_url else ""))
        print(f"  upstream calls:           {brave.count()} for {args.distinct} distinct queries"
              + ("   (target equal)" if redis_url else ""))
        print(f"  wall time:                {wall:.1f} s; ideal {ideal:.1f} s; ratio {wall / ideal:.2f}")
        print(f"  outcomes:                 {dict(sorted(outcomes.items()))}")


async def cached_overhead(redis_url: str, rounds: int) -> None:
    """Median ms of a cached search through the router: local backends vs Redis. The fake is
    stopped before timing: its server thread would take the GIL at every socket call."""
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, url in (("local (SQLite)", None), ("Redis", redis_url)):
            async with FakeBrave() as brave:
                settings = Settings(
                    brave={"base_url": brave.url(), "api_key": brave.api_key},
                    search={"provider": ["brave"]},
                    redis_url=url,
                    data_dir=Path(tmp) / label,
                )
                runtime = Runtime(settings)
                request = SearchRequest(query="cached overhead")
                await runtime.router.search(request)
            async with runtime:
                times = []
                for _ in range(rounds):
                    began = time.perf_counter()
                    response = await runtime.router.search(request)
                    times.append((time.perf_counter() - began) * 1000)
                    assert response.cached
                figures[label] = statistics.median(times)
    local, shared = figures["local (SQLite)"], figures["Redis"]
    print(f"cached search, median of {rounds}: local {local:.3f} ms, Redis {shared:.3f} ms, "
          f"overhead {shared - local:+.3f} ms ({shared / local:.1f}x)")


def chat_part() -> None:
    """The chat-stream part (60 streams, one replica killed with SIGKILL, sessions in
    PostgreSQL) is bench/fleet_chat.py, run in its own process."""
    subprocess.run([sys.executable, str(Path(__file__).with_name("fleet_chat.py"))], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--distinct", type=int, default=30)
    parser.add_argument("--rate", type=float, default=2.0, help="the fake's and weblens' requests per second")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=300, help="cached searches timed per backend")
    args = parser.parse_args()
    if redis_server_path() is None:
        sys.exit(INSTALL_HINT)
    with RedisServer() as redis:
        # first, while no fake server thread of the fleet runs in this process to take the GIL
        asyncio.run(cached_overhead(redis.url, args.rounds))
        redis.flush()
        run("with Redis", args, redis.url)
        run("without Redis (each replica its own limit and cache)", args, None)
        chat_part()


if __name__ == "__main__":
    main()
