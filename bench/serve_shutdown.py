"""Ctrl-C on `weblens serve`: how long until the process is gone. Prints medians of several rounds.

- baseline: a server with no request open, SIGINT, until it exits;
- streaming: a server writing an answer (a slow scripted model) to an SSE client, SIGINT,
  until the stream has ended (its last event) and until the process has exited.

Each round is a real `weblens serve` process on a free port; the scripted model and the
fake Open-Meteo run in this process (threads).

    .venv/bin/python bench/serve_shutdown.py [rounds]
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx

from weblens.testing.llm import ScriptedLLM, Turn

WEBLENS = [sys.executable, "-m", "weblens", "serve", "--port", "0"]


def _start(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(WEBLENS, env={**os.environ, **env}, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "weblens http://127.0.0.1:PORT/ — chat page, ..."
    return proc, first.split("weblens ", 1)[1].split()[0]


def _stop(proc: subprocess.Popen[str], started: float) -> tuple[float, str]:
    proc.wait(30)
    assert proc.stderr is not None
    return time.monotonic() - started, proc.stderr.read()


def idle_round(env: dict[str, str]) -> float:
    proc, url = _start(env)
    httpx.get(f"{url}health", timeout=10)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    return _stop(proc, started)[0]


def streaming_round(env: dict[str, str], llm: ScriptedLLM) -> tuple[float, float, str, int]:
    llm.add(Turn(text="word " * 4000, chunk_interval_s=0.05))
    proc, url = _start(env)
    last: dict[str, Any] = {}
    started = 0.0
    try:
        with httpx.stream("POST", f"{url}api/chat", json={"message": "a long story"}, timeout=60) as response:
            for line in response.iter_lines():
                if line.startswith("data:"):
                    last = json.loads(line[5:])
                    if not started and "word" in last.get("text", ""):
                        started = time.monotonic()
                        proc.send_signal(signal.SIGINT)
    except httpx.RemoteProtocolError:  # before weblens ended its streams itself, the server cut them
        last = {"reason": "connection cut"}
    ended = time.monotonic() - started
    exited, stderr = _stop(proc, started)
    return ended, exited, str(last.get("reason", last)), stderr.count("\n")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as data, ScriptedLLM() as llm:
        env = {"WEBLENS_DATA_DIR": data, "WEBLENS_LLM_BASE_URL": llm.base_url, "WEBLENS_LLM_MODEL": "scripted",
               "WEBLENS_LLM_TOOLS": "get_weather"}
        idle = [idle_round(env) for _ in range(rounds)]
        streaming = [streaming_round(env, llm) for _ in range(rounds)]
    print(f"Ctrl-C to exit, idle server (baseline):        median {statistics.median(idle):.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in idle)})")
    ends = [s[0] for s in streaming]
    exits = [s[1] for s in streaming]
    print(f"Ctrl-C to the stream's last event, streaming:  median {statistics.median(ends):.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in ends)})")
    print(f"Ctrl-C to exit, streaming:                     median {statistics.median(exits):.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in exits)})")
    print(f"last event's reason: {sorted({s[2] for s in streaming})}; "
          f"stderr lines after the banner: {sorted({s[3] for s in streaming})}")


if __name__ == "__main__":
    main()
