"""Start-up: `weblens --help`, `import weblens`, and `weblens mcp` answering `initialize`
next to a bare MCP SDK stdio server started the same way.

Each measurement starts a fresh process; the variants are interleaved round by round so
load on the machine hits them alike, and medians are printed. For the gateway it also
prints the first `tools/list` (weblens builds its tools on first need, so that is where
the tools' own imports are paid) and the resident memory once it answered.

Targets (issue 11): `weblens --help` < 0.5 s; `weblens mcp` initialize <= 1.2x the bare SDK.

    .venv/bin/python bench/startup.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELP_TARGET_S = 0.5
MCP_RATIO_TARGET = 1.2
BARE_SERVER = """
import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(text="echo")])

async def main():
    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def wall(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def _read_reply(proc: subprocess.Popen[bytes], selector: selectors.BaseSelector, buffer: bytearray) -> None:
    """Block until one whole line (a JSON-RPC reply) arrives on the server's stdout."""
    assert proc.stdout is not None
    while b"\n" not in buffer:
        if not selector.select(timeout=60):
            raise TimeoutError("the server did not answer within 60 s")
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            raise RuntimeError("the server exited before answering")
        buffer += chunk
    del buffer[: buffer.index(b"\n") + 1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve_and_ask(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(seconds to the initialize reply, seconds more to the first tools/list reply, RSS MB)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    buffer = bytearray()
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        _read_reply(proc, selector, buffer)
        initialized = time.perf_counter() - started
        proc.stdin.write((json.dumps(INITIALIZED) + "\n" + json.dumps(LIST_TOOLS) + "\n").encode())
        proc.stdin.flush()
        listed_at = time.perf_counter()
        _read_reply(proc, selector, buffer)
        listed = time.perf_counter() - listed_at
        memory = rss_mb(proc.pid)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return initialized, listed, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    python = sys.executable
    with tempfile.TemporaryDirectory() as home:
        # no user config or data dir of this machine; keyless defaults
        env = {**os.environ, "XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data"}
        env = {k: v for k, v in env.items() if not k.startswith("WEBLENS_")}
        runs: dict[str, list[float]] = {}
        for _ in range(rounds):  # interleaved: every variant once per round
            runs.setdefault("help", []).append(wall([python, "-m", "weblens", "--help"], env))
            runs.setdefault("import", []).append(wall([python, "-c", "import weblens"], env))
            runs.setdefault("python", []).append(wall([python, "-c", "pass"], env))
            bare = serve_and_ask([python, "-c", BARE_SERVER], env)
            ours = serve_and_ask([python, "-m", "weblens", "mcp"], env)
            for name, values in (("bare", bare), ("weblens", ours)):
                runs.setdefault(f"{name} init", []).append(values[0])
                runs.setdefault(f"{name} list", []).append(values[1])
                runs.setdefault(f"{name} rss", []).append(values[2])

    med = {name: statistics.median(values) for name, values in runs.items()}
    load = os.getloadavg()[0]
    print(f"medians of {rounds} interleaved runs; load average {load:.1f} on {os.cpu_count()} cores\n")
    print(f"{'':34}{'median':>10}{'min':>10}")
    for name, label in (("python", "python -c pass (floor)"), ("import", "python -c 'import weblens'"),
                        ("help", "weblens --help")):  # fmt: skip
        print(f"{label:34}{med[name]:>9.3f}s{min(runs[name]):>9.3f}s")
    print()
    print(f"{'stdio server':34}{'initialize':>12}{'+tools/list':>13}{'RSS':>9}")
    for name, label in (("bare", "bare MCP SDK (one echo tool)"), ("weblens", "weblens mcp")):
        print(f"{label:34}{med[f'{name} init']:>11.3f}s{med[f'{name} list']:>12.3f}s{med[f'{name} rss']:>7.0f}MB")
    ratio = med["weblens init"] / med["bare init"]
    print()
    print(f"weblens --help: {med['help']:.3f} s (target < {HELP_TARGET_S} s)")
    print(f"weblens mcp initialize / bare SDK: {ratio:.2f}x (target <= {MCP_RATIO_TARGET}x)")


if __name__ == "__main__":
    main()
