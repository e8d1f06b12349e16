"""`web_fetch` end to end against the official MCP fetch server, on the same pages, same run.

The 91 benchmark pages are served by a local HTTP server in a separate process. Each
round fetches every page with 8 concurrent calls through:

- weblens' `web_fetch` tool (guard, download, extraction, paging; cache off), and
- the `mcp-server-fetch` package from PyPI, driven through its own MCP stdio interface
  with the `mcp` client, started with `--ignore-robots-txt --allow-private-ips`. It lives
  in its own venv (default /tmp/mcpfetch-venv), created here if absent; it is not a
  weblens dependency.

Both return the whole page (max_length 999999); the body each gives the model is scored
with the benchmark's `score.py`. Target: >= 5x its pages/s at a higher F1. Prints
medians of several rounds.

First, in the same run, weblens against itself: pages/s at 1 and 8 concurrent calls with
extraction in a thread (`fetch.workers=0`, the old path) and in the worker pool (one process
per core), F1 of both (no loss allowed), and each worker's memory (RSS, and PSS: its share
of pages shared with the forkserver). Target: the pool at 8 concurrent >= 1.7x the pool at 1.

    .venv/bin/python bench/fetch.py [--rounds 3] [--venv /tmp/mcpfetch-venv] [--workers-only]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.tools.fetch import FetchTool


def _load_extraction_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_extraction", Path(__file__).resolve().parent / "extraction.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_extraction = _load_extraction_bench()
DEFAULT_DATA = _extraction.DEFAULT_DATA / "article-extraction"
load_pages, load_score = _extraction.load_pages, _extraction.load_score

CONCURRENCY = 8
MAX_LENGTH = 999_999
MCP_PACKAGE = "mcp-server-fetch"
Fetcher = Callable[[str], Awaitable[str]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_venv(venv: Path) -> Path:
    executable = venv / "bin" / MCP_PACKAGE
    if not executable.exists():
        print(f"creating {venv} with {MCP_PACKAGE} (one time)...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", MCP_PACKAGE], check=True)
    return executable


async def run_round(
    fetcher: Fetcher, urls: dict[str, str], concurrency: int = CONCURRENCY
) -> tuple[float, dict[str, dict[str, str]], int]:
    """(seconds, predictions, failures) for all pages with `concurrency` calls in flight."""
    gate = asyncio.Semaphore(concurrency)
    failures = 0

    async def one(page_id: str, url: str) -> tuple[str, str]:
        nonlocal failures
        async with gate:
            try:
                return page_id, await fetcher(url)
            except Exception:
                failures += 1
                return page_id, ""

    started = time.perf_counter()
    done = await asyncio.gather(*(one(page_id, url) for page_id, url in urls.items()))
    elapsed = time.perf_counter() - started
    return elapsed, {page_id: {"articleBody": body} for page_id, body in done}, failures


def weblens_fetcher(port: int, workers: int | None = None, runtimes: list[Runtime] | None = None) -> Fetcher:
    settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{port}"], "workers": workers}, cache={"enabled": False})
    runtime = Runtime(settings=settings, cache=Cache(None, enabled=False))
    if runtimes is not None:
        runtimes.append(runtime)
    tool = FetchTool(runtime)

    async def fetch(url: str) -> str:
        result = await tool.execute({"url": url, "max_length": MAX_LENGTH})
        if not result.ok:
            raise RuntimeError(result.text)
        return str(result.data["content"])

    return fetch


def mcp_fetcher(session: ClientSession) -> Fetcher:
    async def fetch(url: str) -> str:
        result = await session.call_tool("fetch", {"url": url, "max_length": MAX_LENGTH})
        text = "".join(getattr(part, "text", "") for part in getattr(result, "content", []))
        if getattr(result, "isError", False) or getattr(result, "is_error", False):
            raise RuntimeError(text)
        return text.split(":\n", 1)[1] if text.startswith("Contents of ") else text

    return fetch


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB, from /proc (Linux)."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines() if ":" in line
    )
    return int(fields["Rss"].split()[0]), int(fields["Pss"].split()[0])


async def compare_workers(urls: dict[str, str], port: int, rounds: int, score: ModuleType, truth: object) -> None:
    """Thread vs worker pool, 1 and 8 concurrent, in one run; see the module docstring."""
    runtimes: list[Runtime] = []
    variants = {"thread (workers=0)": weblens_fetcher(port, 0, runtimes),
                "worker pool": weblens_fetcher(port, None, runtimes)}  # fmt: skip
    await asyncio.gather(*(run_round(fetch, dict(list(urls.items())[:4]), 4) for fetch in variants.values()))  # warm
    rates: dict[tuple[str, int], list[float]] = {}
    f1: dict[str, float] = {}
    for round_ in range(rounds):
        for concurrency in (1, CONCURRENCY):
            for name, fetch in variants.items():
                elapsed, predictions, _ = await run_round(fetch, urls, concurrency)
                rates.setdefault((name, concurrency), []).append(len(urls) / elapsed)
                if round_ == 0 and concurrency == CONCURRENCY:
                    f1[name] = score.score(truth, predictions, n_boot=0)["f1"]
    pool = runtimes[1].workers
    print(f"weblens alone: {len(urls)} pages, medians of {rounds} rounds, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"  {'':<20} {'1 call':>8} {'8 calls':>8} {'8/1':>6} {'F1':>6}")
    for name in variants:
        one, eight = (statistics.median(rates[(name, c)]) for c in (1, CONCURRENCY))
        print(f"  {name:<20} {one:8.1f} {eight:8.1f} {eight / one:5.2f}x {f1[name]:6.3f}")
    pool_eight = statistics.median(rates[("worker pool", CONCURRENCY)])
    thread_one = statistics.median(rates[("thread (workers=0)", 1)])
    pool_one = statistics.median(rates[("worker pool", 1)])
    print(f"  pool at 8 vs pool at 1: {pool_eight / pool_one:.2f}x, vs the thread path at 1: "
          f"{pool_eight / thread_one:.2f}x (target >= 1.7x)")  # fmt: skip
    for pid in pool.pids:
        rss, pss = memory_kib(pid)
        print(f"  worker {pid}: RSS {rss / 1024:.0f} MiB, PSS {pss / 1024:.0f} MiB")
    for runtime in runtimes:
        await runtime.aclose()


async def main_async(args: argparse.Namespace) -> int:
    if not (args.data / "ground-truth.json").is_file():
        print(f"skipped: the benchmark data is not at {args.data} (pass --data DIR)")
        return 0
    score = load_score(args.data)
    truth = json.loads((args.data / "ground-truth.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as root:
        for page_id, raw in load_pages(args.data).items():
            (Path(root) / f"{page_id}.html").write_bytes(raw)
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", root],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            await asyncio.sleep(1.0)  # let the page server bind
            urls = {page_id: f"http://127.0.0.1:{port}/{page_id}.html" for page_id in truth}
            await compare_workers(urls, port, args.rounds, score, truth)
            if args.workers_only:
                return 0
            executable = ensure_venv(args.venv)
            params = StdioServerParameters(command=str(executable), args=["--ignore-robots-txt", "--allow-private-ips"])
            quiet = open(os.devnull, "w")  # noqa: SIM115 - its request log would bury the figures
            async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                fetchers = {"weblens web_fetch": weblens_fetcher(port), MCP_PACKAGE: mcp_fetcher(session)}
                times: dict[str, list[float]] = {name: [] for name in fetchers}
                scores: dict[str, dict[str, float]] = {}
                failed: dict[str, int] = {}
                for round_ in range(args.rounds):
                    for name, fetcher in fetchers.items():
                        elapsed, predictions, failures = await run_round(fetcher, urls)
                        times[name].append(elapsed)
                        print(f"  round {round_ + 1} {name}: {len(urls) / elapsed:.1f} pages/s", flush=True)
                        if round_ == 0:
                            scores[name] = score.score(truth, predictions, n_boot=0)
                            failed[name] = failures
        finally:
            server.terminate()
            server.wait()
    rates = {name: len(urls) / statistics.median(t) for name, t in times.items()}
    print(f"{len(urls)} pages, {CONCURRENCY} concurrent calls, {args.rounds} rounds, medians")
    print(f"{'system':<20} {'F1':>6} {'prec':>6} {'recall':>6} {'pages/s':>8} {'failed':>6}")
    for name in fetchers:
        r = scores[name]
        quality = f"{r['f1']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f}"
        print(f"{name:<20} {quality} {rates[name]:8.1f} {failed[name]:6d}")
    ours, theirs = "weblens web_fetch", MCP_PACKAGE
    speed = rates[ours] / rates[theirs]
    print(f"targets: >= 5x pages/s: {'met' if speed >= 5 else 'MISSED'} ({speed:.1f}x); "
          f"higher F1: {'met' if scores[ours]['f1'] > scores[theirs]['f1'] else 'MISSED'} "
          f"({scores[ours]['f1']:.3f} vs {scores[theirs]['f1']:.3f})")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--venv", type=Path, default=Path("/tmp/mcpfetch-venv"))
    parser.add_argument("--workers-only", action="store_true", help="only thread vs worker pool")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
