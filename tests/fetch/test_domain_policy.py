"""The operator's domain policy on fetches: checked before any request, on every redirect hop,
for pages served from the cache, and for remote fetchers (Firecrawl)."""

from __future__ import annotations

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import UrlNotAllowedError
from weblens.fetch import Fetcher, fetch
from weblens.net.ssrf import Resolver
from weblens.runtime import Runtime
from weblens.testing import Reply
from weblens.testing.pages import PageServer
from weblens.tools.fetch import FetchTool
from weblens.tools.firecrawl import firecrawl_tool


def named(pages: PageServer) -> tuple[Settings, Resolver]:
    """Settings that reach the page server as docs.example and evil.example (both on 127.0.0.1)."""

    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    hosts = [f"docs.example:{pages.port}", f"evil.example:{pages.port}"]
    return Settings(fetch={"allowed_hosts": hosts}, policy={"allow_domains": ["docs.example"]}), resolver


async def test_a_url_outside_the_policy_is_refused_before_any_request(pages: PageServer) -> None:
    settings, resolver = named(pages)
    pages.route("GET", "/robots.txt", Reply(body="User-agent: *\nAllow: /\n"))
    page = await fetch(f"http://docs.example:{pages.port}/article", settings=settings, cache=Cache(None),
                       resolver=resolver)
    assert page.title
    with pytest.raises(UrlNotAllowedError, match=r"evil\.example is outside the allowed domains \(docs\.example\)"):
        await fetch(f"http://evil.example:{pages.port}/article", settings=settings, cache=Cache(None),
                    resolver=resolver, respect_robots=True)
    assert pages.count("/article") == 1 and pages.count("/robots.txt") == 0


async def test_a_redirect_out_of_the_policy_is_refused_at_that_hop(pages: PageServer) -> None:
    settings, resolver = named(pages)
    start = f"http://docs.example:{pages.port}/redirect?to=http://evil.example:{pages.port}/article"
    with pytest.raises(UrlNotAllowedError) as info:
        await fetch(start, settings=settings, cache=Cache(None), resolver=resolver)
    assert info.value.code == "url_not_allowed" and pages.count("/article") == 0 and pages.count("/redirect") == 1


async def test_a_cached_page_that_landed_outside_the_policy_is_not_served(pages: PageServer) -> None:
    settings, resolver = named(pages)
    cache = Cache(None)
    start = f"http://docs.example:{pages.port}/redirect?to=http://evil.example:{pages.port}/article"
    open_settings = settings.model_copy(update={"policy": settings.policy.model_copy(update={"allow_domains": []})})
    async with Fetcher(open_settings, cache=cache, resolver=resolver) as open_fetcher:
        assert (await open_fetcher.fetch(start)).final_url.startswith("http://evil.example")
    async with Fetcher(settings, cache=cache, resolver=resolver) as strict_fetcher:
        with pytest.raises(UrlNotAllowedError):
            await strict_fetcher.fetch(start)
    assert pages.count("/article") == 1  # the refused one came from the cache: no new request either


async def test_web_fetch_reports_url_not_allowed_to_the_model(pages: PageServer) -> None:
    settings, resolver = named(pages)
    runtime = Runtime(settings.model_copy(update={"policy": settings.policy.model_copy(
        update={"allow_domains": [], "block_domains": ["evil.example"]})}), cache=Cache(None),
        resolver=resolver)
    result = await FetchTool(runtime).execute({"url": f"http://sub.evil.example:{pages.port}/article"})
    assert result.error is not None and result.error.code == "url_not_allowed" and not result.error.retryable
    assert "blocked domains (evil.example)" in result.error.message and pages.count() == 0
    await runtime.aclose()


async def test_firecrawl_is_held_to_the_same_policy() -> None:
    runtime = Runtime(Settings(firecrawl={"api_key": "fc-test-key", "base_url": "http://127.0.0.1:9"},
                               policy={"block_domains": ["evil.example"]}), cache=Cache(None))
    result = await firecrawl_tool(runtime=runtime).execute({"url": "https://evil.example/x"})
    assert result.error is not None and result.error.code == "url_not_allowed"
    await runtime.aclose()
