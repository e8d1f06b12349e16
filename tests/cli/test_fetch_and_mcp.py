"""`weblens fetch` as typed by hand, and `weblens mcp` started by hand in a terminal."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.pages import PageServer, Reply
from weblens.urls import with_scheme

from .conftest import WEBLENS

runner = CliRunner()


def test_a_url_without_a_scheme_is_tried_over_https_and_it_says_so(pages: PageServer) -> None:
    bare = pages.url("/article").removeprefix("http://")

    result = runner.invoke(app, ["fetch", bare], env={"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host})

    assert f"No scheme was given: https://{bare} failed with a TLS error" in result.stderr
    assert result.exit_code == 0 and "the lighthouse keeper of Skerryvore logged" in result.stdout
    assert "relative" not in result.output and "Traceback" not in result.output


def test_with_scheme_only_adds_one_where_none_is() -> None:
    assert with_scheme("example.com") == "https://example.com"
    assert with_scheme("localhost:8080/x") == "https://localhost:8080/x"
    assert with_scheme("http://example.com") == "http://example.com"
    assert with_scheme("mailto:someone@example.com") == "mailto:someone@example.com"


def test_a_refused_private_address_names_the_settings_that_allow_it() -> None:
    result = runner.invoke(app, ["fetch", "http://127.0.0.1:9/"])

    assert result.exit_code == 1
    assert "blocked" in result.stderr and "loopback" in result.stderr
    assert "WEBLENS_FETCH_ALLOWED_HOSTS" in result.stderr and "WEBLENS_FETCH_ALLOW_PRIVATE" in result.stderr


def test_a_refused_metadata_address_offers_no_way_around() -> None:
    result = runner.invoke(app, ["fetch", "http://169.254.169.254/latest/meta-data/"])

    assert result.exit_code == 1 and "metadata" in result.stderr
    assert "WEBLENS_FETCH_ALLOW_PRIVATE" not in result.stderr


def test_fetch_into_a_file_writes_the_markdown(pages: PageServer, tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    with target.open("w") as out:
        done = subprocess.run(
            [*WEBLENS, "fetch", pages.url("/article"), "--max-length", "400"],
            stdout=out, stderr=subprocess.PIPE, text=True, timeout=60,
            env={**os.environ, "WEBLENS_FETCH_ALLOWED_HOSTS": pages.host},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    as_json = runner.invoke(
        app, ["fetch", pages.url("/article"), "--max-length", "400", "--json"],
        env={"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host},
    )  # fmt: skip
    content = json.loads(as_json.stdout)["data"]["content"]
    assert target.read_text() == content + "\n"  # the markdown alone: no header, no JSON
    assert "more characters: --start-index" in done.stderr


def test_mcp_in_a_terminal_says_it_waits_for_a_client_and_stops_on_ctrl_c(terminal: Callable[..., Any]) -> None:
    run = terminal("mcp")
    run.expect("Ctrl-C stops.")
    assert "waiting for an MCP client on stdin" in run.err and "mcpServers" in run.err and "--transport http" in run.err

    run.interrupt()

    assert run.wait(timeout=10) == 130
    assert "Traceback" not in run.err and "KeyboardInterrupt" not in run.err


def test_mcp_started_by_a_client_says_nothing_on_stderr(run_piped: Callable[..., Any]) -> None:
    done = run_piped("mcp")  # stdin at end: the client went away

    assert done.returncode == 0, done.stderr
    assert "waiting for an MCP client" not in done.stderr and done.stdout == ""


def test_fetch_reads_on_from_the_copy_the_first_page_came_from(pages: PageServer, tmp_path: Path) -> None:
    """`--start-index` with `--max-age 0` repeated (as a script pasting the hint would) reads the kept copy: the
    offsets count characters of it, and the site's newer version is not cut at them."""
    items = "".join(f"<p>Item {i} (first edition): the council met about the harbour wall.</p>" for i in range(40))
    pages.route("GET", "/bulletin", Reply(body=f"<html><body><article>{items}</article></body></html>"))
    env = {"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host, "WEBLENS_CACHE_PATH": str(tmp_path / "cache.sqlite3")}
    first = runner.invoke(app, ["fetch", pages.url("/bulletin"), "--max-length", "500", "--max-age", "0", "--json"],
                          env=env)  # fmt: skip
    pages.route("GET", "/bulletin", Reply(body=items.replace("first", "second")))
    start = json.loads(first.stdout)["data"]["next_start_index"]
    second = runner.invoke(
        app, ["fetch", pages.url("/bulletin"), "--max-length", "500", "--max-age", "0", "--start-index", str(start),
              "--json"], env=env,
    )  # fmt: skip

    assert second.exit_code == 0, second.stderr
    data = json.loads(second.stdout)["data"]
    assert data["cached"] is True and "second edition" not in data["content"]
    assert pages.count("/bulletin") == 1
