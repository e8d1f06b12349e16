"""`weblens search "query"`: results as a table on a terminal, the JSON envelope when asked or piped."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.table import Column, Table

from weblens.cli import command_app
from weblens.cli.output import console, emit_result, fail_from, wants_json
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.search import PROVIDERS, SearchResponse
from weblens.search import search as run_search
from weblens.search.models import MAX_RESULTS
from weblens.tools.search_output import standard

app = command_app()


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    max_results: Annotated[
        int, typer.Option("--max-results", "-n", min=1, max=MAX_RESULTS, help=f"Results to show (1-{MAX_RESULTS}).")
    ] = 5,
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help=f"One of {', '.join(PROVIDERS)} (or a comma list).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The result envelope as JSON (also when piped).")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask upstream even if the answer is cached.")] = False,
) -> None:
    """Search the web (automatic provider choice with fallback)."""
    json_out = wants_json(as_json)
    settings = load_settings(as_json=json_out)
    started = time.perf_counter()
    try:
        with activity(f"searching for {query!r}"):
            response = run(
                with_runtime(
                    settings,
                    lambda runtime: run_search(
                        query, max_results, provider=provider, cache=not no_cache, router=runtime.router
                    ),
                )
            )
    except WeblensError as exc:
        fail_from(exc, as_json=json_out, started=started)
    result = standard(response)  # the text a model reads
    result.data = response.model_dump(mode="json")
    result.duration_ms = (time.perf_counter() - started) * 1000
    emit_result(result, as_json, lambda: _table(response))


def _table(response: SearchResponse) -> None:
    for failure in response.failures:
        console.print(f"{failure.provider} failed ({failure.code}): {failure.message}", style="yellow")
    if not response.results:
        console.print(f"No results for {response.query!r} ({response.provider}).")
        return
    cached = ", cached" if response.cached else ""
    table = Table("#", "title", Column("url", overflow="fold"), "snippet", title=f"{response.query} — "
                  f"{response.provider}{cached}")  # fmt: skip
    for r in response.results:
        table.add_row(str(r.position), r.title, r.url, r.snippet)
    console.print(table)
