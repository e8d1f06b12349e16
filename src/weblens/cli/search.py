"""`weblens search "query"`: results as a table on a terminal, JSON when asked or piped."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.table import Column, Table

from weblens.cli import app
from weblens.cli.output import console, emit, fail_from
from weblens.config import get_settings
from weblens.errors import WeblensError
from weblens.search import PROVIDERS, SearchResponse
from weblens.search import search as run_search
from weblens.search.models import MAX_RESULTS


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    max_results: Annotated[int, typer.Option("--max-results", "-n", help=f"Results to show (1-{MAX_RESULTS}).")] = 5,
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help=f"One of {', '.join(PROVIDERS)} (or a comma list).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask upstream even if the answer is cached.")] = False,
) -> None:
    """Search the web (automatic provider choice with fallback)."""
    try:
        settings = get_settings()
        response = asyncio.run(
            run_search(query, max_results, provider=provider, cache=not no_cache, settings=settings)
        )
    except WeblensError as exc:
        fail_from(exc)
    emit(response.model_dump(mode="json"), as_json, lambda: _table(response))


def _table(response: SearchResponse) -> None:
    for failure in response.failures:
        console.print(f"[yellow]{failure.provider} failed ({failure.code}):[/] {failure.message}", highlight=False)
    if not response.results:
        console.print(f"No results for {response.query!r} ({response.provider}).", highlight=False)
        return
    cached = ", cached" if response.cached else ""
    title = f"{response.query} — {response.provider}{cached}"
    table = Table("#", "title", Column("url", overflow="fold"), "snippet", title=title)
    for r in response.results:
        table.add_row(str(r.position), r.title, r.url, r.snippet)
    console.print(table)
