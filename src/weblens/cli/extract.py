"""`weblens extract URL... --schema file.json`: the schema's fields as JSON on stdout, checked against each page.

Stdout gets the data alone (an object for one URL, a list for several), so it pipes into
`jq`; each unverified or missing field is noted on stderr. `--json` prints the whole result
envelope: every field's source, evidence and verified flag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from weblens.cli import command_app
from weblens.cli.output import emit_result, fail, fail_from, note
from weblens.cli.progress import activity
from weblens.cli.runner import run, with_runtime
from weblens.cli.settings import load_settings
from weblens.errors import ToolValidationError
from weblens.result import ToolResult
from weblens.urls import with_scheme

app = command_app()


def _schema(path: Path) -> dict[str, Any]:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ToolValidationError(f"cannot read the schema file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ToolValidationError(f"the schema file {path} is not JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise ToolValidationError(f"the schema file {path} must hold a JSON object")
    return schema


@app.command("extract")
def extract_command(
    urls: Annotated[list[str], typer.Argument(help="The page(s) to read, up to 10.")],
    schema: Annotated[Path, typer.Option("--schema", "-s", help="A JSON Schema file: an object with the fields.")],
    instructions: Annotated[str | None, typer.Option("--instructions", help="What to look for, for the model.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="null for values the page's text does not show.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result envelope, with every field's evidence.")] = False,
) -> None:
    """A JSON Schema's fields from pages, every value checked against its page."""
    settings = load_settings(as_json=as_json)
    try:
        args: dict[str, Any] = {"schema": _schema(schema), "instructions": instructions, "strict": strict}
    except ToolValidationError as exc:
        fail_from(exc, as_json=as_json)
    targets = [with_scheme(url) for url in urls]
    args.update({"url": targets[0]} if len(targets) == 1 else {"urls": targets})

    async def work(runtime: Any) -> ToolResult:
        from weblens.tools.extract import WebExtract

        return await WebExtract(runtime).execute(args)

    with activity(f"extracting from {len(targets)} page{'s' if len(targets) > 1 else ''}"):
        result = run(with_runtime(settings, work))

    def render() -> None:
        results = result.data["results"]
        for slot in results:
            if "code" in slot:
                note(f"{slot['url']}: {slot['code']}: {slot['message']}", "red")
                continue
            for name, field in slot["fields"].items():
                if not field["verified"]:
                    note(f"{slot['final_url']}: {name}: {field['note'] or 'not verified'}", "yellow")
            if slot["hint"]:
                note(slot["hint"], "dim")
        data = [slot.get("data") for slot in results]
        typer.echo(json.dumps(data[0] if len(data) == 1 else data, ensure_ascii=False, indent=2))

    if as_json:
        emit_result(result, True)
    elif result.error is not None:
        fail(result.error.message, result.error.code)
    else:
        render()
