"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, TypeScript) against the
gateway over streamable HTTP, for every server scenario that applies to weblens.

Needs Node; the suite is installed once into pytest's cache directory (git-ignored) and the tests
skip cleanly without Node or the package. 0.1.6 is the version that runs on Node 20.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import npm_tool

PACKAGE = "@modelcontextprotocol/conformance@0.1.6"
RUN_TIMEOUT_S = 90
APPLIES = ["server-initialize", "tools-list", "logging-set-level"]
_FIXTURE_TOOLS = (
    "calls a tool of the suite's own reference server by name (test_simple_text, test_tool_with_logging, ...); "
    "weblens serves its own tools"
)
NOT_APPLICABLE = {
    "completion-complete": "weblens has no prompts or resource templates to complete arguments for",
    "tools-call-simple-text": _FIXTURE_TOOLS,
    "tools-call-image": _FIXTURE_TOOLS + "; none returns images",
    "tools-call-audio": _FIXTURE_TOOLS + "; none returns audio",
    "tools-call-embedded-resource": _FIXTURE_TOOLS + "; sources are resource_link blocks, not embedded resources",
    "tools-call-mixed-content": _FIXTURE_TOOLS + "; none returns images or embedded resources",
    "tools-call-with-logging": _FIXTURE_TOOLS + " (weblens' log messages: tests/mcp/test_logging.py)",
    "tools-call-error": _FIXTURE_TOOLS + " (isError results: tests/mcp/test_server.py)",
    "tools-call-with-progress": _FIXTURE_TOOLS + " (weblens' progress: tests/mcp/test_progress.py)",
    "tools-call-sampling": "weblens never asks the client's model (no sampling)",
    "tools-call-elicitation": "weblens never asks the user for input (no elicitation)",
    "elicitation-sep1034-defaults": "no elicitation",
    "elicitation-sep1330-enums": "no elicitation",
    "resources-list": "weblens serves tools only: no resources capability",
    "resources-read-text": "no resources",
    "resources-read-binary": "no resources",
    "resources-templates-read": "no resources",
    "resources-subscribe": "no resources",
    "resources-unsubscribe": "no resources",
    "prompts-list": "weblens serves tools only: no prompts capability",
    "prompts-get-simple": "no prompts",
    "prompts-get-with-args": "no prompts",
    "prompts-get-embedded-resource": "no prompts",
    "prompts-get-with-image": "no prompts",
}


@pytest.fixture(scope="session")
def conformance(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    return npm_tool(request, tmp_path_factory, PACKAGE, "conformance", "mcp-conformance")


def run(conformance: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # cwd: the suite saves its results under ./results
    return subprocess.run([conformance, *args], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=cwd)


def test_every_server_scenario_is_run_or_has_a_reason(conformance: str, tmp_path: Path) -> None:
    listed = run(conformance, "list", cwd=tmp_path).stdout
    server_part = listed.split("Client scenarios")[0]
    scenarios = re.findall(r"^\s*- (\S+)$", server_part, re.M)
    assert sorted(scenarios) == sorted([*APPLIES, *NOT_APPLICABLE]), scenarios


@pytest.mark.parametrize("scenario", APPLIES)
def test_scenario_passes(
    scenario: str, conformance: str, gateway_settings: Callable[..., Any], serve_http: Callable[..., Any],
    tmp_path: Path,
) -> None:  # fmt: skip
    url = serve_http(gateway_settings()).url()
    done = run(conformance, "server", "--url", url, "--scenario", scenario, cwd=tmp_path)
    summary = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", done.stdout)
    assert done.returncode == 0 and summary is not None, done.stdout[-3000:] + done.stderr[-2000:]
    passed, total, failed = map(int, summary.groups())
    assert passed == total > 0 and failed == 0, done.stdout[-3000:]
