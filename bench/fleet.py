"""Three `weblens serve` replicas sharing one Redis, against a fake Brave that enforces its rate.

Brave's limit is per account, so a fleet must act as one client. The replicas are real
`weblens serve` processes on loopback ports; the searches go round-robin through their
tools panel API (`POST /api/tools/web_search`), all at once. Prints:

- with Redis: upstream 429s (target 0), upstream calls vs distinct queries (target equal),
  wall time and its ratio to the ideal (distinct queries / rate)
- the same run with no Redis (each replica its own bucket and cache), for contrast
- the overhead of the Redis backends against the local ones for a cached search (ms, median)
- pacing: the same fleet against a fake that enforces its limit exactly (any two requests
  closer than 1/rate: 429), spaced at the limit (margin 0) and with the margin
  (`WEBLENS_SEARCH_RATE_MARGIN_MS`), several runs each: 429s per run, the closest two
  arrivals against the limit, wall time (medians)

The issue's full size is 300 searches over 100 distinct queries at 1 request/s (100 s
ideal). The default is scaled down to 300 searches over 30 distinct queries at 2 requests/s
(15 s ideal), because a search waiting in the queue longer than the tool's 30 s timeout
fails: `--distinct 100 --rate 1` runs the full size and shows that limit.

    .venv/bin/python bench/fleet.py [--searches 300] [--distinct 30] [--rate 2] [--replicas 3]
        [--pace-runs 5] [--pace-searches 36] [--pace-rate 2] [--margins 0,50] [--only pacing]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from weblens.config import RATE_MARGIN_MS, Settings
from weblens.runtime import Runtime
from weblens.search.models import SearchRequest
from weblens.testing.providers import FakeBrave
from weblens.testing.redis import INSTALL_HINT, RedisServer, redis_server_path
from weblens.testing.replicas import Replicas


@contextlib.contextmanager
def replicas(
    count: int, brave: FakeBrave, rate: float, redis_url: str | None, margin_ms: float | None = None
) -> Iterator[list[str]]:
    """`count` `weblens serve` processes; yields their base URLs once each answers."""
    env = {
        "WEBLENS_SEARCH_RATE_MARGIN_MS": None if margin_ms is None else str(margin_ms),
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


async def burst(urls: list[str], searches: int, distinct: int, tag: str = "") -> tuple[float, dict[str, int]]:
    """All searches at once, round-robin over the replicas: (wall seconds, outcomes by code);
    `tag` makes the queries new (none answered from an earlier run's cache)."""
    outcomes: dict[str, int] = {}
    limits = httpx.Limits(max_connections=searches + 10, max_keepalive_connections=searches + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:

        async def one(i: int) -> None:
            body = {"arguments": {"query": f"fleet query {tag}{i % distinct}", "max_results": 3}}
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


def pacing(args: argparse.Namespace, redis: RedisServer) -> None:
    """429s from a provider that enforces its limit exactly: spaced at the limit, then with each margin."""
    interval_ms = 1000 / args.pace_rate
    print(f"pacing: {args.pace_runs} runs of {args.pace_searches} new searches at once per margin, "
          f"{args.replicas} replicas, fake Brave enforcing {args.pace_rate:g}/s exactly ({interval_ms:.0f} ms apart)")
    for margin in args.margins:
        redis.flush()  # a breaker the 429s of the last margin opened would refuse the next one's searches
        rejected, closest, walls = [], [], []
        outcomes: dict[str, int] = {}
        with (
            FakeBrave(requests_per_second=args.pace_rate, pace_tolerance=0) as brave,
            replicas(args.replicas, brave, args.pace_rate, redis.url, margin_ms=margin) as urls,
        ):
            for run in range(args.pace_runs):
                brave.reset()
                wall, answered = asyncio.run(
                    burst(urls, args.pace_searches, args.pace_searches, tag=f"m{margin:g}r{run} ")
                )
                for code, count in answered.items():
                    outcomes[code] = outcomes.get(code, 0) + count
                arrivals = sorted(request.received_at for request in brave.requests)
                rejected.append(brave.rejected)
                closest.append(min((b - a for a, b in itertools.pairwise(arrivals)), default=math.inf) * 1000)
                walls.append(wall)
        print(f"  margin {margin:>4g} ms: 429s per run {rejected} (total {sum(rejected)}, median "
              f"{statistics.median(rejected):g}); closest arrivals {statistics.median(closest):.0f} ms median, "
              f"{min(closest):.0f} ms least (limit {interval_ms:.0f}); wall {statistics.median(walls):.1f} s median; "
              f"outcomes {dict(sorted(outcomes.items()))}")


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
    parser.add_argument("--pace-runs", type=int, default=5, help="runs per margin in the pacing part")
    parser.add_argument("--pace-searches", type=int, default=36, help="distinct searches per pacing run")
    parser.add_argument("--pace-rate", type=float, default=2.0, help="the strict fake's requests per second")
    parser.add_argument("--margins", type=lambda text: [float(part) for part in text.split(",")],
                        default=[0.0, RATE_MARGIN_MS], help="margins compared in the pacing part (ms)")
    parser.add_argument("--only", choices=["pacing"], help="run only this part")
    args = parser.parse_args()
    if redis_server_path() is None:
        sys.exit(INSTALL_HINT)
    with RedisServer() as redis:
        if args.only == "pacing":
            pacing(args, redis)
            return
        # first, while no fake server thread of the fleet runs in this process to take the GIL
        asyncio.run(cached_overhead(redis.url, args.rounds))
        redis.flush()
        run("with Redis", args, redis.url)
        run("without Redis (each replica its own limit and cache)", args, None)
        redis.flush()
        pacing(args, redis)
        chat_part()


if __name__ == "__main__":
    main()
