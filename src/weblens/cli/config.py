"""`weblens config`: the effective settings (secrets masked) and where each came from.

`--json` gives each value as a JSON value (numbers, booleans, lists, null), not as text.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from pydantic import SecretStr
from rich.table import Table

from weblens.cli import command_app
from weblens.cli.output import console, emit, fail_from
from weblens.cli.settings import load_settings
from weblens.config import Settings, config_file_path, describe
from weblens.errors import WeblensError
from weblens.redact import MASK, mask_url

app = command_app()


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        found: dict[str, Any] = {}
        for key, value in data.items():
            found.update(_leaves(value, f"{prefix}{key}."))
        return found
    return {prefix[:-1]: data}


def json_values(settings: Settings) -> dict[str, Any]:
    """Every setting as a JSON value, secrets and the passwords in URLs masked."""
    secrets = {key for key, value in _leaves(settings.model_dump()).items() if isinstance(value, SecretStr)}
    values = _leaves(settings.model_dump(mode="json"))
    return {
        key: MASK if key in secrets and value is not None else mask_url(value) if isinstance(value, str) else value
        for key, value in values.items()
    }


@app.command()
def config(as_json: Annotated[bool, typer.Option("--json", help="Plain JSON output.")] = False) -> None:
    """Show the effective settings (secrets masked) and where each came from."""
    settings = load_settings(as_json=as_json)
    try:
        rows = describe(settings)
    except WeblensError as exc:
        fail_from(exc, as_json=as_json)
    path = config_file_path()
    values = json_values(settings)
    data = {
        "config_file": str(path) if path else None,
        "settings": [{"key": k, "value": values.get(k), "source": s} for k, _, s in rows],
    }

    def render() -> None:
        table = Table("setting", "value", "from", title=f"config file: {path or '(none)'}")
        for key, shown, source in rows:
            value = values.get(key)
            text = shown if isinstance(value, str) or value is None else json.dumps(value, ensure_ascii=False)
            table.add_row(key, text, source, style=None if source == "default" else "bold")
        console.print(table)

    emit(data, as_json, render)
