"""`crawl` against a real local docs site: order, budgets, politeness measured by the server,
robots.txt, traps, failures, partial results and cancellation."""

from __future__ import annotations

import asyncio

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import ToolValidationError
from weblens.fetch.fetcher import Fetcher
from weblens.sites import crawl
from weblens.testing import FakeServer, RecordedRequest, Reply
from weblens.testing.dns import MappedResolver
from weblens.testing.documents import make_document
from weblens.testing.sites import DocsSite, LinkFarm

from .conftest import fetcher_for, slow_sitemaps


async def test_breadth_first_reads_the_start_page_then_the_mapped_pages(site: DocsSite, fetcher: Fetcher):
    seen = [page async for page in crawl(site.url("/"), max_pages=4, fetcher=fetcher)]
    # pages come as they arrive and two are in flight at once, so the start page (read with the
    # sitemap's first page) is not always first; breadth-first reads it and the sitemap's first pages
    assert {(p.url, p.depth) for p in seen} == {(site.url("/"), 0)} | {
        (site.url(f"/docs/page-{i}"), 1) for i in range(3)
    }
    page = next(p for p in seen if p.url == site.url("/docs/page-1"))
    assert page.title == "Configuration guide, part 1" and page.final_url == page.url
    assert site.fact(1) in page.text
    assert len(site.page_paths()) == 3  # no page beyond max_pages was downloaded


async def test_max_depth_zero_reads_only_the_start_page(site: DocsSite, fetcher: Fetcher):
    result = await crawl(site.url("/"), max_depth=0, fetcher=fetcher).run()
    assert [p.url for p in result.pages] == [site.url("/")]
    assert site.page_paths() == [] and site.count("/sitemap.xml") == 0


async def test_a_query_crawls_best_first_and_ranks_pages(site: DocsSite, fetcher: Fetcher):
    result = await crawl(site.url("/"), query="pagination", max_pages=2, fetcher=fetcher).run()
    assert result.pages[0].url == site.url("/docs/page-4")  # named by llms.txt: read before pages 0-3
    assert site.fact(4) in result.pages[0].text
    assert result.pages[0].score is not None and result.pages[0].score > (result.pages[1].score or 0)


async def test_one_token_budget_is_shared_by_all_pages(site: DocsSite, fetcher: Fetcher):
    result = await crawl(site.url("/"), max_pages=6, max_tokens=300, fetcher=fetcher).run()
    assert len(result.pages) >= 5
    assert sum(p.tokens or 0 for p in result.pages) <= 300
    # fair: nobody starved; each page shows at least its first paragraph, the one that holds its fact
    for page in (p for p in result.pages if "/docs/page-" in p.url):
        index = int(page.url.rsplit("-", 1)[1])
        assert site.fact(index) in page.text and (page.tokens or 0) >= 30, page.url
    assert any(p.truncated for p in result.pages)


async def test_at_most_two_requests_in_flight_per_host():
    async with DocsSite(pages=12, latency_s=0.2) as site, fetcher_for(site.host) as fetcher:
        result = await crawl(site.url("/"), max_pages=8, fetcher=fetcher).run()
    assert len(result.pages) == 8
    assert site.max_in_flight == 2


async def test_crawl_delay_spaces_the_requests():
    async with DocsSite(pages=6, crawl_delay=0.4) as site, fetcher_for(site.host) as fetcher:
        await crawl(site.url("/"), max_pages=4, fetcher=fetcher).run()
    gaps = site.gaps()
    assert len(gaps) == 2 and min(gaps) >= 0.25, gaps  # 0.4 s asked; unthrottled they would be ~0


async def test_a_429_slows_the_host_and_the_page_is_read_after_retry_after(site: DocsSite, fetcher: Fetcher):
    site.queue("/docs/page-0", Reply(status=429, headers={"Retry-After": "1"}))
    result = await crawl(site.url("/"), max_pages=3, fetcher=fetcher).run()
    assert site.url("/docs/page-0") in [p.url for p in result.pages]
    asked = [r.received_at for r in site.requests if r.path == "/docs/page-0"]
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.9


async def test_robots_txt_is_always_obeyed():
    async with DocsSite(pages=6, disallow=["/docs/page-1", "/docs/page-2"]) as site, fetcher_for(site.host) as fetcher:
        result = await crawl(site.url("/"), max_pages=10, max_depth=3, fetcher=fetcher).run()
    assert not {"/docs/page-1", "/docs/page-2"} & set(site.page_paths())
    assert {p.url for p in result.pages} >= {site.url("/docs/page-0"), site.url("/docs/page-3")}


async def test_traps_and_duplicate_pages_are_bounded():
    async with DocsSite(pages=5) as site, fetcher_for(site.host) as fetcher:
        result = await crawl(site.url("/"), max_pages=40, max_depth=5, fetcher=fetcher).run()
    paths = site.page_paths()
    calendar = [r for r in site.requests if r.path == "/calendar"]
    assert len(calendar) <= 3  # endless ?month=N
    assert "/loop/a/a/a/" not in paths and max(p.count("/a") for p in paths) <= 2  # a repeating segment
    assert result.skipped["trap"] >= 2
    assert result.skipped["duplicate"] == 1  # /docs/page-3/print: the text of /docs/page-3
    assert site.url("/docs/page-3/print") not in {p.url for p in result.pages}
    assert not result.partial


async def test_failed_pages_are_listed_and_do_not_sink_the_crawl(site: DocsSite, fetcher: Fetcher):
    site.queue("/docs/page-0", Reply(status=404, body="gone"))
    site.queue("/docs/page-1", Reply(status=500, body="oops"), Reply(status=500, body="oops"))
    result = await crawl(site.url("/"), max_pages=4, fetcher=fetcher).run()
    failed = {f.url: f.code for f in result.failed}
    assert failed == {site.url("/docs/page-0"): "not_found", site.url("/docs/page-1"): "upstream_error"}
    assert len(result.pages) == 4


async def test_past_the_time_budget_the_crawl_returns_what_it_has_marked_partial():
    async with DocsSite(pages=10, latency_s=1.0) as site, fetcher_for(site.host) as fetcher:
        result = await crawl(site.url("/"), max_pages=10, time_budget_s=2.0, fetcher=fetcher).run()
    assert result.partial
    assert len(result.pages) < 10
    assert result.left_count > 0 and site.url("/docs/page-9") in result.left


async def test_cancelling_a_crawl_stops_its_requests():
    async with DocsSite(pages=10, latency_s=0.3) as site, fetcher_for(site.host) as fetcher:
        task = asyncio.ensure_future(crawl(site.url("/"), max_pages=10, fetcher=fetcher).run())
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        asked = len(site.requests)
        await asyncio.sleep(0.8)
    assert len(site.requests) == asked  # nothing more was asked after the cancel
    assert len(site.page_paths()) < 10


async def test_bad_arguments_are_validation_errors(site: DocsSite, fetcher: Fetcher):
    for kwargs in ({"max_pages": 0}, {"max_pages": 101}, {"max_depth": 6}, {"max_tokens": 10}):
        with pytest.raises(ToolValidationError):
            await crawl(site.url("/"), fetcher=fetcher, **kwargs).run()  # type: ignore[arg-type]


async def test_a_redirect_to_a_private_address_is_refused_and_listed():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        urlset = (f"<urlset><url><loc>{server.url('/go')}</loc></url>"
                  f"<url><loc>http://169.254.169.254/latest/meta-data/</loc></url>"
                  f"<url><loc>{server.url('/ok')}</loc></url></urlset>")  # fmt: skip
        server.route("GET", "/sitemap.xml", Reply(body=urlset, content_type="application/xml"))
        server.route("GET", "/go", Reply(status=302, headers={"Location": "http://169.254.169.254/latest/"}))
        server.route("GET", "/ok", Reply(body="<html><title>OK</title><body><p>fine words</p></body></html>",
                                         content_type="text/html"))  # fmt: skip
        server.route("GET", "/", Reply(body="<html><title>Home</title><body><p>home</p></body></html>",
                                       content_type="text/html"))  # fmt: skip
        result = await crawl(server.url("/"), max_pages=5, fetcher=fetcher).run()
    assert [(f.url, f.code) for f in result.failed] == [(server.url("/go"), "blocked")]
    assert {p.url for p in result.pages} == {server.url("/"), server.url("/ok")}


async def test_robots_txt_is_read_once_per_crawl_even_without_a_cache():
    async with DocsSite(pages=6) as site:
        settings = Settings(fetch={"allowed_hosts": [site.host], "workers": 1})
        async with Fetcher(settings, cache=Cache(None, enabled=False)) as fetcher:
            result = await crawl(site.url("/"), max_pages=6, fetcher=fetcher).run()
    assert len(result.pages) == 6
    assert site.count("/robots.txt") == 1


async def test_a_redirect_into_a_disallowed_path_is_not_followed():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        server.route("GET", "/robots.txt", Reply(body="User-agent: *\nDisallow: /secret\n"))
        server.route("GET", "/sitemap.xml", Reply(body=f"{server.url('/go')}\n"))
        server.route("GET", "/go", Reply(status=302, headers={"Location": "/secret"}))
        server.route("GET", "/", Reply(body="<html><title>Home</title><p>home</p></html>", content_type="text/html"))
        result = await crawl(server.url("/"), max_pages=5, fetcher=fetcher).run()
    assert [(f.url, f.code) for f in result.failed] == [(server.url("/go"), "blocked")]
    assert server.count("/secret") == 0


async def test_a_redirected_robots_txt_still_rules_the_crawl():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        server.route("GET", "/robots.txt", Reply(status=301, headers={"Location": "/static/robots.txt"}))
        server.route("GET", "/static/robots.txt", Reply(body="User-agent: *\nDisallow: /secret\n"))
        home = "<html><title>Home</title><p>home</p><a href='/secret'>Secret</a> <a href='/open'>Open</a></html>"
        server.route("GET", "/", Reply(body=home, content_type="text/html"))
        for path in ("/secret", "/open"):
            server.route("GET", path, Reply(body=f"<html><title>{path}</title><p>text of {path}</p></html>",
                                            content_type="text/html"))  # fmt: skip
        result = await crawl(server.url("/"), max_pages=5, fetcher=fetcher).run()
    assert server.count("/secret") == 0 and result.skipped.get("robots") == 1
    assert {p.url for p in result.pages} == {server.url("/"), server.url("/open")}


async def test_a_429_whose_retry_after_is_no_date_is_waited_out_not_a_crash(site: DocsSite, fetcher: Fetcher):
    # the site writes the header: `Retry-After: in a minute` made the whole crawl raise ValueError
    site.queue("/docs/page-0", Reply(status=429, headers={"Retry-After": "in a minute"}))
    site.queue("/docs/page-1", Reply(status=429, headers={"Retry-After": "inf"}))
    result = await crawl(site.url("/"), max_pages=4, fetcher=fetcher).run()
    assert {site.url("/docs/page-0"), site.url("/docs/page-1")} <= {p.url for p in result.pages}
    assert site.count("/docs/page-0") == 2 and result.failed == []


async def test_a_start_url_that_redirects_to_another_host_crawls_the_site_it_moved_to():
    # old.test -> new.example (a renamed project, docs moved to a hosting service): the crawl read
    # nothing at all, every page of the new host being "off_site" to the old one
    async with FakeServer() as server:
        port = server.port
        names = {"old.test": ["127.0.0.1"], "new.example": ["127.0.0.1"]}
        settings = Settings(fetch={"allowed_hosts": [f"{name}:{port}" for name in names], "workers": 1})

        def home(request: RecordedRequest) -> Reply:
            if request.headers["host"].startswith("old.test"):
                return Reply(status=301, headers={"Location": f"http://new.example:{port}/"})
            return Reply(body="<html><title>Home</title><p>home</p><a href='/a'>A</a></html>", content_type="text/html")

        server.route("GET", "/", home)
        server.route("GET", "/a", Reply(body="<html><title>A</title><p>page a</p></html>", content_type="text/html"))
        async with Fetcher(settings, cache=Cache(None), resolver=MappedResolver(names)) as fetcher:
            result = await crawl(f"http://old.test:{port}/", max_pages=5, fetcher=fetcher).run()
    assert [(p.url, p.final_url) for p in result.pages] == [
        (f"http://old.test:{port}/", f"http://new.example:{port}/"),
        (f"http://new.example:{port}/a", f"http://new.example:{port}/a"),
    ]
    assert server.count("/") == 2  # the start page was downloaded once (a redirect, then the page)


async def test_links_to_media_archives_and_programs_are_skipped_before_any_request():
    # a downloads page: each was fetched (up to fetch.max_bytes) to fail as unsupported_content
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        files = ["/release.tar.gz", "/setup.EXE", "/talk.mp4", "/theme.mp3?v=2", "/font.woff2"]
        links = "".join(f"<a href='{f}'>{f}</a>" for f in [*files, "/guide.docx"])
        server.route("GET", "/", Reply(body=f"<html><title>Downloads</title><p>all files</p>{links}</html>",
                                       content_type="text/html"))  # fmt: skip
        binary = Reply(body=b"\x00" * 50_000, content_type="application/octet-stream")
        for path in files:
            server.route("GET", path.split("?")[0], binary)
        docx, docx_type = make_document("docx")
        server.route("GET", "/guide.docx", Reply(body=docx, content_type=docx_type))
        result = await crawl(server.url("/"), max_pages=10, fetcher=fetcher).run()
    assert [server.count(f.split("?")[0]) for f in files] == [0] * len(files)
    assert result.skipped == {"not_a_page": len(files)} and result.failed == []
    assert [p.url for p in result.pages] == [server.url("/"), server.url("/guide.docx")]  # documents are read


@pytest.mark.parametrize("query", [None, "listing items"])
async def test_a_site_linking_new_pages_without_end_keeps_the_queue_bounded(query: str | None):
    # each page links 500 pages never seen: the queue held every one of them (500 000 URLs and
    # 180 MB for a 100-page crawl, minutes past the time budget), though at most 3 per page are read
    async with LinkFarm(links=500, latency_s=0.5) as farm, fetcher_for(f"127.0.0.1:{farm.port}") as fetcher:
        # 40 pages, 2 at a time, 0.5 s each: past the 4 s budget, so the crawl says what was left
        result = await crawl(farm.url("/"), query=query, max_pages=40, max_depth=4, time_budget_s=4,
                             fetcher=fetcher).run()  # fmt: skip
    assert result.partial and result.pages
    assert 0 < result.left_count <= 2 * 40 * 20  # 800 URLs kept (twice that before a trim), not 500 a page read
    assert "at most 800 URLs queued: further links were not followed" in result.limits


async def test_links_a_page_asks_not_to_follow_are_not_followed():
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        home = ("<html><title>Home</title><p>home</p><a href='/events?month=2' rel='nofollow'>Next month</a>"
                "<a href='/logout' rel='NoFollow noopener'>Log out</a><a href='/index'>Index</a></html>")  # fmt: skip
        index = ("<html><head><title>Index</title><meta name='ROBOTS' content='noindex, nofollow'></head>"
                 "<body><p>the index</p><a href='/hidden'>Hidden</a></body></html>")  # fmt: skip
        server.route("GET", "/", Reply(body=home, content_type="text/html"))
        server.route("GET", "/index", Reply(body=index, content_type="text/html"))
        for path in ("/events", "/logout", "/hidden"):
            server.route("GET", path, Reply(body=f"<html><title>{path}</title><p>{path}</p></html>",
                                            content_type="text/html"))  # fmt: skip
        result = await crawl(server.url("/"), max_pages=10, max_depth=3, fetcher=fetcher).run()
    assert [p.url for p in result.pages] == [server.url("/"), server.url("/index")]
    assert [server.count(path) for path in ("/events", "/logout", "/hidden")] == [0, 0, 0]


async def test_slow_sitemaps_take_at_most_half_the_time_budget_and_pages_are_still_read():
    # 40 sitemaps of 0.5 s each: the map took the whole 4 s budget and the crawl returned no page
    async with FakeServer() as server, fetcher_for(f"127.0.0.1:{server.port}") as fetcher:
        slow_sitemaps(server, 40, delay_s=0.5)
        server.route("GET", "/", Reply(body="<html><title>Home</title><p>home</p></html>", content_type="text/html"))
        result = await crawl(server.url("/"), max_pages=3, time_budget_s=4, fetcher=fetcher).run()
    assert {p.url for p in result.pages} == {server.url("/"), server.url("/page-0"), server.url("/page-1")}
    assert not result.partial
    assert any(limit.startswith("stopped reading the site's files after") for limit in result.limits)


async def test_a_503_with_retry_after_slows_the_host_like_a_429(site: DocsSite, fetcher: Fetcher):
    # the page failed at once and the host was asked again at full speed, though it said when to come back
    site.queue("/docs/page-0", Reply(status=503, headers={"Retry-After": "1"}, body="busy", content_type="text/plain"))
    site.queue("/docs/page-1", Reply(status=503, body="down", content_type="text/plain"))  # no Retry-After: a failure
    result = await crawl(site.url("/"), max_pages=4, fetcher=fetcher).run()
    assert site.url("/docs/page-0") in [p.url for p in result.pages]
    asked = [r.received_at for r in site.requests if r.path == "/docs/page-0"]
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.9
    assert [(f.url, f.code) for f in result.failed] == [(site.url("/docs/page-1"), "upstream_error")]
