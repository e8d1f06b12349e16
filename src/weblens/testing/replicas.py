"""`weblens serve` replicas as separate processes on loopback ports: the fleet topology that
tests and benchmarks run (a Dockerfile and compose.yaml describe the same with containers).

Also `free_port()`, which the servers started here (Redis, PostgreSQL, replicas) share.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

__all__ = ["Replica", "Replicas", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Replica:
    process: subprocess.Popen[bytes]
    url: str
    log: Path


class Replicas:
    """`with Replicas(3, root, env) as replicas:` starts `count` `weblens serve` processes, each
    with its own data directory under `root` (no disk shared, as on separate hosts) and
    `env` over the current environment (a value of None removes that variable), waits until
    each answers `ready_path`, and stops them on exit. Their output goes to `root/replicaN.log`."""

    def __init__(
        self,
        count: int,
        root: Path,
        env: Mapping[str, str | None] | None = None,
        *,
        ready_path: str = "/ready",
        start_timeout_s: float = 180.0,
    ) -> None:
        self.count, self.root, self.env = count, root, dict(env or {})
        self.ready_path, self.start_timeout_s = ready_path, start_timeout_s
        self.replicas: list[Replica] = []

    @property
    def urls(self) -> list[str]:
        return [replica.url for replica in self.replicas]

    def logs(self) -> str:
        return "\n".join(r.log.read_text(errors="replace") for r in self.replicas if r.log.exists())

    def __enter__(self) -> list[Replica]:
        try:
            for index in range(self.count):
                self.replicas.append(self._start(index))
            for replica in self.replicas:
                self._wait_ready(replica)
        except BaseException:
            self.stop()
            raise
        return self.replicas

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for replica in self.replicas:
            if replica.process.poll() is None:
                replica.process.terminate()
        for replica in self.replicas:
            try:
                replica.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                replica.process.kill()
                replica.process.wait()

    def _start(self, index: int) -> Replica:
        port = free_port()
        env = {**os.environ, "WEBLENS_DATA_DIR": str(self.root / f"replica{index}")}
        for name, value in self.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        log = self.root / f"replica{index}.log"
        self.root.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "weblens", "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        return Replica(process, f"http://127.0.0.1:{port}", log)

    def _wait_ready(self, replica: Replica) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            if replica.process.poll() is not None:
                raise RuntimeError(f"replica {replica.url} exited at start-up:\n{self.logs()[-3000:]}")
            try:
                if httpx.get(replica.url + self.ready_path, timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica {replica.url} did not start within {self.start_timeout_s:.0f} s")
            time.sleep(0.2)
