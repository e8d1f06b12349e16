"""The documentation site builds with `mkdocs build --strict`: a broken link or anchor, a nav
entry naming a missing page or a bad setting fails the suite, not a reader; and the README, a
newcomer's page, points at the topic pages."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
BUILD_TIMEOUT_S = 120


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs need the dev extras: pip install -e '.[dev]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about its successor, on every build
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "site" / "mcp" / "index.html").exists()


def test_the_readme_links_the_docs() -> None:
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", (ROOT / "README.md").read_text()))
    pages = {page.name for page in (ROOT / "docs").glob("*.md")}
    assert linked <= pages, linked - pages
    assert {"index.md", "tools.md", "search.md", "fetch.md", "agent.md", "mcp.md", "fleet.md"} <= linked
