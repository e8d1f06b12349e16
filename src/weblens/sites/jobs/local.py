"""Crawl jobs in this process: one asyncio task per running job, working its SQLite frontier.

Each job has its own `SiteClient`, so its hosts get the politeness of `web_crawl` (2 requests
in flight per host, `Crawl-delay`, 429 back-off). A job stopped with the server (its task
cancelled) is picked up where it stood by the next `start()` on the same file. Jobs that ended
are deleted once past their keep time, at start and then every `PURGE_S` at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3

from weblens.fetch.fetcher import Fetcher
from weblens.sites.client import DEFAULT_CONCURRENCY, SiteClient
from weblens.sites.jobs.models import JobItem
from weblens.sites.jobs.sqlite import SqliteJobStore
from weblens.sites.jobs.work import JobWorker

__all__ = ["LocalRunner"]

log = logging.getLogger("weblens.sites.jobs")
READING = DEFAULT_CONCURRENCY * 2
"""URLs a job reads at once: enough to keep every slot of its host busy while pages are read."""
PURGE_S = 3600.0


class LocalRunner:
    def __init__(self, store: SqliteJobStore, fetcher: Fetcher) -> None:
        self.store = store
        self.fetcher = fetcher
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._purging: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Resume the jobs a stopped server left unfinished, and remove those kept long enough."""
        await self.store.purge()
        for job_id in await self.store.unfinished():
            await self.run(job_id)
        self._purging = asyncio.create_task(self._purge(), name="crawl job retention")

    async def _purge(self) -> None:
        """Until closed: delete the jobs past their keep time (the API hides them already)."""
        while True:
            await asyncio.sleep(min(PURGE_S, self.store.keep_s / 2))
            try:
                await self.store.purge()
            except (OSError, sqlite3.Error) as exc:
                log.warning("crawl jobs: removing old jobs failed: %s", exc)

    async def run(self, job_id: str) -> None:
        if job_id not in self._tasks:
            task = asyncio.create_task(self._run(job_id), name=f"crawl job {job_id}")
            self._tasks[job_id] = task
            task.add_done_callback(lambda _: self._tasks.pop(job_id, None))

    async def stop(self, job_id: str) -> None:
        """Stop reading `job_id` now (the job was cancelled)."""
        task = self._tasks.get(job_id)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def aclose(self) -> None:
        tasks = [*self._tasks.values(), *([self._purging] if self._purging else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, job_id: str) -> None:
        worker = JobWorker(self.store, SiteClient(self.fetcher))
        try:
            await self._work(job_id, worker)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("crawl job %s stopped on an error", job_id)

    async def _work(self, job_id: str, worker: JobWorker) -> None:
        if not await self.store.is_seeded(job_id):
            await worker.seed(job_id)
        reading: set[asyncio.Task[list[JobItem]]] = set()
        limit: str | None = None
        try:
            while True:
                stop = False
                while not stop and len(reading) < READING:
                    items = await self.store.queued(job_id, READING - len(reading))
                    for item in items:
                        verdict = await worker.take(job_id, item)
                        if verdict in ("go", "again"):
                            reading.add(asyncio.create_task(worker.read(job_id, item)))
                        elif verdict in ("done",):
                            continue
                        else:  # wait, full, stop: nothing more to claim until a page in flight settles
                            stop = True
                            if verdict == "stop":
                                return
                            if verdict == "full":
                                limit = "the max_pages or download budget was spent"
                            break
                    if not items:
                        break
                if not reading:
                    break
                done, reading = await asyncio.wait(reading, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task.exception() is not None:  # the store failed: the URL stays claimed until a restart
                        log.error("crawl job %s: %s", job_id, task.exception())
        finally:
            for task in reading:
                task.cancel()
            await asyncio.gather(*reading, return_exceptions=True)
        await self.store.complete(job_id, limit)
