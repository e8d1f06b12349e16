"""`weblens.sites` on the generated docs site of `weblens.testing.sites`. Prints medians of several runs:

- pages/s of a crawl against the ideal the per-host rate sets (two in flight per host and the
  page latency; or one page per Crawl-delay)
- recall of the pages a query needs within max_pages: best-first (with the query) beside
  breadth-first (the same crawl without it), with llms.txt naming every page and with only
  sitemaps and links to go on
- tokens returned for that recall: weblens' passages beside Tavily-style fixed chunks (the
  three best 500-character chunks of each page read, as Tavily's /crawl returns)
- memory (tracemalloc peak) of a map over a 10 000-URL sitemap, beside the bytes of the sitemaps
- a crawl job (`POST /api/crawls`) worked by 3 `weblens serve` replicas on one redis-server beside
  the same job on one replica: pages/s against the ideal the per-host rate sets (the fleet keeps
  one polite rate, so 3 replicas must not be faster), pages downloaded twice (must be 0), and the
  most requests the site saw in flight at once (must be at most 2)

    .venv/bin/python bench/crawl.py            # everything
    .venv/bin/python bench/crawl.py jobs       # only the crawl jobs (needs redis-server)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import httpx

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch.fetcher import Fetcher
from weblens.fetch.ranking import query_terms, terms
from weblens.sites import crawl, map_site
from weblens.testing.redis import INSTALL_HINT, RedisServer, redis_server_path
from weblens.testing.replicas import Replicas
from weblens.testing.sites import TOPICS, DocsSite

RUNS = 3
CHUNK = 500
CHUNKS_PER_PAGE = 3


def fetcher(site: DocsSite) -> Fetcher:
    return Fetcher(Settings(fetch={"allowed_hosts": [site.host], "workers": 1}), cache=Cache(None))


async def rate(latency: float, delay: float | None) -> tuple[float, float]:
    """(pages/s measured by the server, the ideal)."""
    ideal = 1 / delay if delay else 2 / latency
    async with DocsSite(pages=60, latency_s=latency, crawl_delay=delay, traps=False) as site, fetcher(site) as f:
        await crawl(site.url("/"), max_pages=40, max_depth=1, fetcher=f).run()
        times = sorted(r.received_at for r in site.page_requests())
    return (len(times) - 1) / (times[-1] - times[0] + latency), ideal


def tavily_chunks(text: str, query: str) -> str:
    """The three 500-character chunks of a page that share most words with the query."""
    wanted = set(query_terms(query))
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    best = sorted(chunks, key=lambda c: -len(wanted & set(terms(c))))[:CHUNKS_PER_PAGE]
    return "\n".join(best)


async def recall(llms_pages: int, query_topic: str, best_first: bool) -> tuple[float, int, int, float]:
    """(recall, weblens tokens, Tavily-style tokens, Tavily-style recall) for one crawl of 10 pages."""
    query = f"{query_topic} code"
    async with DocsSite(pages=60, llms_pages=llms_pages, traps=False) as site, fetcher(site) as f:
        needed = {i for i in range(60) if TOPICS[i % len(TOPICS)] == query_topic}
        result = await crawl(site.url("/"), query=query if best_first else None, max_pages=10, max_tokens=3000,
                             fetcher=f).run()  # fmt: skip
        counter = await f.tokenizer()
        text = "\n".join(p.text for p in result.pages)
        got = sum(1 for i in needed if site.fact(i) in text)
        ours = counter.count(text)
        chunks = []
        for page in result.pages:
            document, _ = await f.document(page.final_url)
            chunks.append(tavily_chunks(document.content, query))
        theirs_text = "\n".join(chunks)
        theirs_got = sum(1 for i in needed if site.fact(i) in theirs_text)
    return got / len(needed), ours, counter.count(theirs_text), theirs_got / len(needed)


async def memory() -> tuple[float, float, int]:
    """(tracemalloc peak MB of a 5 000-URL map over 10 000 URLs, sitemap MB, URLs listed)."""
    async with DocsSite(pages=10_000, llms=False, traps=False) as site, fetcher(site) as f:
        tracemalloc.start()
        found = await map_site(site.url("/"), query="caching", max_urls=5000, fetcher=f)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sitemap_bytes = sum(len(site._urlset(range(a, b)).encode()) for a, b in ((0, 5000), (5000, 10_000)))
    return peak / 2**20, sitemap_bytes / 2**20, len(found.urls)


JOB_PAGES = 200
JOB_LATENCY_S = 0.05


def job_run(site: DocsSite, urls: list[str]) -> tuple[float, int, int]:
    """One job of JOB_PAGES pages started on the first replica: (pages/s the site saw, pages
    downloaded twice, most requests in flight at once)."""
    site.reset()
    site.max_in_flight = 0
    body = {"url": site.url("/"), "max_pages": JOB_PAGES + 10, "include_paths": ["/docs/*"]}
    job_id = httpx.post(urls[0] + "/api/crawls", json=body, timeout=30).json()["id"]
    deadline = time.monotonic() + 300
    while (job := httpx.get(f"{urls[-1]}/api/crawls/{job_id}", timeout=30).json())["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
    assert job["state"] == "done" and job["pages"] == JOB_PAGES, job
    times = sorted(r.received_at for r in site.page_requests())
    twice = sum(n - 1 for n in Counter(site.page_paths()).values())
    return (len(times) - 1) / (times[-1] - times[0] + JOB_LATENCY_S), twice, site.max_in_flight


def jobs() -> None:
    if redis_server_path() is None:
        print(f"crawl jobs: skipped ({INSTALL_HINT})")
        return
    ideal = 2 / JOB_LATENCY_S
    with DocsSite(pages=JOB_PAGES, latency_s=JOB_LATENCY_S, traps=False) as site, RedisServer() as redis:
        env: dict[str, str | None] = {
            "WEBLENS_REDIS_URL": redis.url, "WEBLENS_FETCH_ALLOWED_HOSTS": site.host, "WEBLENS_CACHE_ENABLED": "false",
            "WEBLENS_FETCH_WORKERS": "1", "WEBLENS_DATABASE_URL": None,
        }  # fmt: skip
        for count in (1, 3):
            with tempfile.TemporaryDirectory() as tmp, Replicas(count, Path(tmp), env, ready_path="/health") as fleet:
                runs = [job_run(site, [r.url for r in fleet]) for _ in range(RUNS)]
            rate_ = statistics.median(r[0] for r in runs)
            print(f"crawl job of {JOB_PAGES} pages on Redis, {count} replica{'s' if count > 1 else ''}: "
                  f"{rate_:.1f} pages/s against the ideal {ideal:.0f} (2 in flight, {JOB_LATENCY_S * 1000:.0f} ms "
                  f"a page: {rate_ / ideal:.0%}); downloaded twice: {max(r[1] for r in runs)}; "
                  f"most in flight: {max(r[2] for r in runs)}")  # fmt: skip


async def main() -> None:
    if sys.argv[1:] == ["jobs"]:
        return jobs()
    for latency, delay, label in ((0.05, None, "latency 50 ms, no Crawl-delay"), (0.01, 0.1, "Crawl-delay 0.1 s")):
        runs = [await rate(latency, delay) for _ in range(RUNS)]
        got = statistics.median(r[0] for r in runs)
        print(f"pages/s ({label}): {got:.1f} against the ideal {runs[0][1]:.1f} ({got / runs[0][1]:.0%})")
    for llms_pages, source in ((60, "llms.txt names every page"), (0, "sitemaps and links only")):
        for best_first in (True, False):
            runs = [await recall(llms_pages, "encryption", best_first) for _ in range(RUNS)]
            mode = "best-first with the query" if best_first else "breadth-first (baseline)"
            print(
                f"recall of 5 needed pages in 10 ({source}, {mode}): {statistics.median(r[0] for r in runs):.0%}; "
                f"tokens {statistics.median(r[1] for r in runs):.0f} (weblens) vs "
                f"{statistics.median(r[2] for r in runs):.0f} (500-char chunks, recall "
                f"{statistics.median(r[3] for r in runs):.0%})"
            )
    peaks = [await memory() for _ in range(RUNS)]
    print(f"map of a 10 000-URL site (max_urls=5000, ranked): peak {statistics.median(p[0] for p in peaks):.1f} MB "
          f"beside {peaks[0][1]:.1f} MB of sitemaps; {peaks[0][2]} URLs listed")  # fmt: skip
    jobs()


if __name__ == "__main__":
    asyncio.run(main())
