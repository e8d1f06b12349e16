"""`JobWorker`: seeding a job from the site's map and reading one URL of it, over a store.

The same code runs a job in one process (SQLite, `LocalRunner`) and in a fleet (Redis, taskiq):
only the store and the gates differ. Every download goes through `SiteClient` — the guard,
policy, robots.txt, `Crawl-delay`, per-host slots and 429 back-off of `web_crawl`.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from weblens.errors import WeblensError
from weblens.sites.client import SiteClient
from weblens.sites.crawl import FailedPage, download_page, read_page, text_key
from weblens.sites.jobs.models import JobItem, JobSpec, Verdict
from weblens.sites.jobs.store import Found, JobStore
from weblens.sites.map import MAX_MAP_URLS, SiteMapper
from weblens.sites.relevance import Relevance
from weblens.sites.scope import Scope, variant_of
from weblens.urls import canonical_url

__all__ = ["Enqueue", "JobWorker"]

Enqueue = Callable[[str, list[JobItem]], Awaitable[None]]
"""Queue a job's new URLs (a fleet's task queue); None where the store's frontier is the queue."""

_SEEDS_PER_PAGE = 5
_SPECS_KEPT = 64


class _Plan:
    """A job's spec with what is built from it once: its scope and relevance."""

    def __init__(self, spec: JobSpec) -> None:
        self.spec = spec
        self.scope: Scope = spec.scope()
        self.relevance = Relevance(spec.query) if spec.query else None


class JobWorker:
    """Reads jobs' URLs through one `SiteClient` (its gates: this process's, or the fleet's)."""

    def __init__(self, store: JobStore, client: SiteClient, enqueue: Enqueue | None = None) -> None:
        self.store = store
        self.client = client
        self.enqueue = enqueue
        self._plans: OrderedDict[str, _Plan] = OrderedDict()

    async def plan(self, job_id: str) -> _Plan:
        plan = self._plans.get(job_id)
        if plan is None:
            plan = self._plans[job_id] = _Plan((await self.store.get(job_id)).spec)
            if len(self._plans) > _SPECS_KEPT:
                self._plans.popitem(last=False)
        return plan

    async def _admit(
        self, job_id: str, plan: _Plan, links: Sequence[tuple[str, str | None]], depth: int, again: bool = False
    ) -> list[JobItem]:
        found: list[Found] = []
        skipped: Counter[str] = Counter()
        for url, text in links:
            refusal = plan.scope.refusal(url)
            if refusal is not None:
                skipped[refusal] += 1
                continue
            score = plan.relevance.score(url, text) if plan.relevance is not None else 0.0
            key = canonical_url(url)
            found.append((JobItem(url, depth, score), key, variant_of(key)))
        if skipped:
            await self.store.skip(job_id, skipped)
        new = await self.store.admit(job_id, found, again=again, limit=plan.spec.max_frontier) if found else []
        if new and self.enqueue is not None:  # before the page is settled: a reader dying here loses nothing
            await self.enqueue(job_id, new)
        return new

    async def seed(self, job_id: str, *, again: bool = False) -> list[JobItem]:
        """Put the start URL and the site's map (sitemaps, llms.txt) on the frontier; returns what is new."""
        plan = await self.plan(job_id)
        spec = plan.spec
        new = await self.store.admit(job_id, [(JobItem(spec.url, 0, 1.0), canonical_url(spec.url), None)], again=again)
        if new and self.enqueue is not None:
            await self.enqueue(job_id, new)
        limits: list[str] = []
        if spec.max_depth >= 1:
            mapper = SiteMapper(
                self.client, spec.url, query=spec.query,
                max_urls=min(MAX_MAP_URLS, spec.max_pages * _SEEDS_PER_PAGE),
                include_paths=spec.include_paths, exclude_paths=spec.exclude_paths, subdomains=spec.subdomains,
                start_page=False,
            )  # fmt: skip
            try:
                found = await mapper.run()
            except WeblensError as exc:
                await self.store.seeded(job_id, [], error=f"{exc.code}: {exc.message}")
                return []
            limits = [limit for limit in found.limits if not limit.startswith("max_urls=")]
            new += await self._admit(job_id, plan, [(e.url, e.title) for e in found.urls], 1, again)
        await self.store.seeded(job_id, limits)
        return new

    async def take(self, job_id: str, item: JobItem, token: str = "") -> Verdict:
        """Claim `item` for reading (`token`: see `JobStore.claim`)."""
        return await self.store.claim(job_id, canonical_url(item.url), token, item)

    async def read(self, job_id: str, item: JobItem, *, again: bool = False) -> list[JobItem]:
        """Read a claimed URL, store what came of it, and return the new URLs it links to
        (`again`: its first reader died; links it queued may be queued twice, never read twice).
        A page's own failure is stored with it; any other error (the store is down) leaves the URL
        claimed and propagates: the claim's lease, or the next start, gives it to another reader."""
        key = canonical_url(item.url)
        plan = await self.plan(job_id)
        spec = plan.spec
        try:
            got = await download_page(self.client, plan.scope, item.url, item.depth, spec.max_depth)
            if isinstance(got, str):
                await self.store.finish(job_id, key, skipped=got)
                return []
            if not await self.store.first_text(job_id, text_key(got.document.content), key):
                await self.store.finish(job_id, key, skipped="duplicate")
                return []
            new = await self._admit(job_id, plan, got.links, item.depth + 1, again)
            page = None
            if plan.scope.wanted(item.url):  # else the start page, read for its links only
                page = await read_page(self.client, got, item.url, item.depth, spec.query, plan.relevance,
                                       spec.page_tokens)  # fmt: skip
        except WeblensError as exc:
            failure = FailedPage(url=item.url, depth=item.depth, code=exc.code, message=exc.message)
            await self.store.finish(job_id, key, failure=failure)
            return []
        await self.store.finish(job_id, key, page=page)
        return new
