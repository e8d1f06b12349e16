"""A spinner on stderr while long work runs: what is happening now and how long it has taken.

Shown only when stderr is a terminal, so a pipe or a log file never gets spinner frames,
and never on stdout, so `weblens fetch URL > page.md` keeps only the page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from weblens.cli.output import err_console
from weblens.progress import Progress, watching

__all__ = ["Activity", "LiveActivity", "activity"]


class Activity:
    """The spinner's text, rendered on every frame so the elapsed time keeps counting."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.step = ""
        self.started = time.monotonic()

    def restart(self, what: str) -> None:
        self.what, self.step, self.started = what, "", time.monotonic()

    def update(self, progress: Progress) -> None:
        self.step = progress.message

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        elapsed = time.monotonic() - self.started
        step = f": {self.step}" if self.step else ""
        yield Text(f"{self.what}{step} ({elapsed:.1f} s)", style="dim", no_wrap=True, overflow="ellipsis")


@contextmanager
def activity(what: str) -> Iterator[Activity]:
    """Show `what` (and the progress the work reports) on a terminal's stderr while the block runs."""
    shown = Activity(what)
    if not err_console.is_terminal:
        yield shown
        return
    with err_console.status(shown, spinner="dots"), watching(shown.update):
        yield shown


class LiveActivity:
    """A spinner that comes and goes while a chat answer streams: shown while waiting (the model
    thinking, a tool running), hidden while text is printed. Does nothing off a terminal."""

    def __init__(self) -> None:
        self.activity = Activity("")
        self._status = err_console.status(self.activity, spinner="dots") if err_console.is_terminal else None
        self._shown = False

    def show(self, what: str) -> None:
        self.activity.restart(what)
        if self._status is not None and not self._shown:
            self._status.start()
            self._shown = True

    def hide(self) -> None:
        if self._status is not None and self._shown:
            self._status.stop()
            self._shown = False
