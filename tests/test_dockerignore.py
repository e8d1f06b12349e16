""".dockerignore keeps secrets, the virtualenv and caches out of `docker build .`, and keeps
everything the Dockerfile copies in. Docker is not needed: the file is read with Docker's own
rules (patterns relative to the context root, `*` within one path element, `**` across any
number, a pattern matching a directory excludes everything under it, `!` re-includes, the
last matching pattern wins)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def _regex(pattern: str) -> re.Pattern[str]:
    out = ""
    for part in re.split(r"(\*\*/|\*\*|\*|\?)", pattern):
        out += {"**/": "(.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
    return re.compile(out + r"\Z")


def _rules() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keep = line.startswith("!")
            rules.append((keep, _regex(line.removeprefix("!").strip("/"))))
    return rules


def ignored(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether Docker leaves `path` (relative to the context root) out of the build context."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    verdict = False
    for keep, rule in rules:
        if any(rule.match(prefix) for prefix in prefixes):
            verdict = not keep
    return verdict


def copied_sources() -> list[str]:
    """The context paths the Dockerfile's COPY lines read (not those copied from another stage)."""
    sources: list[str] = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        words = shlex.split(line) if line.startswith("COPY ") else []
        if words and not any(word.startswith("--from") for word in words):
            sources.extend(word.rstrip("/").removeprefix("./") for word in words[1:-1] if not word.startswith("--"))
    return sources


def test_the_dockerfile_copies_something() -> None:
    assert {"pyproject.toml", "README.md", "src"} <= set(copied_sources())


@pytest.mark.parametrize("path", ["README.md", "pyproject.toml", "LICENSE", "src/weblens/__init__.py"])
def test_what_the_build_needs_is_sent(path: str) -> None:
    assert not ignored(path, _rules())


def test_every_file_the_dockerfile_copies_is_sent() -> None:
    rules = _rules()
    for source in copied_sources():
        target = ROOT / source
        files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()]
        assert files, source
        for file in files:
            relative = file.relative_to(ROOT).as_posix()
            if "__pycache__" not in relative:
                assert not ignored(relative, rules), relative


@pytest.mark.parametrize(
    "path",
    [".venv/bin/python", ".git/HEAD", ".env", ".env.production", "weblens.toml", "src/weblens/__pycache__/x.pyc",
     ".pytest_cache/v/cache", ".mypy_cache/3.11/x.json", "dist/weblens-1.0-py3-none-any.whl", "site/index.html",
     "tests/app/screenshots/page.png"],
)  # fmt: skip
def test_secrets_environments_caches_and_outputs_stay_out(path: str) -> None:
    assert ignored(path, _rules())
