"""A small pool of worker processes for CPU-heavy work, each call under a hard deadline.

Extraction libraries (trafilatura, lxml, pypdf) hold the GIL, so in a thread they stall the
event loop and use one core. Here each call runs in a worker process; when it outlasts its
deadline (or its caller is cancelled) that one worker is killed with SIGKILL and replaced,
and a worker that dies (segfault, out of memory) is an error for its call and a fresh
worker for the next. `concurrent.futures.ProcessPoolExecutor` can do neither: it cannot
stop one task, and one dead worker breaks the whole pool.

Workers start with the `forkserver` method: a clean server process (no threads, no event
loop) imports the `preload` modules once and forks each worker from there, so a worker is
ready in milliseconds and shares those modules' memory. Nothing starts until the first
call (or `warm()`). A call is a module-level function (or a `functools.partial` of one) with
picklable arguments and result; a `WeblensError` raised in the worker is raised to the caller as is.
Workers never re-import the program's `__main__` (multiprocessing's usual preparation), so
a script that calls `weblens.fetch` at top level, without an `if __name__ == "__main__":`
guard, is not run again in each worker: calls only name functions in weblens' modules.
`size=0` runs calls in a thread instead (for debuggers and profilers): no hard deadline
then — the caller gets its timeout, counted from when the thread starts the call, but the
thread runs on (`threads_busy` counts it until it ends).

Memory: with `memory_mb`, a worker may grow its address space by that much beyond what it
holds when it starts (`RLIMIT_AS`, set in the worker after the fork). An allocation past it
fails inside the worker — Python's `MemoryError`, or libxml2's `ERR_NO_MEMORY` that lxml
reports as a parse error — and the call is `WorkerMemoryError` (`too_large`), its worker
replaced. Measured: `RLIMIT_DATA` also stops lxml, but `RLIMIT_AS` leaves a peak
(`VmPeak`) to recognise the failure by. Every worker also asks the kernel to kill it first
under memory pressure (`oom_score_adj` 1000), so the server survives a page that does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import resource
import signal
import socket
import struct
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from weblens.closing import AsyncClosing
from weblens.errors import TooLargeError, ToolTimeoutError, WeblensError
from weblens.tool import deadline_paused

__all__ = [
    "WorkerCrashedError",
    "WorkerMemoryError",
    "WorkerPool",
    "WorkerTimeoutError",
    "default_memory_mb",
    "default_size",
]

T = TypeVar("T")

_HEADER = struct.Struct("!Q")
_READY = b"R"
_TAKEN = b"T"
"""A worker's word that it has read a call: a worker dead before it is not that call's doing."""
_HANDOVER_TRIES = 3
_START_TIMEOUT_S = 60.0
"""How long a new worker may take to say it is ready (the first start also boots the forkserver)."""
_JOIN_TIMEOUT_S = 5.0
_KEEP = b"K"
_OVER_MEMORY = b"M"
"""The first byte of an answer: keep the worker, or it ran out of its memory (replace it)."""
_PEAK_SLACK = 16 * 1024 * 1024
"""A failed call whose address-space peak came this close to the limit ran out of memory."""
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_POLL_S = 0.05
"""How often a running call's CPU time is read."""
_WALL_FACTOR = 3.0
"""A call's wall-clock backstop, in deadlines: work that sleeps, or a machine too busy to run it."""
_OOM_SCORE_ADJ = "1000"
"""The most a process may raise its own score: the kernel's first choice under memory pressure."""
_WAITING = "a free worker"
"""What a call waits for before its work starts: not counted against the calling tool's deadline."""


class WorkerTimeoutError(ToolTimeoutError):
    """A call outlasted its deadline; its worker was killed."""

    default_retryable = False


class WorkerCrashedError(WeblensError):
    """The worker running a call died (a crash, a signal, out of memory) or could not start."""


class WorkerMemoryError(TooLargeError):
    """A call needed more memory than a worker may use; its worker was replaced."""

    default_retryable = False


def default_size() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _machine_memory() -> int:
    """Bytes this process may use: the machine's memory, or its cgroup's limit when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    with contextlib.suppress(OSError, ValueError):
        with open("/sys/fs/cgroup/memory.max") as limit:
            text = limit.read().strip()
        if text != "max":
            total = min(total, int(text))
    return total


def default_memory_mb(workers: int) -> int:
    """Half the machine's memory shared by the workers, each between 256 MB and 2 GB: every
    worker at its limit still leaves the server and the system half the machine."""
    share = _machine_memory() // 2 // max(1, workers) >> 20
    return max(256, min(2048, share))


# -- the worker side ---------------------------------------------------------------------


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(buffer)


def _status_kib(field: str) -> int:
    """A `VmSize`-like field of /proc/self/status, in KiB (0 where there is none)."""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _limit_memory(extra: int) -> int | None:
    """Cap this process's address space at what it holds now plus `extra` bytes; the cap, or
    None where it cannot be set."""
    limit = _status_kib("VmSize") * 1024 + extra
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError):
        return None
    return limit


def _ran_out(exc: BaseException, limit: int | None) -> bool:
    """Whether a failed call failed for want of memory: a MemoryError on the way, libxml2's
    ERR_NO_MEMORY in an lxml error's log, or an address-space peak at the cap."""
    seen: BaseException | None = exc
    for _ in range(8):  # the exception, what caused it, what it was raised while handling
        if seen is None:
            break
        if isinstance(seen, MemoryError):
            return True
        log = getattr(seen, "error_log", None)
        if log is not None and any(getattr(entry, "type_name", "") == "ERR_NO_MEMORY" for entry in log):
            return True
        seen = seen.__cause__ or seen.__context__
    return limit is not None and _status_kib("VmPeak") * 1024 >= limit - _PEAK_SLACK


def _answer(call: bytes, limit: int | None) -> bytes:
    """Run one pickled call; a flag byte, then its result or its exception, pickled."""
    try:
        outcome: tuple[bool, Any] = (True, pickle.loads(call)())
    except Exception as exc:  # the caller decides what an error means
        outcome = (False, exc)
        if _ran_out(exc, limit):
            return _OVER_MEMORY
    try:
        return _KEEP + pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # an unpicklable result or exception
        if _ran_out(exc, limit):
            return _OVER_MEMORY
        failed = WeblensError(f"a worker's answer could not be sent back: {type(exc).__name__}: {exc}")
        return _KEEP + pickle.dumps((False, failed), protocol=pickle.HIGHEST_PROTOCOL)


def _serve(sock: socket.socket, memory_bytes: int | None = None) -> None:
    """A worker's life: answer calls on `sock` until the pool closes it (or goes away)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server; it stops the workers
    os.dup2(2, 1)  # stdout may be the server's protocol channel (MCP over stdio): never write there
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write(_OOM_SCORE_ADJ)
    limit = _limit_memory(memory_bytes) if memory_bytes else None
    with contextlib.suppress(OSError):  # the pool went away (closed, or gave up waiting): just end
        sock.sendall(_READY)
        while True:
            header = _recv_exactly(sock, _HEADER.size)
            if header is None:
                return
            call = _recv_exactly(sock, _HEADER.unpack(header)[0])
            if call is None:
                return
            sock.sendall(_TAKEN)
            answer = _answer(call, limit)
            sock.sendall(_HEADER.pack(len(answer)))
            sock.sendall(answer)


# -- the pool side -----------------------------------------------------------------------


class _Worker:
    def __init__(self, process: BaseProcess, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.process = process
        self.reader = reader
        self.writer = writer
        self.loop = asyncio.get_running_loop()

    async def hand_over(self, payload: bytes) -> bool:
        """Hand the worker a call; False if it died (or hung) before reading it (killed while idle, say)."""
        try:
            async with asyncio.timeout(_START_TIMEOUT_S):
                self.writer.write(_HEADER.pack(len(payload)))
                self.writer.write(payload)
                await self.writer.drain()
                return await self.reader.readexactly(len(_TAKEN)) == _TAKEN
        except (asyncio.IncompleteReadError, ConnectionError, OSError, TimeoutError):
            return False

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the worker process has used so far; 0 where it cannot be read."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{self.process.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        return 0.0

    async def receive(self) -> bytes:
        (size,) = _HEADER.unpack(await self.reader.readexactly(_HEADER.size))
        return await self.reader.readexactly(size)

    def kill(self) -> None:
        _kill(self.process)
        self.writer.transport.abort()

    def exit_status(self) -> str:
        """How the process ended, for an error message (it may take a moment to be known)."""
        self.process.join(1.0)
        code = self.process.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-code).name}"
            return f"killed by signal {-code}"
        return f"exited with status {code}"


_MAIN_LOCK = threading.Lock()


@contextlib.contextmanager
def _main_unnamed() -> Iterator[None]:
    """While a worker starts, `__main__` names no file or module, so multiprocessing does not
    tell the worker to import (and so re-run) the user's script."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _MAIN_LOCK:
        saved: dict[str, Any] = {key: main.__dict__[key] for key in ("__file__", "__spec__") if key in main.__dict__}
        main.__dict__.pop("__file__", None)
        main.__dict__["__spec__"] = None
        try:
            yield
        finally:
            main.__dict__.pop("__spec__", None)
            main.__dict__.update(saved)


def _start_process(process: BaseProcess) -> None:
    with _main_unnamed():
        process.start()


def _boot_forkserver_deaf_to_ctrl_c() -> None:
    """Boot the forkserver (if it is not running) with SIGINT ignored, which it inherits: a
    Ctrl-C at the terminal reaches the whole process group, and a forkserver still importing
    its preloads would print a KeyboardInterrupt traceback. (Once booted it ignores SIGINT
    itself, and so do its workers.) Only the main thread may change a signal's handler."""
    if threading.current_thread() is not threading.main_thread():
        return
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _main_unnamed():
            multiprocessing.forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, handler)


def _drop_outcome(task: asyncio.Future[Any]) -> None:
    """Mark the outcome of a thread's call seen: its caller may have stopped waiting for it."""
    if not task.cancelled():
        task.exception()


def _kill(process: BaseProcess) -> None:
    with contextlib.suppress(Exception):  # already gone, or never started
        process.kill()


def _kill_all(processes: set[BaseProcess]) -> None:
    """Finalizer: a pool dropped without `aclose()` leaves no process behind."""
    for process in list(processes):
        _kill(process)
    processes.clear()


class WorkerPool(AsyncClosing):
    """Up to `size` worker processes, started on first use and kept warm; see the module docstring.

    `preload` names modules the forkserver imports once for every worker (the heavy
    libraries the calls use). `memory_mb` is what a worker may allocate beyond its start
    (None or 0: no limit). A pool belongs to one event loop at a time; used from another,
    it starts fresh workers there.
    """

    def __init__(
        self,
        size: int | None = None,
        *,
        preload: Sequence[str] = (),
        start_method: str = "forkserver",
        memory_mb: int | None = None,
    ):
        self.size = default_size() if size is None else size
        if self.size < 0:
            raise ValueError("a worker pool's size must be 0 (run in a thread) or more")
        if memory_mb is not None and memory_mb < 0:
            raise ValueError("a worker's memory limit must be 0 (none) or more megabytes")
        self.memory_mb = memory_mb or None
        self._context: Any = multiprocessing.get_context(start_method)
        self._forkserver = start_method == "forkserver"
        self._preload = list(preload)
        self._processes: set[BaseProcess] = set()
        self._idle: asyncio.Queue[_Worker | None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._count = 0  # workers alive or starting for this loop
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._finalizer = weakref.finalize(self, _kill_all, self._processes)
        self._threads = 0
        self._threads_lock = threading.Lock()

    @property
    def threads_busy(self) -> int:
        """Calls of a thread pool (`size=0`) not yet ended, each counted until its thread ends it,
        even after its caller's timeout (a thread cannot be stopped)."""
        return self._threads

    @property
    def pids(self) -> list[int]:
        """The process ids of the live workers (for tests and benchmarks)."""
        return sorted(p.pid for p in self._processes if p.pid is not None and p.is_alive())

    async def run(self, call: Callable[[], T], *, timeout: float) -> T:
        """`call()` in a worker, killed after `timeout` seconds. `call` is a module-level
        function or a `functools.partial` of one, with picklable arguments. Raises
        `WorkerTimeoutError`, `WorkerCrashedError`, or what `call` raised."""
        if timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        if self._closed:
            raise WeblensError("the worker pool is closed")
        if self.size == 0:
            return await self._in_thread(call, float(timeout))
        payload = pickle.dumps(call, protocol=pickle.HIGHEST_PROTOCOL)
        answer = await self._call(payload, float(timeout))
        try:
            ok, value = pickle.loads(answer)
        except Exception as exc:
            raise WeblensError(f"a worker's answer could not be read: {type(exc).__name__}: {exc}") from None
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    async def warm(self) -> None:
        """Start every worker now (a server does this after it binds), so no call waits for one."""
        if self.size == 0 or self._closed:
            return
        queue = self._bind()
        starting = max(0, self.size - self._count)
        self._count += starting
        results = await asyncio.gather(*(self._start() for _ in range(starting)), return_exceptions=True)
        for result in results:
            if isinstance(result, _Worker):
                queue.put_nowait(result)
            else:
                self._count -= 1

    async def aclose(self) -> None:
        """Stop every worker; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        processes = list(self._processes)
        self._finalizer()  # kills them all
        for process in processes:
            await asyncio.to_thread(process.join, _JOIN_TIMEOUT_S)
        if self._idle is not None:
            while not self._idle.empty():
                worker = self._idle.get_nowait()
                if worker is not None:
                    worker.writer.transport.abort()

    # -- internals -------------------------------------------------------------------------

    async def _in_thread(self, call: Callable[[], T], timeout: float) -> T:
        """`call()` in a thread, its deadline counted from when the thread starts it (time waiting
        for a free thread is not the call's); past it the caller gets its timeout, the thread runs on."""
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def counted() -> T:
            try:
                loop.call_soon_threadsafe(started.set)
                return call()
            finally:
                with self._threads_lock:
                    self._threads -= 1

        with self._threads_lock:
            self._threads += 1
        try:  # never cancelled, so `counted` runs and ends its count; an answer no caller awaits is dropped
            running: asyncio.Future[T] = loop.run_in_executor(None, contextvars.copy_context().run, counted)
        except BaseException:  # the loop's executor is shut down: nothing will run
            with self._threads_lock:
                self._threads -= 1
            raise
        running.add_done_callback(_drop_outcome)
        waiting = asyncio.ensure_future(started.wait())
        first: set[asyncio.Future[Any]] = {running, waiting}
        try:
            with deadline_paused(_WAITING):
                await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
            await asyncio.wait({running}, timeout=timeout)
        finally:
            waiting.cancel()
        if running.done():
            return running.result()
        raise WorkerTimeoutError(
            f"the work took longer than {timeout:g} s (wall-clock time since its thread started it, in this "
            "process; time waiting for a free thread is not counted)",
            details={"measured": "wall_in_thread", "limit_s": timeout},
        )

    def _bind(self) -> asyncio.Queue[_Worker | None]:
        """The idle queue for the running loop; workers made for another loop are let go."""
        loop = asyncio.get_running_loop()
        if self._idle is None or self._loop is not loop:
            if self._idle is not None:
                while not self._idle.empty():
                    worker = self._idle.get_nowait()
                    if worker is not None:
                        self._forget(worker)
            self._idle, self._loop, self._count = asyncio.Queue(), loop, 0
        return self._idle

    async def _call(self, payload: bytes, timeout: float) -> bytes:
        with deadline_paused(_WAITING):
            worker = await self._acquire()
        done = False
        try:
            for _ in range(_HANDOVER_TRIES):  # a worker that died before reading the call: another one
                if await worker.hand_over(payload):
                    break
                self._forget(worker)
                self._count -= 1
                with deadline_paused(_WAITING):
                    worker = await self._acquire()
            else:
                raise ConnectionError("no worker took the call")
            answer = await self._answer_within(worker, timeout)
            if answer[:1] == _OVER_MEMORY:
                raise WorkerMemoryError(
                    f"the work needed more than a worker's memory limit of {self.memory_mb} MB "
                    "(fetch.worker_memory_mb); its worker process was replaced",
                    details={"worker_memory_mb": self.memory_mb},
                )
            done = True
            return answer[1:]
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            worker.kill()
            status = await asyncio.to_thread(worker.exit_status)
            raise WorkerCrashedError(f"the worker process died ({status})") from None
        finally:
            if done:
                self._release(worker)
            else:  # timed out, crashed or cancelled: the work must not run on
                self._replace(worker)

    async def _answer_within(self, worker: _Worker, timeout: float) -> bytes:
        """The worker's answer, once it has taken the call. The deadline is the call's own work:
        `timeout` seconds of the worker's CPU time, counted from when it took the call, so time
        spent waiting for a free worker, or for a core on a busy machine, is not the page's
        fault; `_WALL_FACTOR` deadlines of wall-clock time since it took the call stop work
        that does not use the CPU (or cannot get it)."""
        loop = asyncio.get_running_loop()
        receiving = loop.create_task(worker.receive())
        taken, cpu_at_start = loop.time(), worker.cpu_seconds()
        try:
            while True:
                left = taken + timeout * _WALL_FACTOR - loop.time()
                if left <= 0:
                    raise WorkerTimeoutError(
                        f"the work ran {timeout * _WALL_FACTOR:g} s since a worker took it without finishing "
                        f"({worker.cpu_seconds() - cpu_at_start:.1f} s of CPU time; the limit is {timeout:g} s "
                        "of CPU, or three times that since a worker took it; time waiting for a free worker is not "
                        "counted); its worker process was killed",
                        details={"measured": "wall_since_taken", "limit_s": timeout},
                    )
                await asyncio.wait({receiving}, timeout=min(_POLL_S, left))
                if receiving.done():
                    return receiving.result()
                if worker.cpu_seconds() - cpu_at_start > timeout:
                    raise WorkerTimeoutError(
                        f"the work used more than {timeout:g} s of CPU time in its worker (counted from when "
                        "the worker took it; time waiting for a free worker is not counted); "
                        "its worker process was killed",
                        details={"measured": "cpu_time", "limit_s": timeout},
                    )
        finally:
            receiving.cancel()  # a no-op once answered; otherwise the worker is replaced by the caller

    async def _acquire(self) -> _Worker:
        queue = self._bind()
        while True:
            if not queue.empty():
                worker = queue.get_nowait()
            elif self._count < self.size:
                self._count += 1
                try:
                    return await self._start()
                except BaseException:
                    self._count -= 1
                    raise
            else:
                worker = await queue.get()
            if worker is None:  # a replacement failed to start: try (and report) a start here
                continue
            if not worker.reader.at_eof() and worker.process.is_alive():
                return worker
            self._forget(worker)  # died while idle
            self._count -= 1

    def _release(self, worker: _Worker) -> None:
        if self._idle is not None and worker.loop is self._loop and not self._closed:
            self._idle.put_nowait(worker)
        else:
            self._forget(worker)

    def _forget(self, worker: _Worker) -> None:
        worker.kill()
        self._processes.discard(worker.process)

    def _replace(self, worker: _Worker) -> None:
        """Kill `worker` and start another in the background, so the pool stays warm."""
        self._forget(worker)
        if self._closed or worker.loop is not self._loop or self._idle is None:
            return
        task = asyncio.get_running_loop().create_task(self._start_replacement(self._idle))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_replacement(self, queue: asyncio.Queue[_Worker | None]) -> None:
        try:
            worker = await self._start()
        except Exception:
            self._count -= 1
            queue.put_nowait(None)  # wakes a waiter, which starts (and reports) a worker itself
            return
        if self._closed or queue is not self._idle:
            self._forget(worker)
            return
        queue.put_nowait(worker)

    async def _start(self) -> _Worker:
        if self._preload and self._forkserver:
            self._context.set_forkserver_preload(self._preload)
        if self._forkserver:
            _boot_forkserver_deaf_to_ctrl_c()  # about a second, once per process
        ours, theirs = socket.socketpair()
        memory = self.memory_mb << 20 if self.memory_mb else None
        process = self._context.Process(target=_serve, args=(theirs, memory), daemon=True, name="weblens-worker")
        try:
            # the first start boots the forkserver (about a second): not on the event loop
            await asyncio.to_thread(_start_process, process)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._processes.add(process)
        try:
            reader, writer = await asyncio.open_unix_connection(sock=ours)
        except BaseException:
            ours.close()
            _kill(process)
            raise
        worker = _Worker(process, reader, writer)
        try:
            async with asyncio.timeout(_START_TIMEOUT_S):
                ready = await reader.readexactly(len(_READY))
            if ready != _READY:
                raise ConnectionError("unexpected greeting")
        except BaseException as exc:
            self._forget(worker)
            if isinstance(exc, Exception):
                raise WorkerCrashedError(f"a worker process did not start: {type(exc).__name__}") from None
            raise
        if self._closed:
            self._forget(worker)
            raise WeblensError("the worker pool is closed")
        return worker
