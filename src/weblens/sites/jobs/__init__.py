"""Crawl jobs: crawls bigger than one tool call, run in the background, resumable, and shared by a fleet."""

from weblens.sites.jobs.models import CrawlJob, JobSpec
from weblens.sites.jobs.service import CrawlJobs, open_crawl_jobs

__all__ = ["CrawlJob", "CrawlJobs", "JobSpec", "open_crawl_jobs"]
