"""A real `redis-server` on a free loopback port in a temporary directory, for fleet tests.

No persistence (nothing is written but its socket); `stop()` ends it. Debian and Ubuntu
package it as `redis-server` (`apt-get install -y redis-server`)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from weblens.testing.replicas import free_port

__all__ = ["INSTALL_HINT", "RedisServer", "redis_server_path"]

INSTALL_HINT = "redis-server is not installed: `apt-get install -y redis-server` (CI's .ci/run does this)"


def redis_server_path() -> str | None:
    """The `redis-server` binary, or None when it is not installed."""
    return shutil.which("redis-server") or next(
        (str(p) for p in (Path("/usr/bin/redis-server"), Path("/usr/sbin/redis-server")) if p.exists()), None
    )


class RedisServer:
    """`with RedisServer() as redis: redis.url` — started on entry, stopped on exit."""

    def __init__(self, *, port: int | None = None) -> None:
        binary = redis_server_path()
        if binary is None:
            raise RuntimeError(INSTALL_HINT)
        self.binary = binary
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self._dir = tempfile.TemporaryDirectory(prefix="weblens-redis-")
        self._process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                self._dir.name,
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                error = self._process.stderr.read().decode(errors="replace") if self._process.stderr else ""
                raise RuntimeError(f"redis-server exited at start: {error.strip()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} within 10 s")

    def flush(self) -> None:
        """Forget every key (between tests)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            sock.recv(16)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process is not None and self._process.stderr is not None:
            self._process.stderr.close()
        self._process = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
