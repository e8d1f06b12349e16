"""`weblens crawl URL -o DIR`: a site's pages as markdown files, plus `index.jsonl`.
With `--job`, a crawl job on a running server instead (`weblens.cli.crawl_job`).

Each page is written as it arrives (`001-<slug>.md`, a title line and its source URL on
top) and gets one line in `index.jsonl` (url, final_url, title, depth, file, tokens,
score); failures are listed on stderr. Without `-o`, the pages go to stdout.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, TextIO

import typer

from weblens.cli import command_app
from weblens.cli.output import USAGE_EXIT_CODE, fail, fail_from, note
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.runtime import Runtime
from weblens.sites import Crawl, CrawledPage
from weblens.sites.crawl import MAX_CRAWL_DEPTH, MAX_CRAWL_PAGES
from weblens.urls import with_scheme

app = command_app()

GLOBS = "a glob on the URL path, e.g. '/docs/*' (repeat for more)"
_SLUG = re.compile(r"[^a-z0-9]+")


def _file_name(n: int, page: CrawledPage) -> str:
    slug = _SLUG.sub("-", (page.title or page.final_url).lower()).strip("-")[:60] or "page"
    return f"{n:03d}-{slug}.md"


def _markdown(page: CrawledPage) -> str:
    return f"# {page.title or page.final_url}\n\nSource: {page.final_url}\n\n{page.text}\n"


def write_page(n: int, page: CrawledPage, output: Path | None, index: TextIO | None) -> None:
    """The `n`-th page: to stdout, or as a file in `output` with its line in `index`."""
    if output is None or index is None:
        typer.echo(_markdown(page))
        return
    name = _file_name(n, page)
    (output / name).write_text(_markdown(page), encoding="utf-8")
    entry = page.model_dump(exclude={"text"}) | {"file": name}
    index.write(json.dumps(entry, ensure_ascii=False) + "\n")
    index.flush()


@app.command("crawl")
def crawl_command(
    url: Annotated[
        str | None, typer.Argument(help="The site's start URL (https:// is assumed when no scheme is given).")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Directory for one markdown file per page and index.jsonl.")
    ] = None,
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="Crawl best-first towards this; keep only what answers it.")
    ] = None,
    max_pages: Annotated[
        int, typer.Option("--max-pages", min=1, help=f"Most pages: {MAX_CRAWL_PAGES}, or the server's cap with --job.")
    ] = 10,
    max_depth: Annotated[
        int, typer.Option("--max-depth", min=0, max=MAX_CRAWL_DEPTH, help="Most links from the start URL.")
    ] = 2,
    include: Annotated[list[str] | None, typer.Option("--include", help=f"Read only {GLOBS}.")] = None,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help=f"Never read {GLOBS}.")] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", min=50, help="Tokens for all pages together, shared fairly.")
    ] = None,
    time_budget: Annotated[float, typer.Option("--time-budget", min=0.1, help="Seconds; then stop, partial.")] = 120.0,
    job: Annotated[
        bool, typer.Option("--job", help="Run it as a crawl job on a running `weblens serve` (big sites); follow it.")
    ] = False,
    server: Annotated[
        str | None,
        typer.Option("--server", help="The server for --job and --job-id (default http://server.host:server.port)."),
    ] = None,
    job_id: Annotated[
        str | None,
        typer.Option("--job-id", help="Follow a crawl job that exists (its pages are written again from the first)."),
    ] = None,
) -> None:
    """Read a site's pages politely into markdown files (or to stdout)."""
    settings = load_settings(as_json=False)
    if (url is None) == (job_id is None):
        fail("give the site's URL, or --job-id ID to follow a crawl job (not both)", "validation_error",
             USAGE_EXIT_CODE)  # fmt: skip
    given = [name for name, value, default in (
        ("--query", query, None), ("--max-pages", max_pages, 10), ("--max-depth", max_depth, 2),
        ("--include", include, None), ("--exclude", exclude, None), ("--max-tokens", max_tokens, None),
        ("--time-budget", time_budget, 120.0), ("--job", job, False),
    ) if value != default]  # fmt: skip
    if job_id is not None and given:
        fail(f"--job-id follows a job whose options were set when it started: leave out {', '.join(given)}",
             "validation_error", USAGE_EXIT_CODE)  # fmt: skip
    if not job and max_pages > MAX_CRAWL_PAGES:
        fail(f"--max-pages must be at most {MAX_CRAWL_PAGES}; a bigger crawl is a job: add --job", "validation_error",
             USAGE_EXIT_CODE)  # fmt: skip
    if output is not None:
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot write to {output}: {exc.strerror}", "validation_error")
    if job_id is not None:
        from weblens.cli.crawl_job import follow_job

        follow_job(settings, server, None, output, job_id)
        return
    assert url is not None
    target = with_scheme(url)
    if job:
        from weblens.cli.crawl_job import follow_job

        body = {"url": target, "query": query, "max_pages": max_pages, "max_depth": max_depth,
                "include_paths": include or [], "exclude_paths": exclude or [], "max_tokens": max_tokens}  # fmt: skip
        follow_job(settings, server, body, output)
        return

    async def work(runtime: Runtime) -> Crawl:
        walk = Crawl(
            target,
            fetcher=runtime.fetcher,
            query=query,
            max_pages=max_pages,
            max_depth=max_depth,
            include_paths=include or [],
            exclude_paths=exclude or [],
            max_tokens=max_tokens,
            time_budget_s=time_budget,
        )
        index = None if output is None else (output / "index.jsonl").open("w", encoding="utf-8")
        try:
            n = 0
            async for page in walk:
                n += 1
                write_page(n, page, output, index)
        finally:
            if index is not None:
                index.close()
        return walk

    try:
        with activity(f"crawling {target}"):
            walk = run(with_runtime(settings, work))
    except WeblensError as exc:
        fail_from(exc)
    result = walk.result
    for failed in result.failed:
        note(f"failed: {failed.url}: {failed.code}: {failed.message}", "yellow")
    if result.partial:
        note(f"partial: the time budget ran out with {result.left_count} URLs still to read", "yellow")
    where = f" into {output}" if output is not None else ""
    note(f"{len(result.pages)} pages{where}", "dim")
