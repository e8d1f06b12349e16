"""`weblens fetch URL`: a page of any URL as markdown, or the whole page record as JSON."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from weblens.cli import app
from weblens.cli.output import console, emit, fail_from
from weblens.config import Settings, get_settings
from weblens.errors import WeblensError
from weblens.fetch import Page, fetch


async def _fetch(url: str, max_length: int | None, start_index: int, raw: bool, settings: Settings) -> Page:
    return await fetch(url, max_length=max_length, start_index=start_index, raw=raw, settings=settings)


@app.command("fetch")
def fetch_command(
    url: Annotated[str, typer.Argument(help="The http(s) URL to fetch.")],
    max_length: Annotated[
        int | None, typer.Option("--max-length", min=1, help="Most characters to show (default fetch.max_length).")
    ] = None,
    start_index: Annotated[int, typer.Option("--start-index", min=0, help="Character to start at.")] = 0,
    raw: Annotated[bool, typer.Option("--raw", help="The page source as sent, not extracted.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The page record as JSON.")] = False,
) -> None:
    """Fetch a URL and print its main content as markdown (paged; see --start-index)."""
    try:
        settings = get_settings()
        page = asyncio.run(_fetch(url, max_length, start_index, raw, settings))
    except WeblensError as exc:
        fail_from(exc)

    def render() -> None:
        title = f"[bold]{page.title}[/]\n" if page.title else ""
        console.print(f"{title}[dim]{page.final_url} · HTTP {page.status} · {page.content_type}[/]", highlight=False)
        if page.note:
            console.print(f"[yellow]{page.note}[/]", highlight=False)
        console.print(page.content, markup=False, highlight=False)
        if page.next_start_index is not None:
            console.print(
                f"[dim]… {page.total_length - page.next_start_index} more characters: "
                f"--start-index {page.next_start_index}[/]",
                highlight=False,
            )

    emit(page.model_dump(mode="json"), as_json, render)
