"""A real PostgreSQL server on a free loopback port in a temporary directory, for tests.

Debian's `postgresql` package provides the binaries (`apt-get install -y postgresql`);
`PostgresServer.find()` returns None without them, so tests can skip saying how to
install them. `initdb` and `postgres` refuse to run as root: as root they run as the
`postgres` user in a directory it owns. Each test gets its own database
(`create_database()`), so one server serves a whole test session.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from weblens.testing.replicas import free_port

__all__ = ["INSTALL_HINT", "PostgresCommandError", "PostgresServer"]

INSTALL_HINT = "PostgreSQL is not installed: `apt-get install -y postgresql` (Debian) to run the PostgreSQL tests"
_START_TIMEOUT_S = 30.0
_CREATE_ATTEMPTS = 4
"""Tries of `CREATE DATABASE` (a transient refusal, such as no free connection, is waited out)."""
_LOG_TAIL_CHARS = 2000


class PostgresCommandError(RuntimeError):
    """A psql command failed; the message carries psql's stderr and the end of the server's log."""


class PostgresServer:
    """`start()` runs initdb and postgres; `stop()` stops it and removes its directory."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="weblens-pg-"))
        self.datadir = self.root / "data"
        self.log = self.root / "server.log"
        self._user = "postgres" if os.geteuid() == 0 else None
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def find(cls) -> PostgresServer | None:
        """A server using the newest installed PostgreSQL, or None when none is installed."""
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(Path(p).parts[-3]))
        if found:
            return cls(Path(found[-1]).parent)
        on_path = shutil.which("postgres")
        return cls(Path(on_path).parent) if on_path else None

    def _command(self, *argv: str) -> list[str]:
        return ["runuser", "-u", self._user, "--", *argv] if self._user else list(argv)

    def start(self) -> PostgresServer:
        if self._user:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            self._command(
                str(self.bindir / "initdb"),
                "-D",
                str(self.datadir),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ),
            check=True,
            capture_output=True,
        )
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                self._command(
                    str(self.bindir / "postgres"),
                    "-D",
                    str(self.datadir),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"unix_socket_directories={self.root}",
                    "-c",
                    "fsync=off",
                    "-c",
                    "max_connections=200",
                ),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while True:
            ready = subprocess.run(
                [str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)], capture_output=True
            )
            if ready.returncode == 0:
                return self
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the test PostgreSQL server did not start")
            time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-_LOG_TAIL_CHARS:]
        except OSError:
            return ""

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run one statement with psql as the superuser; its output, or `PostgresCommandError` saying why not."""
        done = subprocess.run(
            [
                str(self.bindir / "psql"),
                "-X",
                "-q",
                "-t",
                "-A",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                self.url(database),
                "-c",
                statement,
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise PostgresCommandError(
                f"psql exited with {done.returncode} running {statement!r}: {done.stderr.strip() or '(no stderr)'}"
                f"\n-- end of the server's log --\n{self._log_tail()}"
            )
        return done.stdout.strip()

    def create_database(self) -> str:
        """A new empty database (a copy of `template0`); its URL."""
        name = "t_" + uuid.uuid4().hex[:12]
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                self.sql(f"CREATE DATABASE {name} TEMPLATE template0")
                break
            except PostgresCommandError:
                if attempt == _CREATE_ATTEMPTS - 1:
                    raise
                time.sleep(0.25 * 2**attempt)
        return self.url(name)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()  # "smart" shutdown would wait for clients; SIGTERM is "fast"
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
