"""`weblens screenshot URL -o page.png`: a page as a browser shows it, through weblens' guard."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Literal

import typer

from weblens.cli import command_app
from weblens.cli.output import fail_from, note, print_json
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import WeblensError
from weblens.urls import with_scheme

app = command_app()


class ImageFormat(enum.StrEnum):
    png = "png"
    jpeg = "jpeg"


@app.command("screenshot")
def screenshot_command(
    url: Annotated[str, typer.Argument(help="The page (https:// is assumed when no scheme is given).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the image.")] = Path("page.png"),
    full_page: Annotated[
        bool, typer.Option("--full-page", help="The whole page (height capped), not one screen.")
    ] = False,
    image_format: Annotated[
        ImageFormat | None, typer.Option("--format", help="png or jpeg (default: from the file name, else png).")
    ] = None,
    quality: Annotated[int | None, typer.Option("--quality", min=1, max=100, help="JPEG quality.")] = None,
    wait_for: Annotated[str | None, typer.Option("--wait-for", help="A CSS selector to wait for first.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was saved as JSON.")] = False,
) -> None:
    """Save a screenshot of a web page (PNG or JPEG) as a browser shows it."""
    settings = load_settings(as_json=as_json)
    target = with_scheme(url)
    kind: Literal["png", "jpeg"] = "png"
    if image_format is ImageFormat.jpeg or (image_format is None and output.suffix.lower() in (".jpg", ".jpeg")):
        kind = "jpeg"
    try:
        with activity(f"rendering {target}"):
            shot = run(
                with_runtime(
                    settings,
                    lambda runtime: runtime.fetcher.screenshot(
                        target, full_page=full_page, image_format=kind, quality=quality, wait_for=wait_for
                    ),
                )
            )
    except WeblensError as exc:
        fail_from(exc, as_json=as_json)
    output.write_bytes(shot.image)
    saved = {
        "path": str(output), "url": shot.final_url, "format": shot.format, "width": shot.width,
        "height": shot.height, "bytes": len(shot.image), "cut": shot.cut,
    }  # fmt: skip
    if as_json:
        print_json(saved)
        return
    cut = " (cut at the height limit)" if shot.cut else ""
    note(f"{output}: {shot.width}×{shot.height} {shot.format.upper()}, {len(shot.image):,} bytes{cut}", "dim")
