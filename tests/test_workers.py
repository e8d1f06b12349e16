"""The worker pool: a call over its deadline kills its worker, a dead worker is an error and
a fresh worker, and the pool keeps answering (standard-library functions stand in for pages)."""

from __future__ import annotations

import asyncio
import ctypes
import functools
import operator
import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from weblens.errors import TooLargeError, WeblensError
from weblens.tool import define_tool
from weblens.workers import WorkerCrashedError, WorkerPool, WorkerTimeoutError

pytestmark = pytest.mark.timeout(120)


class _NoParams(BaseModel):
    pass


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:  # killed but not yet reaped by the forkserver
            return stat.read().split(") ", 1)[1].startswith("Z")
    except (FileNotFoundError, ProcessLookupError):  # reaped between the two looks
        return True


async def _wait_gone(pid: int) -> None:
    for _ in range(200):
        if _gone(pid):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"worker {pid} is still running")


async def test_a_call_runs_in_another_process_and_the_worker_is_kept() -> None:
    async with WorkerPool(1) as pool:
        assert pool.pids == []  # nothing starts before the first call
        first = await pool.run(os.getpid, timeout=30)
        assert first != os.getpid() and pool.pids == [first]
        assert await pool.run(os.getpid, timeout=30) == first


async def test_a_call_over_its_deadline_is_killed_and_its_worker_replaced() -> None:
    async with WorkerPool(1) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        started = time.monotonic()
        with pytest.raises(WorkerTimeoutError) as caught:
            await pool.run(functools.partial(time.sleep, 60), timeout=0.5)
        assert time.monotonic() - started < 10
        assert caught.value.code == "timeout" and "killed" in caught.value.message
        await _wait_gone(pid)
        replacement = await pool.run(os.getpid, timeout=30)
        assert replacement != pid
        assert await pool.run(functools.partial(operator.add, 2, 3), timeout=30) == 5


@pytest.mark.parametrize(
    "crash", [functools.partial(os._exit, 3), functools.partial(ctypes.string_at, 0)], ids=["exit", "segfault"]
)
async def test_a_worker_that_dies_is_an_error_and_a_fresh_worker(crash: functools.partial[object]) -> None:
    async with WorkerPool(1) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        with pytest.raises(WorkerCrashedError) as caught:
            await pool.run(crash, timeout=30)
        assert caught.value.code == "internal_error" and "died" in caught.value.message
        assert await pool.run(os.getpid, timeout=30) != pid


async def test_a_worker_killed_from_outside_is_replaced() -> None:
    async with WorkerPool(1) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        os.kill(pid, 9)
        await _wait_gone(pid)
        assert await pool.run(os.getpid, timeout=30) not in (pid, os.getpid())


async def test_errors_raised_in_a_worker_reach_the_caller() -> None:
    async with WorkerPool(1) as pool:
        with pytest.raises(ValueError, match="invalid literal"):
            await pool.run(functools.partial(int, "x"), timeout=30)
        assert await pool.run(functools.partial(int, "7"), timeout=30) == 7


async def test_cancelling_a_call_kills_its_worker() -> None:
    async with WorkerPool(1) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        task = asyncio.ensure_future(pool.run(functools.partial(time.sleep, 60), timeout=60))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await _wait_gone(pid)


async def test_calls_beyond_the_size_wait_for_a_worker() -> None:
    async with WorkerPool(2) as pool:
        started = time.monotonic()
        await asyncio.gather(*(pool.run(functools.partial(time.sleep, 0.3), timeout=30) for _ in range(6)))
        assert time.monotonic() - started >= 0.9  # three rounds of two: never more than two at once
        assert len(pool.pids) == 2


async def test_closing_stops_every_worker() -> None:
    pool = WorkerPool(2)
    await pool.warm()
    pids = pool.pids
    assert len(pids) == 2
    await pool.aclose()
    for pid in pids:
        await _wait_gone(pid)
    with pytest.raises(WeblensError, match="closed"):
        await pool.run(os.getpid, timeout=30)


async def test_size_zero_runs_in_a_thread() -> None:
    async with WorkerPool(0) as pool:
        assert await pool.run(os.getpid, timeout=30) == os.getpid()
        assert pool.pids == []


SCRIPT_WITHOUT_A_MAIN_GUARD = """
import asyncio, functools
from weblens.workers import WorkerPool
from weblens.fetch.extract import extract

print("top-level code ran")
HTML = b"<html><body><article>" + b"<p>A paragraph of words that a reader keeps.</p>" * 20 + b"</article></body></html>"

async def main():
    async with WorkerPool(2) as pool:
        call = functools.partial(extract, HTML, "text/html", "https://a.example/", raw=False)
        found = await pool.run(call, timeout=60)
        print("extracted", len(found.content) > 0)

asyncio.run(main())
"""


def test_a_script_without_a_main_guard_is_not_run_again_in_the_workers(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SCRIPT_WITHOUT_A_MAIN_GUARD))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=110, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["top-level code ran", "extracted True"]


async def test_a_call_over_the_memory_limit_is_too_large_and_a_fresh_worker() -> None:
    async with WorkerPool(1, memory_mb=64) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        assert await pool.run(functools.partial(bytes, 8 << 20), timeout=30) == bytes(8 << 20)  # within the limit
        with pytest.raises(TooLargeError) as caught:
            await pool.run(functools.partial(bytearray, 256 << 20), timeout=30)
        assert caught.value.code == "too_large" and "64 MB" in caught.value.message
        await _wait_gone(pid)
        assert await pool.run(os.getpid, timeout=30) != pid


async def test_an_ordinary_error_under_a_memory_limit_is_not_too_large() -> None:
    async with WorkerPool(1, memory_mb=64) as pool:
        pid = await pool.run(os.getpid, timeout=30)
        with pytest.raises(ValueError):
            await pool.run(functools.partial(int, "not a number"), timeout=30)
        assert await pool.run(os.getpid, timeout=30) == pid


async def test_size_zero_counts_the_deadline_from_when_a_thread_starts_the_call() -> None:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=1))
    async with WorkerPool(0) as pool:
        taken = loop.run_in_executor(None, time.sleep, 0.6)  # the only thread is busy
        # waiting ~0.6 s for the thread is not the call's time: its own 0.1 s fits its 0.4 s deadline
        await pool.run(functools.partial(time.sleep, 0.1), timeout=0.4)
        await taken


async def test_size_zero_counts_a_thread_until_it_ends_even_past_its_deadline() -> None:
    async with WorkerPool(0) as pool:
        assert pool.threads_busy == 0
        with pytest.raises(WorkerTimeoutError) as caught:
            await pool.run(functools.partial(time.sleep, 0.6), timeout=0.1)
        assert pool.threads_busy == 1  # a thread cannot be stopped: it runs on
        for _ in range(200):
            if pool.threads_busy == 0:
                break
            await asyncio.sleep(0.02)
        assert pool.threads_busy == 0
    assert caught.value.details["measured"] == "wall_in_thread"
    assert "since its thread started it" in caught.value.message


async def test_a_tool_call_s_deadline_does_not_count_the_wait_for_a_free_worker() -> None:
    async with WorkerPool(1) as pool:
        await pool.run(os.getpid, timeout=30)  # the worker is up

        async def work(params: _NoParams) -> float:
            await pool.run(functools.partial(time.sleep, 0.3), timeout=10)
            return 0.3

        tool = define_tool(name="work", description="Sleeps in a worker.", input_schema=_NoParams, execute=work,
                           timeout=1.0)  # fmt: skip
        results = await asyncio.gather(*(tool.execute({}) for _ in range(5)))  # the last waits ~1.2 s
    assert all(result.ok for result in results), [result.error for result in results]
