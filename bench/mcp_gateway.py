"""What the MCP gateway adds: `tools/call web_search` over streamable HTTP vs the same call in-process.

Separate processes, so no event loop competes with the one being measured: the fake
upstreams (DuckDuckGo: `bench/rawfake.py`, 50 ms latency), the gateway (`weblens mcp
--transport http`, as a user runs it), a bare MCP SDK server with one `echo` tool (the
floor: the SDK's own streamable HTTP, served the same way), and this one, which drives
the official MCP client. Prints medians of rounds, the variants interleaved (ratios are
medians of each round's figure over the echo's in the same round: this machine's speed drifts):

- added latency of a `tools/call` over streamable HTTP, paired with the same
  `web_search` made in-process just before it (target < 5 ms), next to the bare SDK's own:
  its `wait` tool sleeping the upstream's latency, paired with the same sleep in-process
  (on this VM a call that waits costs ~2 ms more than one that does not, in any server)
- calls/s with 32 concurrent client sessions, with the CPU each process spends per call:
  the bare SDK `echo` (the floor), `web_search` with every query different (each call
  reaches the upstream), and a cached `web_search` (a second gateway with the cache on,
  one repeated query: target >= 80 % of the echo's calls/s), each also with established
  sessions (one call made before the clock, so a client's once-per-session work on its
  first call, listing the tools and compiling the outputSchema, is left out)

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
import importlib.util
import os
import socket
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import count
from types import ModuleType
from typing import Any

import httpx
from mcp.client.client import Client

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.tools import default_toolset
from weblens.toolset import Toolset


def _sibling(name: str) -> ModuleType:
    """bench/<name>.py (this directory is off sys.path, see above)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", Path(__file__).resolve().parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_rawfake = _sibling("rawfake")
cpu_seconds = _sibling("procstat").cpu_seconds
LATENCY_S = 0.05
ROUNDS = 12
SEQUENTIAL_CALLS = 30
CLIENTS = 32
CALLS_PER_CLIENT = 10
STARTUP_TIMEOUT_S = 120.0  # a loaded shared machine starts a gateway slowly
_ids = count()


def serve_upstreams() -> None:
    """Child process: a fake Open-Meteo (two requests per weather call, so half the latency)."""
    from weblens.testing.openmeteo import FakeOpenMeteo

    meteo = FakeOpenMeteo(latency_s=LATENCY_S / 2).start()
    print(meteo.url(), flush=True)
    sys.stdin.read()  # until the parent closes our stdin


def serve_echo(port: int) -> None:
    """Child process: the bare SDK, an `echo` and a `wait` tool, streamable HTTP (SSE) as weblens serves it."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("echo")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    async def wait(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "done"

    asyncio.run(server.run_streamable_http_async(host="127.0.0.1", port=port, json_response=False))


def environment(ddg_url: str, meteo_url: str, data_dir: str, *, cache: bool = False) -> dict[str, str]:
    return {
        "WEBLENS_DUCKDUCKGO_BASE_URL": ddg_url,
        "WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND": "100000",
        "WEBLENS_SEARCH_PROVIDER": "duckduckgo",
        "WEBLENS_WEATHER_GEOCODING_BASE_URL": meteo_url,
        "WEBLENS_WEATHER_FORECAST_BASE_URL": meteo_url,
        "WEBLENS_CACHE_ENABLED": "true" if cache else "false",
        "WEBLENS_DATA_DIR": data_dir,
    }


def arguments(tool: str) -> dict[str, Any]:
    if tool == "echo":
        return {"text": f"ping {next(_ids)}"}
    if tool == "cached web_search":
        return {"query": "lantern festival", "max_results": 5}
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


async def paired_difference_ms(
    in_process: Callable[[], Awaitable[None]], over_mcp: Callable[[], Awaitable[None]]
) -> float:
    """Median of paired differences: `over_mcp` minus `in_process` timed just before it (both warmed up)."""
    await over_mcp()
    await in_process()
    pairs = []
    for _ in range(SEQUENTIAL_CALLS):
        started = time.perf_counter()
        await in_process()
        local = time.perf_counter() - started
        started = time.perf_counter()
        await over_mcp()
        pairs.append(time.perf_counter() - started - local)
    return statistics.median(pairs) * 1e3


async def added_latency_ms(url: str, local: Toolset, tool: str) -> float:
    """What the gateway adds: the MCP call minus the same call in-process."""

    async def in_process() -> None:
        result = await local.call(tool, arguments(tool))
        assert result.ok, result.text

    async with Client(url) as client:

        async def over_mcp() -> None:
            result = await client.call_tool(tool, arguments(tool))
            assert not result.is_error, result.content

        return await paired_difference_ms(in_process, over_mcp)


async def bare_added_latency_ms(url: str) -> float:
    """The bare SDK's own for a call that waits: its `wait` tool sleeping the upstream's latency,
    minus the same sleep in-process."""
    async with Client(url) as client:

        async def over_mcp() -> None:
            await client.call_tool("wait", {"seconds": LATENCY_S})

        return await paired_difference_ms(lambda: asyncio.sleep(LATENCY_S), over_mcp)


async def calls_per_second(
    url: str, tool: str, pids: dict[str, int], *, warm: bool = False
) -> tuple[float, dict[str, float]]:
    """CLIENTS sessions, each making CALLS_PER_CLIENT calls one after another.

    Sessions are opened before the clock starts. `warm`: each also makes one call before it,
    so what a client does once per session on its first call (list the tools, compile the
    outputSchema it checks results with) is left out too.
    Returns calls/s and the CPU milliseconds per call of each process in `pids` and of this one.
    """

    name = tool.removeprefix("cached ")

    async def one_client(ready: asyncio.Barrier) -> None:
        async with Client(url) as client:
            if warm:
                await client.call_tool(name, arguments(tool))
            await ready.wait()
            for _ in range(CALLS_PER_CLIENT):
                result = await client.call_tool(name, arguments(tool))
                assert not result.is_error, result.content

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


async def schema_compile_ms(url: str, tool: str) -> float:
    """What an MCP client spends once per session compiling `tool`'s outputSchema (it checks results with it)."""
    from jsonschema.validators import validator_for

    async with Client(url) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    schema = listed[tool].output_schema
    if schema is None:
        return 0.0
    started = time.process_time()
    for _ in range(20):
        validator_for(schema).check_schema(schema)
    return (time.process_time() - started) / 20 * 1e3


@dataclass
class Target:
    """One server under load: its URL, the tool called on it, and the processes whose CPU is counted."""

    url: str
    tool: str
    pids: dict[str, int]


async def measure(targets: dict[str, Target], tool: str, rounds: int) -> None:
    async with Runtime(Settings(), cache=Cache(None, enabled=False)) as runtime:
        await _measure(targets, tool, rounds, default_toolset(runtime, enabled=[tool]))


async def _measure(targets: dict[str, Target], tool: str, rounds: int, local: Toolset) -> None:
    assert local.names == [tool], f"{tool} is not available in-process"
    for target in targets.values():
        await wait_until_up(target.url)
    added: list[float] = []
    bare_added: list[float] = []
    rates: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, dict[str, list[float]]] = defaultdict(dict)
    for _ in range(rounds):
        added.append(await added_latency_ms(targets[tool].url, local, tool))
        if ECHO in targets:
            bare_added.append(await bare_added_latency_ms(targets[ECHO].url))
        for name, target in targets.items():  # interleaved, so load on the machine hits them alike
            for warm in (False, True) if name in (ECHO, CACHED) else (False,):
                rate, cpu_ms = await calls_per_second(target.url, target.tool, target.pids, warm=warm)
                rates[name + WARM * warm].append(rate)
                for process, ms in cpu_ms.items():
                    cpu[name + WARM * warm].setdefault(process, []).append(ms)
    print(
        f"MCP gateway, tools/call over streamable HTTP (upstream latency {LATENCY_S * 1e3:.0f} ms), "
        f"medians of {rounds} rounds, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:"
    )
    print(f"  {tool}: added latency over the in-process call  {statistics.median(added):7.2f} ms  (target < 5 ms)")
    if bare_added:
        sleeping = f"the bare SDK's own, a tool sleeping {LATENCY_S * 1e3:.0f} ms"
        print(f"  {sleeping:<46}{statistics.median(bare_added):7.2f} ms")
    print(f"  calls/s with {CLIENTS} concurrent sessions of {CALLS_PER_CLIENT} calls, opened before the clock starts")
    print("  (established: each session made one call before it, so its first call's setup is left out):")
    for name in rates:
        echo = ECHO + WARM if name.endswith(WARM) else ECHO
        share = ""
        if echo in rates and name != echo:
            # this machine's speed drifts by 2x within minutes: compare each round with the echo's in that round
            share = f"  {per_round_ratio(rates[name], rates[echo]):5.0%} of the echo"
        print(f"    {name:<46} {statistics.median(rates[name]):7.1f}{share}")
        print("      CPU ms per call: " + ", ".join(f"{p} {statistics.median(v):.2f}" for p, v in cpu[name].items()))
    if ECHO in rates and CACHED in rates:
        steady = per_round_ratio(rates[CACHED + WARM], rates[ECHO + WARM])
        print(f"  target, established sessions: the cached web_search >= 80% of the echo: {steady:.0%}, "
              f"{'pass' if steady >= 0.8 else 'FAIL'}")
        print(f"  (fresh sessions: {per_round_ratio(rates[CACHED], rates[ECHO]):.0%}: the first call of each also "
              "pays the client's one-time compile of the outputSchema, below)")
        for suffix in ("", WARM):
            server = per_round_ratio(cpu[ECHO + suffix]["server"], cpu[CACHED + suffix]["gateway"])
            clients = per_round_ratio(cpu[ECHO + suffix]["MCP clients"], cpu[CACHED + suffix]["MCP clients"])
            print(
                f"  CPU per call{suffix}, the echo's over the cached web_search's: server {server:.0%}, "
                f"MCP clients {clients:.0%} (the {CLIENTS} clients share one process: their CPU bounds calls/s)"
            )
        compile_ms = {name: await schema_compile_ms(targets[name].url, targets[name].tool.removeprefix("cached "))
                      for name in (ECHO, CACHED)}  # fmt: skip
        print(
            f"  each MCP client session checks the outputSchema once: {compile_ms[CACHED]:.1f} ms CPU for "
            f"web_search's vs {compile_ms[ECHO]:.1f} ms for echo's, "
            f"{(compile_ms[CACHED] - compile_ms[ECHO]) / CALLS_PER_CLIENT:.2f} ms per call at "
            f"{CALLS_PER_CLIENT} calls per session"
        )


def per_round_ratio(values: list[float], baseline: list[float]) -> float:
    """The median over rounds of each round's value over the baseline measured in that same round."""
    return statistics.median(value / base for value, base in zip(values, baseline, strict=True))


ECHO = "echo, bare MCP SDK (the floor)"
WARM = ", established"
CACHED = "cached web_search"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default="web_search", choices=["web_search", "get_weather", "think"])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve_upstreams()
        return
    if options.serve_echo:
        serve_echo(options.serve_echo)
        return
    processes: list[subprocess.Popen[str]] = []

    def start(*command: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        processes.append(child)
        return child

    upstreams = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert upstreams.stdout is not None
        meteo_url = upstreams.stdout.readline().strip()
        with _rawfake.spawn(LATENCY_S) as (ddg_url, ddg_pid), tempfile.TemporaryDirectory() as data_dir:
            env = environment(ddg_url, meteo_url, data_dir)
            os.environ.update(env)  # the in-process baseline reads the same settings
            fakes = {"fake upstream": ddg_pid if options.tool == "web_search" else upstreams.pid}
            targets: dict[str, Target] = {}
            if options.tool == "web_search":
                port = free_port()
                echo = start(sys.executable, __file__, "--serve-echo", str(port))
                targets[ECHO] = Target(f"http://127.0.0.1:{port}/mcp", "echo", {"server": echo.pid})
            port = free_port()
            gateway = start(sys.executable, "-m", "weblens", "mcp", "--transport", "http", "--port", str(port),
                            "--tools", options.tool, env={**os.environ, **env})  # fmt: skip
            url = f"http://127.0.0.1:{port}/mcp"
            targets[options.tool] = Target(url, options.tool, {"gateway": gateway.pid, **fakes})
            if options.tool == "web_search":
                port = free_port()
                cached_env = environment(ddg_url, meteo_url, str(Path(data_dir) / "cached"), cache=True)
                cached = start(sys.executable, "-m", "weblens", "mcp", "--transport", "http", "--port", str(port),
                               "--tools", "web_search", env={**os.environ, **cached_env})  # fmt: skip
                targets[CACHED] = Target(f"http://127.0.0.1:{port}/mcp", CACHED, {"gateway": cached.pid, **fakes})
            asyncio.run(measure(targets, options.tool, options.rounds))
    finally:
        for child in processes:
            child.terminate()
            child.wait(timeout=10)
        if upstreams.stdin is not None:
            upstreams.stdin.close()
        upstreams.wait(timeout=10)


if __name__ == "__main__":
    main()
