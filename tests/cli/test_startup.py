"""Start-up: each command loads only what it uses (the timings are in bench/startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from weblens.cli import COMMANDS, load_command

HEAVY = ("openai", "trafilatura", "pypdf", "mcp", "uvicorn")


def imported_by(*args: str, stdin: str = "") -> set[str]:
    """Modules a `python -X importtime ...` run imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def test_import_weblens_loads_no_heavy_library() -> None:
    loaded = imported_by("-c", "import weblens; weblens.__version__")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
    assert "weblens.config" not in loaded


def test_the_library_entry_points_load_no_reader_or_model_client() -> None:
    loaded = imported_by("-c", "import weblens; weblens.fetch, weblens.search, weblens.Settings, weblens.Toolset")
    assert not loaded & {"openai", "trafilatura", "pypdf", "mcp"}


def test_help_imports_no_command() -> None:
    loaded = imported_by("-m", "weblens", "--help")
    assert not {module for _, (module, _) in COMMANDS.items()} & loaded
    assert not loaded & {*HEAVY, "pydantic", "httpx", "rich"}


def test_mcp_answers_initialize_without_loading_the_tools() -> None:
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }  # fmt: skip
    loaded = imported_by("-m", "weblens", "mcp", stdin=json.dumps(hello) + "\n")
    assert "weblens.cli.settings" in loaded and "mcp.server.lowlevel" in loaded
    assert not loaded & {"weblens.tools", "openai", "trafilatura", "pypdf", "weblens.cli.chat", "rich"}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_lines_are_the_commands_own_first_lines(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert (command.help or "").strip().splitlines()[0] == COMMANDS[name][1]
