"""`weblens` run as a person runs it: in a real terminal (a pseudo-terminal), or piped.

`Terminal` starts the command with stdin and stdout on one pty (its controlling terminal,
so Ctrl-C is a real SIGINT from the line discipline) and stderr on another, so a test can
tell what went to stdout from what went to stderr while both are terminals.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator

import pytest

from weblens.testing.pages import PageServer

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
WEBLENS = [sys.executable, "-m", "weblens"]


def _new_session() -> None:
    """A fresh session with Ctrl-C and Ctrl-\\ as a shell gives them: a test run started in the background
    (`cmd &` without job control) ignores SIGINT, and a child would inherit that (serve would exit 0, chat would
    not stop an answer)."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def _controlling_tty() -> None:
    _new_session()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A command running in a terminal; `out` and `err` are what the person saw (ANSI removed)."""

    def __init__(self, args: list[str], env: dict[str, str], *, stdin_tty: bool = True) -> None:
        out_master, out_slave = pty.openpty()
        err_master, err_slave = pty.openpty()
        self._raw = {out_master: b"", err_master: b""}
        self._out, self._err = out_master, err_master
        self.proc = subprocess.Popen(
            [*WEBLENS, *args],
            stdin=out_slave if stdin_tty else subprocess.PIPE,
            stdout=out_slave,
            stderr=err_slave,
            env={**env, "COLUMNS": "160", "LINES": "50", "TERM": "xterm"},
            preexec_fn=_controlling_tty if stdin_tty else _new_session,
            close_fds=True,
        )
        os.close(out_slave)
        os.close(err_slave)

    def _pump(self, timeout: float) -> None:
        ready, _, _ = select.select(list(self._raw), [], [], timeout)
        for fd in ready:
            with contextlib.suppress(OSError):  # the other side closed (the process ended)
                self._raw[fd] += os.read(fd, 65536)

    @property
    def out(self) -> str:
        return ANSI.sub("", self._raw[self._out].decode(errors="replace"))

    @property
    def err(self) -> str:
        return ANSI.sub("", self._raw[self._err].decode(errors="replace"))

    def screen(self, lines: int = 200) -> list[str]:
        """stdout's terminal as a person sees it: the escape codes played on an emulator (pyte), so
        text a program redrew (a live render, a spinner) shows only as it was left."""
        import pyte

        screen = pyte.Screen(160, lines)
        stream = pyte.ByteStream(screen)
        stream.feed(self._raw[self._out].replace(b"\n", b"\r\n"))  # the pty's own translation (onlcr)
        return [line.rstrip() for line in screen.display]

    def expect(self, text: str, *, stream: str = "err", timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in (self.err if stream == "err" else self.out):
            assert time.monotonic() < deadline, f"{text!r} never appeared; out={self.out!r} err={self.err!r}"
            self._pump(0.05)

    def type(self, text: str) -> None:
        os.write(self._out, text.encode())

    def interrupt(self) -> None:
        """Ctrl-C, as typed."""
        self.type("\x03")

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            assert time.monotonic() < deadline, f"still running; out={self.out!r} err={self.err!r}"
            self._pump(0.05)
        self._pump(0.05)
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for fd in self._raw:
            os.close(fd)


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    started: list[Terminal] = []

    def start(*args: str, env: dict[str, str] | None = None, stdin_tty: bool = True) -> Terminal:
        running = Terminal(list(args), {**os.environ, **(env or {})}, stdin_tty=stdin_tty)
        started.append(running)
        return running

    yield start
    for running in started:
        running.close()


def piped(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`weblens ARGS` with stdout and stderr piped (a script, or `> file`)."""
    return subprocess.run(
        [*WEBLENS, *args], env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def run_piped() -> Callable[..., subprocess.CompletedProcess[str]]:
    return piped


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server
