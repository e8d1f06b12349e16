"""A one-shot `weblens fetch` of a small local page: reading it in-process (the default for
the command, `fetch.in_process_bytes` = 512 KiB) beside starting the worker pool for it
(`WEBLENS_FETCH_IN_PROCESS_BYTES=0`: what the command did before), and `python -c pass`.

Each run is a fresh process against a local page server (cache off, so every run downloads
and reads the page); the variants interleave round by round so load hits them alike. The CPU
column (user + system) is what a busy machine changes least.

Target (issue 24): a small page in under 0.5 s, median.

    .venv/bin/python bench/cli_fetch.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from weblens.testing.pages import PageServer

TARGET_S = 0.5


def wall(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process: its forkserver and workers are not its waited-for
    children, so for the pool this is a lower bound). CPU is what load on the machine changes least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    rounds = parser.parse_args().rounds
    python = sys.executable
    with PageServer() as pages, tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WEBLENS_")}
        env |= {"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data",
                "WEBLENS_CACHE_ENABLED": "false", "WEBLENS_FETCH_ALLOWED_HOSTS": pages.host}  # fmt: skip
        fetch = [python, "-m", "weblens", "fetch", pages.url("/article")]
        variants = {
            "python -c pass (floor)": ([python, "-c", "pass"], env),
            "weblens fetch, worker pool (before)": (fetch, env | {"WEBLENS_FETCH_IN_PROCESS_BYTES": "0"}),
            "weblens fetch, read in-process": (fetch, env),
        }
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        wall(*variants["weblens fetch, read in-process"])  # warm the OS file cache
        for _ in range(rounds):
            for name, (argv, variant_env) in variants.items():
                runs[name].append(wall(argv, variant_env))
    print(f"one-shot `weblens fetch` of a small local page ({len(pages.url('/article'))} char URL, /article), "
          f"medians of {rounds} interleaved runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(f"{'':40}{'median':>10}{'min':>10}{'CPU median':>12}")
    for name, values in runs.items():
        walls = [w for w, _ in values]
        cpu = statistics.median(c for _, c in values)
        print(f"{name:40}{statistics.median(walls):>9.3f}s{min(walls):>9.3f}s{cpu:>11.3f}s")
    new = statistics.median(w for w, _ in runs["weblens fetch, read in-process"])
    print(f"\nin-process median {new:.3f} s (target < {TARGET_S} s): {'pass' if new < TARGET_S else 'FAIL'}")


if __name__ == "__main__":
    main()
