"""`weblens map URL`: a site's URLs, one per line, from its sitemaps, llms.txt and start page.

Stdout gets one URL a line (then, tab-separated, where it was found, lastmod and title), so
`weblens map URL | head` works; `--json` gives the result envelope.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from weblens.cli import command_app
from weblens.cli.output import emit_result, fail_from, note
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.result import ToolResult
from weblens.sites.map import MAX_MAP_URLS
from weblens.tools.sites import render_map
from weblens.urls import with_scheme

app = command_app()

GLOBS = "a glob on the URL path, e.g. '/docs/*' (repeat for more)"


@app.command("map")
def map_command(
    url: Annotated[str, typer.Argument(help="The site's start URL (https:// is assumed when no scheme is given).")],
    query: Annotated[str | None, typer.Option("--query", "-q", help="Rank the URLs by relevance to this.")] = None,
    max_urls: Annotated[int, typer.Option("--max-urls", min=1, max=MAX_MAP_URLS, help="Most URLs to list.")] = 200,
    include: Annotated[list[str] | None, typer.Option("--include", help=f"Keep only {GLOBS}.")] = None,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help=f"Leave out {GLOBS}.")] = None,
    subdomains: Annotated[bool, typer.Option("--subdomains", help="Also list URLs on subdomains.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result envelope as JSON.")] = False,
) -> None:
    """List a site's URLs (sitemaps, llms.txt, start page links)."""
    from weblens.sites import map_site

    settings = load_settings(as_json=as_json)
    target = with_scheme(url)
    started = time.perf_counter()
    try:
        with activity(f"mapping {target}"):
            found = run(
                with_runtime(
                    settings,
                    lambda runtime: map_site(
                        target,
                        query=query,
                        max_urls=max_urls,
                        include_paths=include or [],
                        exclude_paths=exclude or [],
                        subdomains=subdomains,
                        fetcher=runtime.fetcher,
                    ),
                )
            )
    except WeblensError as exc:
        fail_from(exc, as_json=as_json)
    if as_json:
        result = ToolResult.success(render_map(found), data=found.model_dump(mode="json"))
        result.duration_ms = (time.perf_counter() - started) * 1000
        emit_result(result, True)
        return
    for entry in found.urls:
        typer.echo("\t".join([entry.url, entry.found_in, entry.lastmod or "", entry.title or ""]).rstrip("\t"))
    for limit in found.limits:
        note(f"limit: {limit}", "yellow")
    for error in found.errors:
        note(f"could not read {error}", "yellow")
