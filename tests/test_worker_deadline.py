"""The worker pool's deadline counts the call's CPU time, not the wall clock since a worker
took it: a call that sleeps (no CPU) past its deadline runs on, and only the backstop of three
deadlines of wall-clock time stops it, saying what it measured (`time.sleep` stands in for a page
that waits)."""

from __future__ import annotations

import functools
import os
import time

import pytest

from weblens.workers import WorkerPool, WorkerTimeoutError

pytestmark = pytest.mark.timeout(60)

_DEADLINE = 1.5
"""Seconds of CPU time; the wall-clock backstop is three times this (4.5 s)."""


async def test_a_call_that_sleeps_past_its_deadline_is_not_killed_until_the_wall_backstop() -> None:
    async with WorkerPool(1) as pool:
        await pool.run(os.getpid, timeout=30)  # the worker is up: its start is not part of what follows
        started = time.monotonic()
        await pool.run(functools.partial(time.sleep, 2.5), timeout=_DEADLINE)  # wall > deadline, CPU ~ 0
        assert time.monotonic() - started >= 2.5
        started = time.monotonic()
        with pytest.raises(WorkerTimeoutError) as caught:
            await pool.run(functools.partial(time.sleep, 60), timeout=_DEADLINE)
        waited = time.monotonic() - started
    assert caught.value.details["measured"] == "wall_since_taken"
    assert "4.5 s since a worker took it" in caught.value.message
    assert 3 * _DEADLINE <= waited < 30
