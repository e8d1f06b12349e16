"""The same walks as a user meets them: `weblens map`, `weblens crawl -o`, the tools, and MCP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.client import Client
from typer.testing import CliRunner

import weblens
from weblens.cache import Cache
from weblens.config import Settings
from weblens.context import CancelSignal, ToolContext
from weblens.mcp.http import standalone_app
from weblens.runtime import Runtime
from weblens.testing import ServedApp
from weblens.testing.sites import DocsSite
from weblens.tools.catalog import default_toolset

runner = CliRunner()


@pytest.fixture
def docs() -> Iterator[DocsSite]:
    with DocsSite(pages=8) as server:
        yield server


def _env(site: DocsSite, tmp_path: Path) -> dict[str, str]:
    return {
        "WEBLENS_FETCH_ALLOWED_HOSTS": site.host,
        "WEBLENS_CACHE_ENABLED": "false",
        "WEBLENS_DATA_DIR": str(tmp_path / "data"),
        "WEBLENS_FETCH_WORKERS": "1",
    }


def test_weblens_map_prints_one_url_a_line(docs: DocsSite, tmp_path: Path) -> None:
    from weblens.cli import app

    result = runner.invoke(app, ["map", docs.url("/"), "--include", "/docs/*"], env=_env(docs, tmp_path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == [docs.url("/docs/page-0"), "sitemap", "2026-01-01", "Installation guide, part 0"]
    assert [line.split("\t")[0] for line in lines] == [docs.url(f"/docs/page-{i}") for i in range(8)]


def test_weblens_crawl_writes_a_markdown_file_per_page_and_an_index(docs: DocsSite, tmp_path: Path) -> None:
    from weblens.cli import app

    out = tmp_path / "site"
    result = runner.invoke(app, ["crawl", docs.url("/"), "-o", str(out), "--max-pages", "3"], env=_env(docs, tmp_path))
    assert result.exit_code == 0, result.output
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    # written as pages arrive: with 2 requests in flight the start page need not finish first
    assert len(index) == 3 and [e["depth"] for e in index if e["url"] == docs.url("/")] == [0]
    files = sorted(p.name for p in out.glob("*.md"))
    assert files == sorted(entry["file"] for entry in index)
    page_1 = next(e for e in index if e["url"] == docs.url("/docs/page-1"))
    text = (out / page_1["file"]).read_text()
    assert text.startswith("# Configuration guide, part 1\n\nSource: ") and docs.fact(1) in text


async def test_web_crawl_cites_each_page_and_fences_what_sites_wrote(docs: DocsSite) -> None:
    settings = Settings(fetch={"allowed_hosts": [docs.host], "workers": 1})
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        tools = default_toolset(runtime)
        result = await tools.get("web_crawl").execute({"url": docs.url("/"), "query": "pagination", "max_pages": 3},
                                                      ToolContext())  # fmt: skip
        mapped = await tools.get("web_map").execute({"url": docs.url("/"), "max_urls": 3}, ToolContext())
    assert result.ok and mapped.ok
    assert result.sources[0].url == docs.url("/docs/page-4")  # best first
    assert "[1] Pagination guide, part 4" in result.text
    begin = result.text.index("EXTERNAL-CONTENT")
    assert result.text.index("[1] Pagination guide") > begin  # the page's title is inside the fence
    assert len(mapped.data["urls"]) == 3 and "Limit: max_urls=3" in mapped.text


async def test_a_cancelled_web_crawl_stops_and_says_cancelled() -> None:
    async with DocsSite(pages=10, latency_s=0.3) as site:
        settings = Settings(fetch={"allowed_hosts": [site.host], "workers": 1})
        async with Runtime(settings=settings, cache=Cache(None)) as runtime:
            signal = CancelSignal()
            tool = default_toolset(runtime).get("web_crawl")
            call = asyncio.ensure_future(tool.execute({"url": site.url("/")}, ToolContext(cancel=signal)))
            await asyncio.sleep(0.5)
            signal.cancel()
            result = await call
            asked = len(site.requests)
            await asyncio.sleep(0.8)
    assert result.error is not None and result.error.code == "cancelled"
    assert len(site.requests) == asked


async def test_over_mcp_a_crawl_reports_progress(tmp_path: Path) -> None:
    async with DocsSite(pages=6, latency_s=0.3) as site:
        settings = Settings(
            fetch={"allowed_hosts": [site.host], "workers": 1},
            data_dir=tmp_path / "data",
            cache={"enabled": False},
            mcp={"tools": ["web_map", "web_crawl"]},
        )
        served = await asyncio.to_thread(ServedApp, standalone_app(settings, host="127.0.0.1"))
        messages: list[str] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            messages.append(message or "")

        try:
            async with Client(served.url("/mcp")) as client:
                listed = {tool.name for tool in (await client.list_tools()).tools}
                result = await client.call_tool("web_crawl", {"url": site.url("/"), "max_pages": 4},
                                                progress_callback=progress)  # fmt: skip
        finally:
            await asyncio.to_thread(served.stop)
    assert listed == {"web_map", "web_crawl"}
    assert not result.is_error
    assert any(message.startswith("crawl:") for message in messages), messages


async def test_the_public_api_walks_a_site(docs: DocsSite) -> None:
    settings = Settings(fetch={"allowed_hosts": [docs.host], "workers": 1})
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        found = await weblens.map_site(docs.url("/"), max_urls=2, fetcher=runtime.fetcher)
        pages = [page async for page in weblens.crawl(docs.url("/"), max_pages=2, fetcher=runtime.fetcher)]
    assert len(found.urls) == 2 and len(pages) == 2
