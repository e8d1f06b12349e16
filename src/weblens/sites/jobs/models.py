"""What a crawl job is asked (`JobSpec`) and what it says about itself (`CrawlJob`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from weblens.errors import ToolValidationError
from weblens.fetch.fetcher import MAX_QUERY_CHARS
from weblens.sites.crawl import FRONTIER_PER_PAGE, MAX_CRAWL_DEPTH, MIN_PAGE_TOKENS
from weblens.sites.scope import Scope

__all__ = ["FINISHED", "CrawlJob", "JobItem", "JobSpec", "JobState", "Verdict"]

JobState = Literal["running", "done", "cancelled", "failed"]
FINISHED: frozenset[str] = frozenset({"done", "cancelled", "failed"})
Verdict = Literal["go", "again", "wait", "full", "stop", "done"]
"""A claim on one URL: read it (`again`: a replica that took it died), later (pages in flight may
fail and free a place), never (`full`: max_pages or the download budget spent), the job ended
(`stop`), or it was read already (`done`)."""
ATTEMPTS_PER_PAGE = 3
"""Downloads at most per page asked for, as in `crawl`: failures and duplicates cannot run a job for ever."""


class JobSpec(BaseModel):
    """The parameters of `web_crawl`, with the operator's cap (`crawl.job_max_pages`) on max_pages
    instead of 100, and no time budget: a job runs until it is done or cancelled."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2_000)
    query: str | None = None
    max_pages: int = Field(default=100, ge=1)
    max_depth: int = Field(default=2, ge=0, le=MAX_CRAWL_DEPTH)
    include_paths: list[str] = Field(default_factory=list)
    exclude_paths: list[str] = Field(default_factory=list)
    max_tokens: int | None = Field(default=None, ge=MIN_PAGE_TOKENS)
    """Tokens for all pages together: each page gets an equal share (at least MIN_PAGE_TOKENS)."""
    subdomains: bool = False

    def checked(self, cap: int) -> JobSpec:
        """This spec, or a `ToolValidationError` saying which bound it breaks."""
        if self.max_pages > cap:
            raise ToolValidationError(
                f"max_pages must be at most {cap}, the operator's cap (setting WEBLENS_CRAWL_JOB_MAX_PAGES)"
            )
        query = " ".join(self.query.split()) if self.query else None
        if query is not None and len(query) > MAX_QUERY_CHARS:
            raise ToolValidationError(f"query must be at most {MAX_QUERY_CHARS} characters")
        self.scope()  # raises on a URL that is not http(s) and on bad path filters
        return self.model_copy(update={"query": query})

    def scope(self) -> Scope:
        return Scope(self.url, subdomains=self.subdomains, include_paths=self.include_paths,
                     exclude_paths=self.exclude_paths)  # fmt: skip

    @property
    def page_tokens(self) -> int | None:
        """Each page's share of max_tokens."""
        return None if self.max_tokens is None else max(MIN_PAGE_TOKENS, self.max_tokens // self.max_pages)

    @property
    def max_attempts(self) -> int:
        return self.max_pages * ATTEMPTS_PER_PAGE

    @property
    def max_frontier(self) -> int:
        """URLs a job admits at most, as `crawl` queues: at most 3 per page are ever read, and a site
        whose every page links hundreds of new ones filled the store (and a fleet's stream) without end."""
        return self.max_pages * FRONTIER_PER_PAGE


class CrawlJob(BaseModel):
    id: str
    spec: JobSpec
    state: JobState = "running"
    created_at: float
    updated_at: float
    finished_at: float | None = None
    pages: int = 0
    """Pages read and kept (the results)."""
    failed: int = 0
    queued: int = 0
    """URLs found and still to read (when the job ends: those left unread)."""
    in_flight: int = 0
    skipped: dict[str, int] = Field(default_factory=dict)
    """URLs not read, by reason: robots, trap, duplicate, off_site, filtered, not_a_page, queue_full."""
    limits: list[str] = Field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class JobItem:
    """A URL on a job's frontier."""

    url: str
    depth: int
    score: float = 0.0
    """Relevance to the query (best first); 0 without one."""
