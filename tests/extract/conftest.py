"""A page server and settings that let fetches reach it; the model only where a test sets one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.config import Settings
from weblens.testing.server import FakeServer, Reply


class Site:
    """Pages served by HTML, on one local server."""

    def __init__(self, server: FakeServer) -> None:
        self.server = server

    def page(self, path: str, html: str, status: int = 200) -> str:
        self.server.route("GET", path, Reply(status=status, body=html, content_type="text/html; charset=utf-8"))
        return self.server.url(path)

    def settings(self, tmp_path: Path, model_url: str | None = None) -> Settings:
        llm = {"base_url": model_url, "model": "scripted-model"} if model_url else {}
        return Settings(fetch={"allowed_hosts": [f"127.0.0.1:{self.server.port}"], "respect_robots": False},
                        data_dir=tmp_path, cache={"enabled": False}, llm=llm)  # fmt: skip


@pytest.fixture
def site() -> Iterator[Site]:
    with FakeServer() as server:
        yield Site(server)
