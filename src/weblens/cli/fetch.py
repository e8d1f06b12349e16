"""`weblens fetch URL`: a page of any URL as markdown on stdout; `--json` for the result envelope.

Stdout gets the content alone, so `weblens fetch URL > page.md` writes the page; on a
terminal a dim header (title, final URL, status, type) comes first. Notes and the hint
for the next page go to stderr. A URL typed without a scheme is tried over https://
(`weblens.fetch.typed`, shared with the fetch tools).
"""

from __future__ import annotations

import enum
import time
from typing import Annotated

import typer

from weblens.browser.render import MAX_SCROLL
from weblens.cli import command_app
from weblens.cli.output import console, emit_result, fail_from, note
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.fetch.tokens import TOKENIZER_NAME
from weblens.fetch.typed import fetch_typed
from weblens.result import Source, ToolResult
from weblens.tools.fetch import render_page
from weblens.urls import with_scheme

app = command_app()
ONE_SHOT_IN_PROCESS_BYTES = 512 * 1024
"""Pages up to this size are read in this process: the worker pool takes 0.4-1 s to start."""


class RenderChoice(enum.StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


@app.command("fetch")
def fetch_command(
    url: Annotated[str, typer.Argument(help="The URL to fetch (https:// is assumed when no scheme is given).")],
    max_length: Annotated[
        int | None, typer.Option("--max-length", min=1, help="Most characters to show (default fetch.max_length).")
    ] = None,
    start_index: Annotated[int, typer.Option("--start-index", min=0, help="Character to start at.")] = 0,
    query: Annotated[
        str | None,
        typer.Option("--query", "-q", help="Show only the passages that answer this question."),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=1, help=f"Most tokens to show ({TOKENIZER_NAME}; default 2000 with --query)."),
    ] = None,
    raw: Annotated[bool, typer.Option("--raw", help="The page source as sent, not extracted.")] = False,
    render: Annotated[
        RenderChoice,
        typer.Option("--render", help="Run the page in a browser: auto (when the plain read fails), always, never."),
    ] = RenderChoice.auto,
    wait_for: Annotated[
        str | None, typer.Option("--wait-for", help="A CSS selector to wait for in the browser (implies rendering).")
    ] = None,
    scroll: Annotated[
        int, typer.Option("--scroll", min=0, max=MAX_SCROLL, help="Screens to scroll in a browser (implies it).")
    ] = 0,
    max_age: Annotated[
        float | None,
        typer.Option("--max-age", min=0, help="Oldest cached copy to accept, seconds (0 = download now)."),
    ] = None,
    stale_if_error: Annotated[
        bool,
        typer.Option("--stale-if-error", help="If the site fails, show the last cached copy, marked stale."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result envelope as JSON.")] = False,
) -> None:
    """A URL's main content as markdown (paged), or the passages that answer --query."""
    settings = load_settings(as_json=as_json)
    if settings.fetch.in_process_bytes is None:  # one page: starting the workers costs more than reading it
        settings.fetch.in_process_bytes = ONE_SHOT_IN_PROCESS_BYTES
    target = with_scheme(url)
    started = time.perf_counter()
    try:
        with activity(f"fetching {target}"):
            page = run(
                with_runtime(
                    settings,
                    lambda runtime: fetch_typed(
                        runtime.fetcher,
                        url,
                        max_length=max_length,
                        start_index=start_index,
                        raw=raw,
                        query=query,
                        max_tokens=max_tokens,
                        render=render.value,
                        wait_for=wait_for,
                        scroll=scroll,
                        max_age=max_age,
                        stale_if_error=stale_if_error,
                    ),
                )
            )
    except WeblensError as exc:
        fail_from(exc, as_json=as_json, started=started)
    result = ToolResult.success(
        render_page(page),
        data=page.model_dump(mode="json"),
        sources=[Source(title=page.title, url=page.final_url)],
        brief=f"{page.title or page.final_url} ({page.total_length} chars{', cached' if page.cached else ''})",
    )
    result.duration_ms = (time.perf_counter() - started) * 1000
    if as_json:
        emit_result(result, True)
        return
    if console.is_terminal:
        if page.title:
            console.print(page.title, style="bold")
        size = f" · {page.tokens} tokens ({page.tokenizer})" if page.tokens is not None else ""
        how = f" · rendered in {page.render_ms} ms ({page.render_reason})" if page.rendered else ""
        console.print(f"{page.final_url} · HTTP {page.status} · {page.content_type}{size}{how}", style="dim")
    if page.stale:
        note(f"stale copy, downloaded {page.age_s:.0f} s ago: the site failed ({page.stale_reason})", "yellow")
    elif page.cached:
        note(f"from the cache, downloaded {page.age_s:.0f} s ago", "dim")
    elif page.no_store:
        note("not cached: the site sent Cache-Control: no-store", "dim")
    if page.note:
        note(page.note, "yellow")
    typer.echo(page.content)
    if page.query is not None and page.passages:
        count = f"{len(page.passages)} passage{'' if len(page.passages) == 1 else 's'}"
        note(
            f"… {count} for the query; {page.left_out} of {page.total_length} characters left out: "
            "--start-index N (without --query) reads from character N",
            "dim",
        )
    elif page.next_start_index is not None:
        more = page.total_length - page.next_start_index
        note(f"… {more} more characters: --start-index {page.next_start_index}", "dim")
