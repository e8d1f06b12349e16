"""`web_screenshot` as MCP clients and the CLI see it: image content, and a file written."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import types
from typer.testing import CliRunner

from weblens.cli import app
from weblens.config import Settings
from weblens.mcp.server import to_call_result
from weblens.runtime import Runtime
from weblens.testing.apps import AppServer
from weblens.testing.chromium import INSTALL_HINT, chromium_path
from weblens.tools import default_toolset

CHROMIUM = chromium_path()
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason=INSTALL_HINT), pytest.mark.timeout(120)]


@pytest.fixture
def apps() -> Iterator[AppServer]:
    with AppServer() as server:
        yield server  # type: ignore[misc]


async def test_mcp_clients_get_the_screenshot_as_image_content(apps: AppServer, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, fetch={"allowed_hosts": [apps.host]}, browser={"path": CHROMIUM})
    async with Runtime(settings) as runtime:
        tool = default_toolset(runtime).get("web_screenshot")
        assert tool is not None
        result = await tool.execute({"url": apps.url("/app/json"), "format": "jpeg"})
        assert result.ok, result.error
        answer = to_call_result(tool, result)
        exposed = runtime.metrics.render().decode()
    assert 'weblens_renders_total{outcome="ok"} 1.0' in exposed
    assert "weblens_render_seconds_count 1.0" in exposed and "weblens_browser_open_pages 0.0" in exposed
    rss = next(line for line in exposed.splitlines() if line.startswith("weblens_browser_rss_bytes "))
    assert float(rss.split()[1]) > 10_000_000
    images = [block for block in answer.content if isinstance(block, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/jpeg"
    assert base64.b64decode(images[0].data)[:3] == b"\xff\xd8\xff"
    assert "1280×800 JPEG" in result.text and result.data["bytes"] == len(base64.b64decode(images[0].data))


def test_the_cli_writes_the_screenshot(apps: AppServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_FETCH_ALLOWED_HOSTS", apps.host)
    monkeypatch.setenv("WEBLENS_BROWSER_PATH", str(CHROMIUM))
    out = tmp_path / "page.png"
    result = CliRunner().invoke(app, ["screenshot", apps.url("/static"), "-o", str(out), "--full-page"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cli_fetch_renders_when_asked(apps: AppServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_FETCH_ALLOWED_HOSTS", apps.host)
    monkeypatch.setenv("WEBLENS_BROWSER_PATH", str(CHROMIUM))
    rendered = CliRunner().invoke(app, ["fetch", apps.url("/app/json"), "--render", "always"])
    assert rendered.exit_code == 0, rendered.output
    assert "Ledger note 3" in rendered.stdout
    plain = CliRunner().invoke(app, ["fetch", apps.url("/app/json"), "--render", "never"])
    assert plain.exit_code == 0 and "Ledger note 3" not in plain.stdout
