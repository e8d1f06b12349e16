"""`map_site` against real local sites: every source, every filter, and every bound."""

from __future__ import annotations

import gzip
from collections.abc import Callable

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import ToolValidationError, UrlNotAllowedError
from weblens.fetch.fetcher import Fetcher
from weblens.policy import DomainPolicy
from weblens.sites import map_site
from weblens.sites.map import MAX_SITEMAP_DEPTH, MAX_SITEMAP_FILES
from weblens.testing import FakeServer, RecordedRequest, Reply
from weblens.testing.dns import MappedResolver
from weblens.testing.sites import DocsSite

from .conftest import fetcher_for, slow_sitemaps


async def test_sitemaps_llms_txt_and_start_page_are_read_in_order(site: DocsSite, fetcher: Fetcher):
    found = await map_site(site.url("/"), fetcher=fetcher)
    urls = [entry.url for entry in found.urls]
    # the gzipped sitemap (pages 0-9) and the plain one (10-19), reached through robots.txt's index
    assert urls[:20] == [site.url(f"/docs/page-{i}") for i in range(20)]
    assert found.sources == {"sitemap": 20, "page": 3}  # llms.txt named only pages the sitemaps had
    first = found.urls[0]
    assert first.found_in == "sitemap" and first.lastmod == "2026-01-01"
    assert first.title == "Installation guide, part 0"  # lent by llms.txt
    assert {e.url for e in found.urls if e.found_in == "page"} == {
        site.url("/"),
        site.url("/calendar?month=1"),
        site.url("/loop/a/"),
    }
    paths = [r.path for r in site.requests]
    # the start page is asked first (where it redirects is where the site is), its links kept last
    assert paths[:5] == ["/robots.txt", "/", "/sitemap.xml", "/sitemaps/docs-1.xml.gz", "/sitemaps/docs-2.xml"]
    assert "/llms.txt" in paths and "/docs/page-0" not in paths  # a map reads no page but the start page


async def test_a_query_ranks_by_titles_and_url_words(site: DocsSite, fetcher: Fetcher):
    found = await map_site(site.url("/"), query="caching guide", fetcher=fetcher)
    assert found.urls[0].title == "Caching guide, part 3"
    assert found.urls[0].score == 1.0
    assert all((a.score or 0) >= (b.score or 0) for a, b in zip(found.urls, found.urls[1:], strict=False))


async def test_globs_filter_paths_and_max_urls_cuts(site: DocsSite, fetcher: Fetcher):
    found = await map_site(site.url("/"), include_paths=["/docs/page-1*"], exclude_paths=["*-12"], fetcher=fetcher)
    assert sorted(e.url for e in found.urls) == sorted(
        site.url(f"/docs/page-{i}") for i in (1, 10, 11, 13, 14, 15, 16, 17, 18, 19)
    )
    assert found.left_out["filtered"] > 0
    few = await map_site(site.url("/"), max_urls=5, fetcher=fetcher)
    assert len(few.urls) == 5 and any("max_urls=5" in limit for limit in few.limits)


async def test_robots_disallowed_urls_are_left_out():
    async with DocsSite(pages=6, disallow=["/docs/page-2", "/calendar"]) as site, fetcher_for(site.host) as fetcher:
        found = await map_site(site.url("/"), fetcher=fetcher)
    urls = {e.url for e in found.urls}
    assert site.url("/docs/page-2") not in urls and site.url("/calendar?month=1") not in urls
    assert site.url("/docs/page-1") in urls
    assert found.left_out["robots"] >= 2


async def test_the_operator_policy_applies_before_any_request():
    async with DocsSite(pages=4) as site, fetcher_for(site.host) as open_fetcher:
        blocked = Fetcher(open_fetcher.settings, cache=open_fetcher.cache, policy=DomainPolicy.of(None, ["127.0.0.1"]))
        async with blocked:
            with pytest.raises(UrlNotAllowedError):
                await map_site(site.url("/"), fetcher=blocked)
    assert site.requests == []


async def test_off_site_and_non_http_links_are_never_kept():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        page = ("<html><head><title>Home</title></head><body><a href='mailto:a@b.c'>mail</a>"
                "<a href='javascript:alert(1)'>js</a><a href='http://other.example/x'>off</a>"
                "<a href='ftp://127.0.0.1/f'>ftp</a><a href='/ok'>ok</a></body></html>")  # fmt: skip
        server.route("GET", "/", Reply(body=page, content_type="text/html"))
        found = await map_site(server.url("/"), fetcher=fetcher)
    assert [e.url for e in found.urls] == [server.url("/"), server.url("/ok")]
    assert found.left_out == {"off_site": 1}
    assert [r.path for r in server.requests if r.path not in ("/robots.txt", "/sitemap.xml", "/llms.txt", "/")] == []


async def test_relative_links_resolve_against_where_a_redirect_led():
    # `/docs` -> `/docs/` is the commonest redirect there is; `intro` on that page is /docs/intro, not /intro
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        server.route("GET", "/docs", Reply(status=301, headers={"Location": "/docs/"}))
        server.route("GET", "/docs/", Reply(body="<html><title>Docs</title><a href='intro'>Intro</a></html>",
                                            content_type="text/html"))  # fmt: skip
        server.route("GET", "/sitemap.xml", Reply(status=302, headers={"Location": "/maps/sitemap.xml"}))
        server.route("GET", "/maps/sitemap.xml", Reply(body="<urlset><url><loc>part-2</loc></url></urlset>",
                                                       content_type="application/xml"))  # fmt: skip
        server.route("GET", "/llms.txt", Reply(status=302, headers={"Location": "/docs/llms.txt"}))
        server.route("GET", "/docs/llms.txt", Reply(body="# Docs\n- [Setup](setup.md)\n", content_type="text/plain"))
        found = await map_site(server.url("/docs"), fetcher=fetcher)
    assert [e.url for e in found.urls] == [
        server.url("/maps/part-2"), server.url("/docs/setup.md"), server.url("/docs"), server.url("/docs/intro"),
    ]  # fmt: skip


def _index(server: FakeServer, *children: str) -> Reply:
    entries = "".join(f"<sitemap><loc>{server.url(c)}</loc></sitemap>" for c in children)
    return Reply(body=f"<sitemapindex>{entries}</sitemapindex>", content_type="application/xml")


async def test_a_loop_of_sitemap_indexes_stops_and_says_so():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        server.route("GET", "/sitemap.xml", _index(server, "/a.xml"))
        server.route("GET", "/a.xml", _index(server, "/sitemap.xml"))
        found = await map_site(server.url("/"), fetcher=fetcher)
    assert server.count("/sitemap.xml") == 1 and server.count("/a.xml") == 1
    assert any("loop" in limit for limit in found.limits)


async def test_deeply_nested_and_very_many_sitemaps_are_bounded():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        server.route("GET", "/sitemap.xml", _index(server, "/d1.xml"))
        for level in range(1, 10):
            server.route("GET", f"/d{level}.xml", _index(server, f"/d{level + 1}.xml"))
        deep = await map_site(server.url("/"), fetcher=fetcher)
        assert server.count("/d4.xml") == 0 and server.count(f"/d{MAX_SITEMAP_DEPTH}.xml") == 1
        assert any("deeper" in limit for limit in deep.limits)
        server.reset()
        server.route("GET", "/sitemap.xml", _index(server, *(f"/w{i}.xml" for i in range(200))))
        wide = await map_site(server.url("/"), fetcher=fetcher)
    sitemaps_read = [r for r in server.requests if r.path.endswith(".xml")]
    assert len(sitemaps_read) == MAX_SITEMAP_FILES
    assert any(f"{MAX_SITEMAP_FILES} sitemap files" in limit for limit in wide.limits)


async def test_a_huge_or_gzip_bomb_sitemap_is_cut_at_the_byte_cap():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}", max_bytes=100_000) as fetcher:
        bomb = gzip.compress(b"<urlset>" + b" " * 5_000_000 + b"</urlset>")
        server.route("GET", "/sitemap.xml", _index(server, "/big.xml", "/bomb.xml.gz", "/ok.txt"))
        server.route("GET", "/big.xml", Reply(body=b"<urlset>" + b" " * 200_000, content_type="application/xml"))
        server.route("GET", "/bomb.xml.gz", Reply(body=bomb, content_type="application/gzip"))
        server.route("GET", "/ok.txt", Reply(body=f"{server.url('/p1')}\nnot a url\n{server.url('/p2')}\n"))
        found = await map_site(server.url("/"), fetcher=fetcher)
    assert [e.url for e in found.urls][:2] == [server.url("/p1"), server.url("/p2")]  # a text sitemap
    assert len(found.errors) == 2 and all("too_large" in error for error in found.errors)


async def test_bad_arguments_are_validation_errors(site: DocsSite, fetcher: Fetcher):
    for kwargs in ({"max_urls": 0}, {"max_urls": 5001}, {"include_paths": ["x" * 301]}):
        with pytest.raises(ToolValidationError):
            await map_site(site.url("/"), fetcher=fetcher, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ToolValidationError):
        await map_site("file:///etc/passwd", fetcher=fetcher)


async def test_subdomains_are_kept_only_when_asked():
    async with FakeServer() as server:
        port = server.port
        names = {"docs.test": ["127.0.0.1"], "api.docs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]}
        settings = Settings(fetch={"allowed_hosts": [f"{name}:{port}" for name in names], "workers": 1})
        page = (f"<html><title>Docs</title><body><a href='http://api.docs.test:{port}/ref'>API</a>"
                f"<a href='http://other.test:{port}/x'>other</a><a href='/guide'>guide</a></body></html>")  # fmt: skip
        server.route("GET", "/", Reply(body=page, content_type="text/html"))
        async with Fetcher(settings, cache=Cache(None), resolver=MappedResolver(names)) as fetcher:
            start = f"http://docs.test:{port}/"
            narrow = await map_site(start, fetcher=fetcher)
            wide = await map_site(start, subdomains=True, fetcher=fetcher)
    assert [e.url for e in narrow.urls] == [start, f"{start}guide"]
    assert [e.url for e in wide.urls] == [start, f"http://api.docs.test:{port}/ref", f"{start}guide"]
    assert wide.left_out == {"off_site": 1}


async def test_a_start_url_that_redirects_to_another_host_maps_the_site_it_moved_to():
    async with FakeServer() as server:
        port = server.port
        names = {"old.test": ["127.0.0.1"], "new.example": ["127.0.0.1"]}
        settings = Settings(fetch={"allowed_hosts": [f"{name}:{port}" for name in names], "workers": 1})

        def moved(path: str, reply: Reply) -> Callable[[RecordedRequest], Reply]:
            def answer(request: RecordedRequest) -> Reply:
                if request.headers["host"].startswith("old.test"):
                    return Reply(status=301, headers={"Location": f"http://new.example:{port}{path}"})
                return reply

            return answer

        home = Reply(body="<html><title>Home</title><a href='/a'>A</a></html>", content_type="text/html")
        server.route("GET", "/", moved("/", home))
        server.route("GET", "/sitemap.xml", moved("/sitemap.xml", Reply(body=f"http://new.example:{port}/b\n")))
        async with Fetcher(settings, cache=Cache(None), resolver=MappedResolver(names)) as fetcher:
            found = await map_site(f"http://old.test:{port}/", fetcher=fetcher)
    new = f"http://new.example:{port}"
    assert [e.url for e in found.urls] == [f"{new}/b", f"{new}/", f"{new}/a"]
    assert found.left_out == {}


async def test_past_its_time_budget_a_map_returns_what_it_found_and_says_so():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        slow_sitemaps(server, 20, delay_s=0.4)
        server.route("GET", "/", Reply(body="<html><title>Home</title><a href='/about'>About</a></html>",
                                       content_type="text/html"))  # fmt: skip
        found = await map_site(server.url("/"), time_budget_s=1.5, fetcher=fetcher)
    urls = [e.url for e in found.urls]
    assert len(urls) - 2 < 20  # some sitemaps, not all 20
    assert urls[-2:] == [server.url("/"), server.url("/about")]  # the start page, read first, still counts
    assert found.limits == ["stopped reading the site's files after 1.5 s (time budget)"]
