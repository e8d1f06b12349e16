"""A cache that cannot be used is not a reason to stop: `weblens search` runs without it
(one warning on stderr) and a corrupt cache file is rebuilt (issue 9 §5)."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.testing.providers import FakeBrave


@pytest.fixture(scope="module")
def brave() -> Iterator[FakeBrave]:
    with FakeBrave() as fake:
        yield fake


def _search(brave: FakeBrave, **env: str) -> subprocess.CompletedProcess[str]:
    variables = {
        **os.environ,
        "BRAVE_API_KEY": brave.api_key,
        "WEBLENS_BRAVE_BASE_URL": brave.url(),
        "WEBLENS_SEARCH_PROVIDER": "brave",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "weblens", "search", "sourdough starter", "-n", "1", "--json"],
        env=variables, capture_output=True, text=True, timeout=90,
    )


def _answered(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "starter-not-rising" in done.stdout


def test_a_corrupt_cache_file_is_rebuilt(brave: FakeBrave, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    path.write_bytes(b"this is not a database " * 200)
    done = _search(brave, WEBLENS_CACHE_PATH=str(path))
    _answered(done)
    assert done.stderr.count("is corrupt") == 1 and str(path) in done.stderr
    with sqlite3.connect(path) as db:  # a working cache again, holding the answer
        assert db.execute("SELECT count(*) FROM entries").fetchone()[0] == 1
    again = _search(brave, WEBLENS_CACHE_PATH=str(path))
    _answered(again)
    assert "is corrupt" not in again.stderr


def test_a_data_dir_that_cannot_be_created_runs_without_the_cache(brave: FakeBrave, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    done = _search(brave, WEBLENS_DATA_DIR=str(blocker / "weblens"))
    _answered(done)
    assert done.stderr.count("cannot be used") == 1 and "WEBLENS_CACHE_PATH" in done.stderr


def test_a_cache_path_that_is_a_directory_runs_without_the_cache(brave: FakeBrave, tmp_path: Path) -> None:
    done = _search(brave, WEBLENS_CACHE_PATH=str(tmp_path))
    _answered(done)
    assert done.stderr.count("cannot be used") == 1


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes read-only files anyway")
def test_a_read_only_cache_runs_without_it(brave: FakeBrave, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "cache.sqlite3"
    sqlite3.connect(path).close()
    path.chmod(stat.S_IRUSR)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        done = _search(brave, WEBLENS_CACHE_PATH=str(path))
    finally:
        folder.chmod(stat.S_IRWXU)
    _answered(done)
    assert done.stderr.count("cannot be used") + done.stderr.count("failed") == 1
