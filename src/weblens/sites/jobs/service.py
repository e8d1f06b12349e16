"""`CrawlJobs`: what the server offers — start, look at, page through and cancel crawl jobs —
over SQLite in this process, or with Redis over the fleet's queue."""

from __future__ import annotations

from typing import Any, Protocol

from weblens.closing import AsyncClosing
from weblens.config import Settings
from weblens.errors import ToolValidationError
from weblens.fetch.fetcher import Fetcher
from weblens.sites.jobs.models import CrawlJob, JobSpec
from weblens.sites.jobs.store import JobStore, ResultKind
from weblens.store.base import SlotStore
from weblens.store.redis import RedisState

__all__ = ["MAX_RESULTS_PER_CALL", "CrawlJobs", "open_crawl_jobs"]

MAX_RESULTS_PER_CALL = 100


class Runner(Protocol):
    """Works the jobs: `LocalRunner` (asyncio tasks) or `FleetRunner` (taskiq on Redis)."""

    async def start(self) -> None: ...

    async def run(self, job_id: str) -> None: ...

    async def stop(self, job_id: str) -> None: ...

    async def aclose(self) -> None: ...


class CrawlJobs(AsyncClosing):
    def __init__(self, store: JobStore, runner: Runner, *, max_pages: int) -> None:
        self.store = store
        self.runner = runner
        self.max_pages = max_pages

    async def start(self) -> None:
        """Begin working jobs (and resume those a stopped server left)."""
        await self.runner.start()

    async def create(self, spec: JobSpec) -> CrawlJob:
        job = await self.store.create(spec.checked(self.max_pages))
        await self.runner.run(job.id)
        return job

    async def get(self, job_id: str) -> CrawlJob:
        return await self.store.get(job_id)

    async def jobs(self, limit: int = 50) -> list[CrawlJob]:
        return await self.store.jobs(limit)

    async def cancel(self, job_id: str) -> CrawlJob:
        job = await self.store.cancel(job_id)
        await self.runner.stop(job_id)
        return await self.store.get(job.id)

    async def delete(self, job_id: str) -> CrawlJob | None:
        """What `DELETE` does: a running job is cancelled (and returned), one that ended is removed
        with its results (None); either way `NotFoundError` for an unknown id."""
        if await self.store.remove(job_id):
            return None
        return await self.cancel(job_id)

    async def results(self, job_id: str, kind: ResultKind, offset: int, limit: int) -> list[dict[str, Any]]:
        if offset < 0 or not 1 <= limit <= MAX_RESULTS_PER_CALL:
            raise ToolValidationError(f"offset must be 0 or more and limit 1 to {MAX_RESULTS_PER_CALL}")
        return await self.store.results(job_id, kind, offset, limit)

    async def aclose(self) -> None:
        await self.runner.aclose()
        await self.store.aclose()


def open_crawl_jobs(
    settings: Settings, fetcher: Fetcher, *, redis: RedisState | None = None, slots: SlotStore | None = None
) -> CrawlJobs:
    """Jobs on SQLite (`crawl.job_path`) worked in this process, or given the runtime's `redis`
    (and its shared rate-limit `slots`) on Redis, worked by every replica through taskiq."""
    if redis is not None and slots is not None:
        from weblens.sites.client import SiteClient
        from weblens.sites.jobs.fleet import FleetRunner, fleet_gates
        from weblens.sites.jobs.redis_store import RedisJobStore

        lease_s = settings.crawl.job_lease_s
        assert settings.redis_url is not None
        shared = RedisJobStore(redis, lease_s=lease_s, keep_s=settings.crawl.job_keep_days * 86_400)
        client = SiteClient(fetcher, gates=fleet_gates(redis, slots, lease_s))
        runner = FleetRunner(shared, client, settings.redis_url.get_secret_value(), lease_s=lease_s)
        return CrawlJobs(shared, runner, max_pages=settings.crawl.job_max_pages)
    from weblens.sites.jobs.local import LocalRunner
    from weblens.sites.jobs.sqlite import SqliteJobStore

    local = SqliteJobStore(settings.crawl_jobs_path, keep_s=settings.crawl.job_keep_days * 86_400)
    return CrawlJobs(local, LocalRunner(local, fetcher), max_pages=settings.crawl.job_max_pages)
