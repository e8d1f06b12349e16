"""`web_fetch` given a URL as models and people type it: no scheme, a local server, words."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from typer.testing import CliRunner

from weblens.cache import Cache
from weblens.cli import app
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.dns import MappedResolver
from weblens.testing.pages import PageServer
from weblens.tools.fetch import FetchTool

runner = CliRunner()


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with PageServer() as server:  # plain http, as a local development server is
        yield server


@pytest.fixture
def resolver() -> MappedResolver:
    return MappedResolver({"pages.example": ["127.0.0.1"], "localhost": ["127.0.0.1"]})


@pytest.fixture
async def tool(pages: PageServer, resolver: MappedResolver) -> AsyncIterator[FetchTool]:
    port = _port(pages)
    hosts = [pages.host, f"localhost:{port}", f"pages.example:{port}"]
    settings = Settings(fetch={"allowed_hosts": hosts}, cache={"enabled": False})
    async with Runtime(settings, cache=Cache(None, enabled=False), resolver=resolver) as runtime:
        yield FetchTool(runtime)


def _port(pages: PageServer) -> int:
    return pages.port


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_local_server_without_a_scheme_is_read_over_http_and_the_result_says_so(
    host: str, pages: PageServer, tool: FetchTool
) -> None:
    typed = f"{host}:{_port(pages)}/article"
    result = await tool.execute({"url": typed})
    assert result.ok, result.error
    assert result.data["title"] == "The Skerryvore Ledger"
    assert result.sources[0].url == f"http://{typed}"
    said = (
        f"No scheme was given: https://{typed} failed with a TLS error, so http://{typed} was fetched over plain http."
    )
    assert said in result.text and result.data["note"].startswith(said)


async def test_a_name_on_the_internet_is_not_downgraded_to_http(pages: PageServer, tool: FetchTool) -> None:
    result = await tool.execute({"url": f"pages.example:{_port(pages)}/article"})
    assert not result.ok and result.error is not None
    assert result.error.code == "upstream_error" and "WRONG_VERSION_NUMBER" in result.error.message
    assert pages.count("/article") == 0


async def test_words_are_a_validation_error_before_any_dns_lookup(tool: FetchTool, resolver: MappedResolver) -> None:
    result = await tool.execute({"url": "not a url at all"})
    assert not result.ok and result.error is not None
    assert result.error.code == "validation_error"
    assert "'not a url at all' is not a URL" in result.error.message
    assert resolver.calls == []
    spaced = await tool.execute({"url": "https://not a url at all/"})
    assert spaced.error is not None and spaced.error.code == "validation_error" and resolver.calls == []


def test_the_cli_says_which_scheme_it_used(pages: PageServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBLENS_FETCH_ALLOWED_HOSTS", pages.host)
    typed = f"{pages.host}/article"
    result = runner.invoke(app, ["fetch", typed])
    assert result.exit_code == 0, result.output
    assert "the lighthouse keeper of Skerryvore logged the weather" in result.stdout
    assert f"so http://{typed} was fetched over plain http" in result.stderr
    words = runner.invoke(app, ["fetch", "not a url at all"])
    assert words.exit_code == 2 and "validation_error: 'not a url at all' is not a URL" in words.output
