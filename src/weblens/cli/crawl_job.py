"""`weblens crawl URL --job`: a crawl job on a running `weblens serve`, followed as it goes.

The job is started with `POST /api/crawls` on the server (`--server`, default the configured
`server.host`/`server.port`; the token `WEBLENS_MCP_TOKEN` when set), its pages are written as
they arrive — the same files and `index.jsonl` as `weblens crawl -o` — and a progress bar on
stderr shows pages read of max_pages. Ctrl-C stops following, not the job: it runs on in the
server (stop it with `DELETE /api/crawls/{id}`). `weblens crawl --job-id ID` follows a job that
runs already (started earlier, or followed until a Ctrl-C) and writes all its pages again.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import typer

from weblens.cli.output import err_console, fail, note
from weblens.config import Settings
from weblens.sites import CrawledPage

__all__ = ["follow_job", "server_url"]

POLL_S = 0.5
_BATCH = 100
_WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def server_url(settings: Settings) -> str:
    host = settings.server.host
    host = "127.0.0.1" if host in _WILDCARDS else f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{host}:{settings.server.port}"


def _error(response: httpx.Response) -> tuple[str, str]:
    try:
        error = response.json()["error"]
        return str(error["message"]), str(error["code"])
    except (ValueError, KeyError, TypeError):
        return f"the server answered HTTP {response.status_code}", "upstream_error"


class _Writer:
    """Pages to `output` (one markdown file each, plus index.jsonl) or to stdout."""

    def __init__(self, output: Path | None) -> None:
        from weblens.cli.crawl import write_page

        self.output, self.count, self._write = output, 0, write_page
        self.index = None if output is None else (output / "index.jsonl").open("w", encoding="utf-8")

    def write(self, page: dict[str, Any]) -> None:
        self.count += 1
        self._write(self.count, CrawledPage.model_validate(page), self.output, self.index)

    def close(self) -> None:
        if self.index is not None:
            self.index.close()


def _call(http: httpx.Client, method: str, path: str, **kwargs: Any) -> httpx.Response:
    try:
        return http.request(method, path, **kwargs)
    except httpx.TransportError:
        fail(f"no weblens server answers at {http.base_url}: start one with `weblens serve`, or pass --server URL",
             "upstream_error")  # fmt: skip


def follow_job(
    settings: Settings, server: str | None, body: dict[str, Any] | None, output: Path | None, job_id: str | None = None
) -> None:
    """Start a job with `body` and follow it, or (`job_id`) follow one that exists."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    base = (server or server_url(settings)).rstrip("/")
    headers = {}
    if settings.mcp.token is not None:
        headers["Authorization"] = f"Bearer {settings.mcp.token.get_secret_value()}"
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        if job_id is None:
            started = _call(http, "POST", "/api/crawls", json=body)
            if started.status_code != 201:
                fail(*_error(started))  # type: ignore[arg-type]
            job_id = str(started.json()["id"])
        note(f"crawl job {job_id} on {base}", "dim")
        writer = _Writer(output)
        offset = 0
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        try:
            with Progress(*columns, console=err_console, transient=True) as bar:
                task = bar.add_task("pages", total=None)
                while True:
                    params = {"offset": offset, "limit": _BATCH}
                    response = _call(http, "GET", f"/api/crawls/{quote(job_id, safe='')}", params=params)
                    if response.status_code != 200:
                        fail(*_error(response))  # type: ignore[arg-type]
                    job = response.json()
                    results = job["results"]
                    for page in results["items"]:
                        writer.write(page)
                    offset += len(results["items"])
                    bar.update(task, total=job["spec"]["max_pages"], completed=job["pages"],
                               description=f"pages ({job['queued']} queued)")  # fmt: skip
                    if results["next_offset"] is None:
                        break
                    if len(results["items"]) < _BATCH:
                        time.sleep(POLL_S)
        except KeyboardInterrupt:
            note(f"stopped following; the job runs on: {base}/api/crawls/{job_id} "
                 f"(follow it again: weblens crawl --job-id {job_id})", "yellow")  # fmt: skip
            raise typer.Exit(130) from None
        finally:
            writer.close()
    if job["failed"]:
        note(f"{job['failed']} pages failed: {base}/api/crawls/{job_id}?kind=failed", "yellow")
    if job["state"] != "done":
        note(f"the job ended {job['state']}{': ' + job['error'] if job.get('error') else ''}", "yellow")
    where = f" into {output}" if output is not None else ""
    note(f"{writer.count} pages{where}", "dim")
