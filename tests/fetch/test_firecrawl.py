"""The Firecrawl client against a local fake speaking Firecrawl's API."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from weblens.config import Settings
from weblens.errors import (
    BlockedError,
    NotConfiguredError,
    NotFoundError,
    RateLimitedError,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
)
from weblens.fetch.client import guard_for
from weblens.fetch.firecrawl import FirecrawlClient
from weblens.testing import Reply
from weblens.testing.pages import FirecrawlFake, gzip_bomb

FIXTURES = Path(__file__).parent.parent / "fixtures" / "firecrawl"


def fixture(name: str) -> dict[str, object]:
    return json.loads((FIXTURES / f"firecrawl_{name}.json").read_text())


@pytest.fixture
def firecrawl() -> Iterator[FirecrawlFake]:
    with FirecrawlFake() as server:
        yield server


DNS = {"example.com": ["93.184.216.34"], "internal.example": ["10.0.0.5"], "wiki.internal": ["10.0.0.7"]}


async def resolver(host: str, port: int) -> list[str]:
    return DNS[host]


def client_for(server: FirecrawlFake, key: str = "fc-test", **fetch: object) -> FirecrawlClient:
    settings = Settings(firecrawl={"api_key": key, "base_url": server.url()}, fetch=fetch)
    return FirecrawlClient(settings.firecrawl, guard=guard_for(settings.fetch, resolver))


async def test_scrape_returns_markdown_title_and_links(firecrawl: FirecrawlFake) -> None:
    firecrawl.queue("/v1/scrape", Reply(body=fixture("scrape_ok")))
    page = await client_for(firecrawl).scrape("https://example.com", include_links=True)
    assert page.content.startswith("# Example Garden Centre")
    assert page.title.startswith("Example Garden Centre")
    assert page.links == ["https://example.com/plants", "https://example.com/workshops", "https://example.com/contact"]
    assert (page.source_url, page.status_code) == ("https://example.com", 200)
    sent = firecrawl.requests[0]
    assert sent.headers["authorization"] == "Bearer fc-test"
    assert sent.json()["formats"] == ["markdown", "links"]
    assert sent.json()["url"] == "https://example.com"


async def test_links_are_left_out_unless_asked(firecrawl: FirecrawlFake) -> None:
    page = await client_for(firecrawl).scrape("https://example.com/x")
    assert page.links is None
    assert firecrawl.requests[0].json()["formats"] == ["markdown"]


@pytest.mark.parametrize(
    ("status", "name", "error"),
    [
        (400, "error_400", ToolValidationError),
        (401, "error_401", NotConfiguredError),
        (402, "error_402", UpstreamError),
        (408, "error_408", ToolTimeoutError),
        (429, "error_429", RateLimitedError),
        (500, "error_500", UpstreamError),
        (403, "error_401", BlockedError),
    ],
)
async def test_errors_map_to_weblens_codes(firecrawl: FirecrawlFake, status: int, name: str, error: type) -> None:
    firecrawl.queue("/v1/scrape", Reply(status=status, body=fixture(name)))
    with pytest.raises(error) as info:
        await client_for(firecrawl).scrape("https://example.com")
    assert f"HTTP {status}" in info.value.message


async def test_401_says_which_variable_to_set(firecrawl: FirecrawlFake) -> None:
    firecrawl.queue("/v1/scrape", Reply(status=401, body=fixture("error_401")))
    with pytest.raises(NotConfiguredError, match="FIRECRAWL_API_KEY"):
        await client_for(firecrawl).scrape("https://example.com")


async def test_429_takes_the_wait_from_the_message(firecrawl: FirecrawlFake) -> None:
    firecrawl.queue("/v1/scrape", Reply(status=429, body=fixture("error_429")))
    with pytest.raises(RateLimitedError) as info:
        await client_for(firecrawl).scrape("https://example.com")
    assert info.value.retry_after_s == 42.0 and info.value.retryable


async def test_402_and_500_differ_in_retryability(firecrawl: FirecrawlFake) -> None:
    firecrawl.queue(
        "/v1/scrape", Reply(status=402, body=fixture("error_402")), Reply(status=500, body=fixture("error_500"))
    )
    with pytest.raises(UpstreamError) as credits:
        await client_for(firecrawl).scrape("https://example.com")
    assert not credits.value.retryable and "credits" in credits.value.message
    with pytest.raises(UpstreamError) as server_error:
        await client_for(firecrawl).scrape("https://example.com")
    assert server_error.value.retryable


async def test_a_200_carrying_the_pages_404_is_not_found(firecrawl: FirecrawlFake) -> None:
    body = fixture("scrape_ok")
    body["data"]["metadata"]["statusCode"] = 404  # type: ignore[index]
    firecrawl.queue("/v1/scrape", Reply(body=body))
    with pytest.raises(NotFoundError, match="HTTP 404"):
        await client_for(firecrawl).scrape("https://example.com")


def test_no_key_is_not_configured() -> None:
    with pytest.raises(NotConfiguredError, match="FIRECRAWL_API_KEY"):
        FirecrawlClient(Settings().firecrawl)


@pytest.mark.parametrize("metadata", [["not", "a", "dict"], {"statusCode": "n/a", "title": "T"}])
async def test_odd_metadata_is_tolerated_not_a_crash(firecrawl: FirecrawlFake, metadata: object) -> None:
    firecrawl.queue("/v1/scrape", Reply(body={"success": True, "data": {"markdown": "# Hi", "metadata": metadata}}))
    page = await client_for(firecrawl).scrape("https://example.com/odd")
    assert (page.content, page.status_code, page.source_url) == ("# Hi", 200, "https://example.com/odd")


REFUSED = {
    "metadata": ("http://169.254.169.254/latest/meta-data/", BlockedError),
    "GCP metadata, IPv6": ("http://[fd20:ce::254]/computeMetadata/v1/", BlockedError),
    "loopback": ("http://127.0.0.1:8080/admin", BlockedError),
    "loopback name": ("http://localhost/", BlockedError),
    "a name resolving to a private address": ("https://internal.example/", BlockedError),
    "a local file": ("file:///etc/passwd", ToolValidationError),
    "javascript": ("javascript:alert(1)", ToolValidationError),
}


@pytest.mark.parametrize("name", list(REFUSED))
async def test_urls_web_fetch_refuses_are_never_sent_to_firecrawl(firecrawl: FirecrawlFake, name: str) -> None:
    url, error = REFUSED[name]
    with pytest.raises(error):
        await client_for(firecrawl).scrape(url)
    assert firecrawl.requests == []


async def test_allowed_hosts_open_the_same_doors_as_for_web_fetch(firecrawl: FirecrawlFake) -> None:
    page = await client_for(firecrawl, allowed_hosts=["wiki.internal"]).scrape("https://wiki.internal/page")
    assert page.status_code == 200
    assert firecrawl.requests[0].json()["url"] == "https://wiki.internal/page"
    with pytest.raises(BlockedError):  # metadata stays shut whatever is allowed
        await client_for(firecrawl, allow_private=True).scrape("http://169.254.169.254/")


async def test_a_gzip_bomb_is_refused_in_bounded_memory(firecrawl: FirecrawlFake) -> None:
    """256 kB of gzip inflating to 256 MB: refused having held about the 64 MB cap, not a network chunk
    inflated whole."""
    body, gzipped = gzip_bomb(256 * 1024 * 1024), {"Content-Encoding": "gzip"}
    firecrawl.queue("/v1/scrape", Reply(body=body, content_type="application/json", headers=gzipped))
    tracemalloc.start()
    try:
        with pytest.raises(UpstreamError, match="more than 64 MB"):
            await client_for(firecrawl).scrape("https://example.com/")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 160 * 1024 * 1024
