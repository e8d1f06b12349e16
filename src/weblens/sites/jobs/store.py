"""What a crawl job's store must do, so one engine (`JobWorker`) runs jobs on SQLite in one
process or on Redis across a fleet. Every change to a job's counters is atomic in the store:
claims, the seen-set and results never race, whichever replica asks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from weblens.sites.crawl import CrawledPage, FailedPage
from weblens.sites.jobs.models import CrawlJob, JobItem, JobSpec, Verdict

__all__ = ["Found", "JobStore", "ResultKind"]

ResultKind = Literal["pages", "failed"]
Found = tuple[JobItem, str, str | None]
"""A URL to admit: (the item, its canonical key, the path it is a query variant of)."""


class JobStore(Protocol):
    name: str

    async def create(self, spec: JobSpec) -> CrawlJob: ...

    async def get(self, job_id: str) -> CrawlJob:
        """The job, or `NotFoundError`."""
        ...

    async def jobs(self, limit: int) -> list[CrawlJob]:
        """The newest jobs first."""
        ...

    async def cancel(self, job_id: str) -> CrawlJob:
        """Stop a running job (a finished one stays as it is)."""
        ...

    async def remove(self, job_id: str) -> bool:
        """Delete a job that ended, with everything it kept: True; False: it is running (cancel it first)."""
        ...

    async def results(self, job_id: str, kind: ResultKind, offset: int, limit: int) -> list[dict[str, Any]]: ...

    async def admit(
        self, job_id: str, found: Sequence[Found], *, again: bool = False, limit: int | None = None
    ) -> list[JobItem]:
        """Add to the seen-set and the frontier; returns the items not seen before (a path's query
        variants past the limit are skipped as traps; past `limit` URLs seen, new ones as queue_full).
        `again`: the page is read a second time (its first reader died), so also return the items seen
        but not yet claimed, to queue them again."""
        ...

    async def skip(self, job_id: str, reasons: Counter[str]) -> None: ...

    async def first_text(self, job_id: str, key: str, url_key: str) -> bool:
        """True the first time a page text's key is given, and whenever the same URL gives it again
        (its first reading was cut short); False: a duplicate of another URL's text."""
        ...

    async def claim(self, job_id: str, key: str, token: str = "", item: JobItem | None = None) -> Verdict:
        """`token` names the delivery: the same one again after its reader died gets "again", another
        one (a duplicate of a URL taken) "done" — unless the claim's lease ran out (its reader died)."""
        ...

    async def finish(
        self,
        job_id: str,
        key: str,
        *,
        page: CrawledPage | None = None,
        failure: FailedPage | None = None,
        skipped: str | None = None,
    ) -> None:
        """A claimed URL is settled: a page kept, a failure, a skip, or (none of them) read for links only."""
        ...

    async def seeded(self, job_id: str, limits: Sequence[str], error: str | None = None) -> None:
        """The start URL and the map are on the frontier (`error`: the job failed before that)."""
        ...

    async def aclose(self) -> None: ...
