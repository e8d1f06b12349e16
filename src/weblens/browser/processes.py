"""A launched browser's processes, found through /proc: their memory, and whether any is left.

Playwright does not say which processes a browser is made of. weblens gives each launch a
marker switch (Chromium ignores switches it does not know); the process carrying it is the
browser, and its descendants (zygotes, renderers, utilities) are the rest.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["browser_pids", "kill", "lower_priority", "rss_bytes"]

_PROC = Path("/proc")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _parents() -> dict[int, int]:
    found: dict[int, int] = {}
    for entry in _PROC.iterdir() if _PROC.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        found[int(entry.name)] = int(fields[1])
    return found


def _carries(pid: int, marker: str) -> bool:
    try:
        return marker.encode() in (_PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False


def browser_pids(marker: str) -> list[int]:
    """The processes of the browser launched with `marker`, the browser first; [] when none is left."""
    parents = _parents()
    roots = [pid for pid in parents if _carries(pid, marker)]
    found = list(roots)
    frontier = set(roots)
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier and pid not in found]
        found += children
        frontier = set(children)
    return found


def rss_bytes(pids: list[int]) -> int:
    """Resident memory of `pids` together (shared pages counted once per process, as `ps` does)."""
    total = 0
    for pid in pids:
        try:
            total += int((_PROC / str(pid) / "statm").read_text().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def kill(pids: list[int]) -> None:
    """SIGKILL each of `pids` (a browser that no longer answers)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


def lower_priority(pids: list[int], niceness: int) -> None:
    """Run `pids` at `niceness`: a page spinning in a loop then takes CPU only when the server
    (weblens' own event loop, at normal priority) does not need it. Renderers forked later by
    the browser's zygote inherit it."""
    for pid in pids:
        try:
            os.setpriority(os.PRIO_PROCESS, pid, max(os.getpriority(os.PRIO_PROCESS, pid), niceness))
        except (ProcessLookupError, PermissionError):
            continue
