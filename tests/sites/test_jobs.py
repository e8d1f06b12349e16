"""Crawl jobs through the HTTP API of a real server, on a generated docs site over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from weblens.app.server import create_app
from weblens.config import Settings
from weblens.sites.jobs.sqlite import SqliteJobStore
from weblens.testing import ServedApp
from weblens.testing.sites import DocsSite, LinkFarm

from .conftest import all_results, finished, finished_job, until


def settings_for(site: DocsSite | LinkFarm, data: Path, **crawl: Any) -> Settings:
    return Settings(
        data_dir=data, cache={"enabled": False}, fetch={"allowed_hosts": [site.host], "workers": 1}, crawl=crawl
    )


@pytest.fixture
def serve() -> Iterator[Callable[[Settings], ServedApp]]:
    started: list[ServedApp] = []

    def start(settings: Settings) -> ServedApp:
        server = ServedApp(create_app(settings))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


async def test_a_job_reads_the_whole_site_and_its_results_come_page_by_page(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    async with DocsSite(pages=30) as site:
        server = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            response = await http.post("/api/crawls", json={"url": site.url("/"), "max_pages": 200, "max_depth": 3,
                                                            "include_paths": ["/docs/*"]})
            assert response.status_code == 201, response.text
            job_id = response.json()["id"]
            assert response.headers["location"] == f"/api/crawls/{job_id}"
            job = await until(http, job_id, finished)
            pages = await all_results(http, job_id)
            listed = (await http.get("/api/crawls")).json()["crawls"]
        paths = site.page_paths()
    assert job["state"] == "done" and job["pages"] == 30 and job["in_flight"] == 0
    urls = [p["url"] for p in pages]
    assert sorted(urls) == sorted(site.url(f"/docs/page-{i}") for i in range(30))
    assert any(site.fact(12) in p["text"] for p in pages)
    assert job["skipped"].get("duplicate") == 1  # /docs/page-3/print
    assert job["skipped"].get("filtered", 0) >= 2  # the calendar and the loop, outside /docs/
    doc_paths = [p for p in paths if p.startswith("/docs/")]
    assert len(doc_paths) == len(set(doc_paths)), "a page was downloaded twice"
    assert site.max_in_flight <= 2
    assert [c["id"] for c in listed] == [job_id]


async def test_max_pages_bounds_a_job_and_failed_pages_are_listed(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    async with DocsSite(pages=30, disallow=["/docs/page-2"]) as site:
        site.queue("/docs/page-5", *[site_error() for _ in range(5)])
        server = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            job_id = (await http.post("/api/crawls", json={"url": site.url("/"), "max_pages": 12})).json()["id"]
            job = await until(http, job_id, finished)
            failed = await all_results(http, job_id, "failed")
            pages = await all_results(http, job_id)
    assert job["state"] == "done" and job["pages"] == 12 == len(pages)
    assert job["queued"] > 0 and job["limits"]
    assert site.url("/docs/page-2") not in [p["url"] for p in pages]
    assert "/docs/page-2" not in site.page_paths()
    assert [f["url"] for f in failed] == [site.url("/docs/page-5")] and failed[0]["code"]


def site_error() -> Any:
    from weblens.testing.server import Reply

    return Reply(status=404, body="gone")


async def test_a_job_can_be_cancelled(serve: Callable[[Settings], ServedApp], tmp_path: Path) -> None:
    async with DocsSite(pages=40, latency_s=0.2) as site:
        server = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            job_id = (await http.post("/api/crawls", json={"url": site.url("/"), "max_pages": 100})).json()["id"]
            await until(http, job_id, lambda job: job["pages"] >= 2)
            cancelled = await http.delete(f"/api/crawls/{job_id}")
            requested = len(site.page_requests())
            job = (await http.get(f"/api/crawls/{job_id}")).json()
            await asyncio.sleep(0.5)  # time in which a running job would have read more pages
            later = len(site.page_requests())
            deleted = await http.delete(f"/api/crawls/{job_id}")  # it ended: this time it is removed
            gone = await http.get(f"/api/crawls/{job_id}")
            again = await http.delete(f"/api/crawls/{job_id}")
            listed = (await http.get("/api/crawls")).json()["crawls"]
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert job["state"] == "cancelled" and job["finished_at"] is not None
    assert later == requested and job["pages"] < 40
    assert deleted.status_code == 204 and gone.status_code == 404 and again.status_code == 404 and listed == []
    assert job_rows(settings_for(site, tmp_path).crawl_jobs_path, job_id) == 0


def job_rows(path: Path, job_id: str) -> int:
    """Rows of the job left in the SQLite file, in every table."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = ("crawl_frontier", "crawl_variants", "crawl_texts", "crawl_results")
        rows = sum(db.execute(f"SELECT count(*) FROM {t} WHERE job_id = ?", (job_id,)).fetchone()[0] for t in tables)
        return int(rows + db.execute("SELECT count(*) FROM crawl_jobs WHERE id = ?", (job_id,)).fetchone()[0])


async def test_a_job_that_ended_is_kept_for_its_keep_time_then_removed(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    async with DocsSite(pages=5, traps=False) as site:
        settings = settings_for(site, tmp_path, job_keep_days=2)
        server = serve(settings)
        body = {"url": site.url("/"), "include_paths": ["/docs/*"]}
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            old, recent = [(await http.post("/api/crawls", json=body)).json()["id"] for _ in range(2)]
            for job_id in (old, recent):
                await until(http, job_id, finished)
            kept = await all_results(http, old)
            with contextlib.closing(sqlite3.connect(settings.crawl_jobs_path)) as db:  # 3 days pass for `old`
                db.execute("UPDATE crawl_jobs SET finished_at = finished_at - 3 * 86400 WHERE id = ?", (old,))
                db.commit()
            expired = await http.get(f"/api/crawls/{old}")
            listed = [job["id"] for job in (await http.get("/api/crawls")).json()["crawls"]]
            still = await http.get(f"/api/crawls/{recent}")
        server.stop()
        rows_before = job_rows(settings.crawl_jobs_path, old)
        restarted = serve(settings)  # removes the rows at start (and every hour while it runs)
        async with httpx.AsyncClient(base_url=restarted.url(), timeout=10) as http:
            after = await http.get(f"/api/crawls/{recent}")
    assert len(kept) == 5
    assert expired.status_code == 404 and listed == [recent] and still.status_code == 200
    assert rows_before > 0 and job_rows(settings.crawl_jobs_path, old) == 0
    assert after.status_code == 200 and after.json()["pages"] == 5
    assert job_rows(settings.crawl_jobs_path, recent) > 0


async def test_a_job_survives_a_restart_without_downloading_a_page_again(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    async with DocsSite(pages=30, latency_s=0.05, traps=False) as site:
        first = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=first.url(), timeout=10) as http:
            body = {"url": site.url("/"), "max_pages": 100, "include_paths": ["/docs/*"]}
            job_id = (await http.post("/api/crawls", json=body)).json()["id"]
            await until(http, job_id, lambda job: job["pages"] >= 8)
        first.stop()
        before = Counter(site.page_paths())
        stopped = settings_for(site, tmp_path)  # what the stopped server had stored:
        left = SqliteJobStore(stopped.crawl_jobs_path, keep_s=stopped.crawl.job_keep_days * 86_400)
        stored = {p["url"] for p in await left.results(job_id, "pages", 0, 100)}
        await left.aclose()
        second = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=second.url(), timeout=10) as http:
            job = await until(http, job_id, finished)
            pages = await all_results(http, job_id)
    after = Counter(site.page_paths()) - before
    assert len(stored) >= 8
    assert job["state"] == "done" and job["pages"] == 30 == len({p["url"] for p in pages}) == len(pages)
    again = [path for path in after if site.url(path) in stored]
    assert not again, f"pages stored before the restart were downloaded again: {again}"
    assert sum(after.values()) > 0 and all(n == 1 for n in after.values())


async def test_bad_requests_get_clear_errors(serve: Callable[[Settings], ServedApp], tmp_path: Path) -> None:
    async with DocsSite(pages=5) as site:
        server = serve(settings_for(site, tmp_path, job_max_pages=50))
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            over = await http.post("/api/crawls", json={"url": site.url("/"), "max_pages": 51})
            wrong = await http.post("/api/crawls", json={"url": site.url("/"), "max_depth": 9, "colour": "red"})
            not_web = await http.post("/api/crawls", json={"url": "ftp://example.org/"})
            unknown = await http.get("/api/crawls/nope")
            unknown_delete = await http.delete("/api/crawls/nope")
            job_id = (await http.post("/api/crawls", json={"url": site.url("/"), "max_pages": 5})).json()["id"]
            bad_offset = await http.get(f"/api/crawls/{job_id}", params={"offset": "-1"})
            bad_limit = await http.get(f"/api/crawls/{job_id}", params={"limit": "1000"})
            bad_kind = await http.get(f"/api/crawls/{job_id}", params={"kind": "everything"})
    assert over.status_code == 422
    assert "WEBLENS_CRAWL_JOB_MAX_PAGES" in over.json()["error"]["message"] and "50" in over.json()["error"]["message"]
    assert wrong.status_code == 422 and "max_depth" in wrong.text and "colour" in wrong.text
    assert not_web.status_code == 422 and not_web.json()["error"]["code"] == "validation_error"
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    assert unknown_delete.status_code == 404
    assert [r.status_code for r in (bad_offset, bad_limit, bad_kind)] == [422, 422, 422]


def test_weblens_crawl_job_runs_on_the_server_and_writes_pages_as_they_come(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from weblens.cli import app

    with DocsSite(pages=120) as site:
        server = serve(settings_for(site, tmp_path / "server"))
        out = tmp_path / "site"
        env = {"WEBLENS_DATA_DIR": str(tmp_path / "cli")}
        args = ["crawl", site.url("/"), "--job", "--server", server.url(), "-o", str(out), "--max-pages", "150",
                "--include", "/docs/*"]  # fmt: skip
        result = CliRunner().invoke(app, args, env=env)
        without_job = CliRunner().invoke(app, ["crawl", site.url("/"), "--max-pages", "150"], env=env)
        nobody = ["crawl", site.url("/"), "--job", "--server", "http://127.0.0.1:9"]
        no_server = CliRunner().invoke(app, nobody, env=env)
    assert result.exit_code == 0, result.output
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    assert sorted(e["url"] for e in index) == sorted(site.url(f"/docs/page-{i}") for i in range(120))
    assert len(list(out.glob("*.md"))) == 120
    assert without_job.exit_code == 2 and "--job" in without_job.output
    assert no_server.exit_code != 0 and "weblens serve" in no_server.output


async def test_a_job_for_a_site_the_fetcher_may_not_reach_fails_and_says_why(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    async with DocsSite(pages=3) as site:
        server = serve(settings_for(site, tmp_path))
        async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
            job_id = (await http.post("/api/crawls", json={"url": "http://127.0.0.1:9/docs/"})).json()["id"]
            job = await until(http, job_id, finished)
    assert job["state"] == "failed" and job["pages"] == 0
    assert job["error"].startswith("blocked:"), job["error"]


def test_weblens_crawl_job_id_follows_a_job_that_runs_already(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from weblens.cli import app

    with DocsSite(pages=40, latency_s=0.02, traps=False) as site:
        server = serve(settings_for(site, tmp_path / "server"))
        body = {"url": site.url("/"), "max_pages": 100, "include_paths": ["/docs/*"]}
        job_id = httpx.post(server.url("/api/crawls"), json=body, timeout=10).json()["id"]  # started elsewhere
        env = {"WEBLENS_DATA_DIR": str(tmp_path / "cli")}
        out = tmp_path / "site"
        follow = ["crawl", "--job-id", job_id, "--server", server.url(), "-o", str(out)]
        result = CliRunner().invoke(app, follow, env=env)
        unknown = CliRunner().invoke(app, ["crawl", "--job-id", "nope", "--server", server.url()], env=env)
        both = CliRunner().invoke(app, ["crawl", site.url("/"), "--job-id", job_id], env=env)
        neither = CliRunner().invoke(app, ["crawl"], env=env)
        options = CliRunner().invoke(app, ["crawl", "--job-id", job_id, "--max-pages", "5", "-q", "x"], env=env)
    assert result.exit_code == 0, result.output
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    assert sorted(e["url"] for e in index) == sorted(site.url(f"/docs/page-{i}") for i in range(40))
    assert len(list(out.glob("*.md"))) == 40
    assert unknown.exit_code == 1 and "no crawl job" in unknown.output
    assert both.exit_code == 2 and neither.exit_code == 2 and "--job-id" in neither.output
    assert options.exit_code == 2 and "leave out --query, --max-pages" in options.output, options.output


async def test_a_site_linking_new_pages_without_end_does_not_fill_the_job_without_end(
    serve: Callable[[Settings], ServedApp], tmp_path: Path
) -> None:
    # every page links 300 pages never seen: each one was admitted (a row, and in a fleet a stream
    # message) though a job reads at most 3 per page asked for
    async with LinkFarm(links=300) as farm:
        server = serve(settings_for(farm, tmp_path))
        job = await finished_job(server.url(), {"url": farm.url("/"), "max_pages": 5, "max_depth": 3})
    assert job["state"] == "done" and job["pages"] == 5
    assert 0 < job["queued"] <= 5 * 20  # left unread: at most 20 URLs per page asked for are admitted
    assert job["skipped"]["queue_full"] > 0
