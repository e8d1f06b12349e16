"""What the MCP gateway adds: `tools/call web_search` over streamable HTTP vs the same call in-process.

Three processes, so no event loop competes with the one being measured: a fake
DuckDuckGo with 50 ms latency, the gateway (`weblens mcp --transport http`, as a user
runs it) and this one, which drives the official MCP client. Prints medians of rounds:

- added latency of a `tools/call` over streamable HTTP, paired with the same
  `web_search` made in-process just before it (target < 5 ms)
- calls/s with 32 concurrent client sessions, with the CPU each process spends per call
  (the fake upstream's share shows it is not the bottleneck), and the same load on the
  fake from httpx alone, for scale

Search caching is off and every query is different, so each call reaches the upstream.

    .venv/bin/python bench/mcp_gateway.py [--tool get_weather|think] [--rounds N]
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named like the SDK's package: keep `import mcp` from finding it.
if str(Path(__file__).resolve().parent) in map(str, (Path(p).resolve() for p in sys.path)):
    sys.path.remove(next(p for p in sys.path if Path(p).resolve() == Path(__file__).resolve().parent))

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import tempfile
import time
from itertools import count
from typing import Any

import httpx
from mcp.client.client import Client

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.tools import default_toolset
from weblens.toolset import Toolset

LATENCY_S = 0.05
ROUNDS = 5
SEQUENTIAL_CALLS = 30
CLIENTS = 32
CALLS_PER_CLIENT = 10
STARTUP_TIMEOUT_S = 30.0
_ids = count()


def serve_upstreams() -> None:
    """Child process: fake DuckDuckGo and Open-Meteo with the same latency."""
    from weblens.testing.openmeteo import FakeOpenMeteo
    from weblens.testing.providers import FakeDuckDuckGo

    ddg = FakeDuckDuckGo(latency_s=LATENCY_S).start()
    meteo = FakeOpenMeteo(latency_s=LATENCY_S / 2).start()  # two requests per weather call
    print(ddg.url(), meteo.url(), flush=True)
    sys.stdin.read()  # until the parent closes our stdin


def environment(ddg_url: str, meteo_url: str, data_dir: str) -> dict[str, str]:
    return {
        "WEBLENS_DUCKDUCKGO_BASE_URL": ddg_url,
        "WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND": "100000",
        "WEBLENS_SEARCH_PROVIDER": "duckduckgo",
        "WEBLENS_WEATHER_GEOCODING_BASE_URL": meteo_url,
        "WEBLENS_WEATHER_FORECAST_BASE_URL": meteo_url,
        "WEBLENS_CACHE_ENABLED": "false",
        "WEBLENS_DATA_DIR": data_dir,
    }


def arguments(tool: str) -> dict[str, Any]:
    if tool == "web_search":
        return {"query": f"lantern festival {next(_ids)}", "max_results": 5}
    if tool == "think":  # no upstream at all: the gateway's own floor
        return {"thought": f"step {next(_ids)}"}
    return {"location": "Beijing"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_until_up(url: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    async with httpx.AsyncClient() as http:
        while True:
            try:
                await http.get(url)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the gateway did not start") from None
                await asyncio.sleep(0.1)


async def added_latency_ms(url: str, local: Toolset, tool: str) -> float:
    """Median of paired differences: the MCP call minus the in-process call just before it."""
    async with Client(url) as client:
        await client.call_tool(tool, arguments(tool))  # warm up both paths
        await local.call(tool, arguments(tool))
        pairs = []
        for _ in range(SEQUENTIAL_CALLS):
            started = time.perf_counter()
            local_result = await local.call(tool, arguments(tool))
            in_process = time.perf_counter() - started
            started = time.perf_counter()
            remote_result = await client.call_tool(tool, arguments(tool))
            over_mcp = time.perf_counter() - started
            assert local_result.ok and not remote_result.is_error, (local_result.text, remote_result.content)
            pairs.append(over_mcp - in_process)
    return statistics.median(pairs) * 1e3


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), 0 when unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def calls_per_second(url: str, tool: str, pids: dict[str, int]) -> tuple[float, dict[str, float]]:
    """CLIENTS sessions, each making CALLS_PER_CLIENT calls one after another.

    Returns calls/s and the CPU milliseconds per call of each process in `pids` and of this one.
    """

    async def one_client(ready: asyncio.Barrier) -> None:
        async with Client(url) as client:
            await ready.wait()
            for _ in range(CALLS_PER_CLIENT):
                result = await client.call_tool(tool, arguments(tool))
                assert not result.is_error, result.content

    # sessions are opened before the clock starts; the calls are what is measured
    ready = asyncio.Barrier(CLIENTS + 1)
    tasks = [asyncio.create_task(one_client(ready)) for _ in range(CLIENTS)]
    await ready.wait()
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    started, client_cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*tasks)
    calls = CLIENTS * CALLS_PER_CLIENT
    elapsed = time.perf_counter() - started
    cpu_ms = {name: (cpu_seconds(pid) - cpu_before[name]) * 1e3 / calls for name, pid in pids.items()}
    cpu_ms["MCP clients"] = (time.process_time() - client_cpu) * 1e3 / calls
    return calls / elapsed, cpu_ms


async def httpx_calls_per_second(ddg_url: str) -> float:
    """The same load on the fake upstream from httpx alone (no MCP, no weblens), for scale."""
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=CLIENTS)) as http:

        async def one_client() -> None:
            for _ in range(CALLS_PER_CLIENT):
                (await http.post(f"{ddg_url}/html/", data={"q": f"direct {next(_ids)}"})).raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(CLIENTS)))
        return CLIENTS * CALLS_PER_CLIENT / (time.perf_counter() - started)


async def measure(url: str, ddg_url: str, tool: str, rounds: int, pids: dict[str, int]) -> None:
    local = default_toolset(Runtime(settings=Settings(), cache=Cache(None, enabled=False)), enabled=[tool])
    assert local.names == [tool], f"{tool} is not available in-process"
    await wait_until_up(url)
    added, rates, direct = [], [], []
    cpu: dict[str, list[float]] = {}
    for _ in range(rounds):
        added.append(await added_latency_ms(url, local, tool))
        rate, cpu_ms = await calls_per_second(url, tool, pids)
        rates.append(rate)
        for name, ms in cpu_ms.items():
            cpu.setdefault(name, []).append(ms)
        if tool == "web_search":
            direct.append(await httpx_calls_per_second(ddg_url))
    print(f"MCP gateway, tools/call {tool} over streamable HTTP (upstream latency {LATENCY_S * 1e3:.0f} ms), "
          f"medians of {rounds} rounds, {os.cpu_count()} cores:")
    print(f"  added latency over the in-process call  {statistics.median(added):7.2f} ms     (target < 5 ms)")
    print(f"  calls/s, {CLIENTS} concurrent sessions        {statistics.median(rates):7.1f}")
    print("    CPU ms per call: " + ", ".join(f"{name} {statistics.median(v):.2f}" for name, v in cpu.items()))
    if direct:
        print(f"    httpx alone, same load on the fake     {statistics.median(direct):7.1f} req/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default="web_search", choices=["web_search", "get_weather", "think"])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve_upstreams()
        return
    upstreams = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    gateway = None
    try:
        assert upstreams.stdout is not None
        ddg_url, meteo_url = upstreams.stdout.readline().split()
        with tempfile.TemporaryDirectory() as data_dir:
            env = environment(ddg_url, meteo_url, data_dir)
            os.environ.update(env)  # the in-process baseline reads the same settings
            port = free_port()
            gateway = subprocess.Popen(
                [sys.executable, "-m", "weblens", "mcp", "--transport", "http", "--port", str(port),
                 "--tools", options.tool],
                env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            pids = {"gateway": gateway.pid, "fake upstream": upstreams.pid}
            asyncio.run(measure(f"http://127.0.0.1:{port}/mcp", ddg_url, options.tool, options.rounds, pids))
    finally:
        if gateway is not None:
            gateway.terminate()
            gateway.wait(timeout=10)
        if upstreams.stdin is not None:
            upstreams.stdin.close()
        upstreams.wait(timeout=10)


if __name__ == "__main__":
    main()
