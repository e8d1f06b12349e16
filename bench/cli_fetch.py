"""A one-shot `weblens fetch` of a small local page: reading it in-process (the default for
the command, `fetch.in_process_bytes` = 512 KiB) beside starting the worker pool for it
(`WEBLENS_FETCH_IN_PROCESS_BYTES=0`: what the command did before), and `python -c pass`.

Each run is a fresh process against a local page server (cache off, so every run downloads
and reads the page); the variants interleave round by round so load hits them alike.

Target (issue 24): a small page in under 0.5 s, median.

    .venv/bin/python bench/cli_fetch.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from weblens.testing.pages import PageServer

TARGET_S = 0.5


def wall(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


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
        runs: dict[str, list[float]] = {name: [] for name in variants}
        wall(*variants["weblens fetch, read in-process"])  # warm the OS file cache
        for _ in range(rounds):
            for name, (argv, variant_env) in variants.items():
                runs[name].append(wall(argv, variant_env))
    print(f"one-shot `weblens fetch` of a small local page ({len(pages.url('/article'))} char URL, /article), "
          f"medians of {rounds} interleaved runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(f"{'':40}{'median':>10}{'min':>10}")
    for name, values in runs.items():
        print(f"{name:40}{statistics.median(values):>9.3f}s{min(values):>9.3f}s")
    new = statistics.median(runs["weblens fetch, read in-process"])
    print(f"\nin-process median {new:.3f} s (target < {TARGET_S} s): {'pass' if new < TARGET_S else 'FAIL'}")


if __name__ == "__main__":
    main()
