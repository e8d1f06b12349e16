"""A link to an RSS, Atom or RDF feed, fetched over real HTTP, reads as its entries: title, link, date,
author and text, as markdown; by its media type or, under a generic XML type, by its root element."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.fetch.feeds import MAX_FEED_ENTRIES
from weblens.testing import Reply
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(60)

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel>
<title>Harbour news</title><link>https://harbour.example/</link><description>What docks, and when</description>
<item><title>Albatross docks at dawn</title><link>/news/albatross</link>
<description>&lt;p&gt;The vessel &lt;b&gt;Albatross&lt;/b&gt; docked at pier 4.
&lt;script&gt;steal()&lt;/script&gt;&lt;/p&gt;</description>
<pubDate>Tue, 24 Nov 2026 06:00:00 GMT</pubDate><author>keeper@harbour.example (The Keeper)</author></item>
<item><title>Petrel leaves at noon</title><link>https://harbour.example/news/petrel</link>
<description>Cleared for the open sea.</description></item>
</channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<!-- a blog's feed -->
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/posts/">
<title>Keeper's log</title>
<entry><title type="html">Fog &amp;amp; lights</title><link rel="alternate" href="fog"/>
<updated>2026-11-20T10:00:00Z</updated><author><name>Ann Keeper</name></author>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Fog rolled in.</p><ul><li>Lamp lit at 16:02</li>
<li>Horn sounded</li></ul></div></content></entry>
</feed>"""


async def _read(pages: PageServer, path: str, body: bytes, content_type: str) -> tuple[str, str, str]:
    """The whole text of `body` served at `path` (one page of up to 1 MB), its extractor and title."""
    pages.route("GET", path, Reply(body=body, content_type=content_type))
    settings = Settings(fetch={"allowed_hosts": [pages.host]})
    page = await fetch(pages.url(path), settings=settings, cache=Cache(None), max_length=1_000_000)
    assert not page.truncated
    return page.content, page.extractor, page.title


async def test_an_rss_feed_reads_as_its_entries_with_links_dates_and_authors(pages: PageServer) -> None:
    content, extractor, title = await _read(pages, "/feed.xml", RSS, "application/rss+xml")
    assert extractor == "feedparser" and title == "Harbour news"
    assert content.startswith("# Harbour news\n\nWhat docks, and when\n")
    # a relative link is resolved against the feed's own address
    assert f"## Albatross docks at dawn\n{pages.url('/news/albatross')}\n" in content
    assert "*Tue, 24 Nov 2026 06:00:00 GMT · keeper@harbour.example (The Keeper)*" in content
    assert "The vessel **Albatross** docked at pier 4." in content and "steal" not in content
    assert "## Petrel leaves at noon\nhttps://harbour.example/news/petrel" in content
    assert "<" not in content  # no markup left


async def test_an_atom_feed_under_a_generic_xml_type_is_found_by_its_root_element(pages: PageServer) -> None:
    content, extractor, title = await _read(pages, "/atom", ATOM, "text/xml; charset=utf-8")
    assert extractor == "feedparser" and title == "Keeper's log"
    assert "## Fog & lights\nhttps://blog.example/posts/fog\n*2026-11-20T10:00:00Z · Ann Keeper*" in content
    assert "Fog rolled in.\n\n- Lamp lit at 16:02\n- Horn sounded" in content


async def test_other_xml_is_shown_as_sent(pages: PageServer) -> None:
    body = b"<?xml version='1.0'?><ships><ship name='Albatross'>4200 tons</ship></ships>"
    content, extractor, _ = await _read(pages, "/ships.xml", body, "application/xml")
    assert extractor == "text" and content == body.decode()


async def test_a_body_naming_a_local_file_is_not_read_from_the_disk(pages: PageServer, tmp_path: Path) -> None:
    """feedparser opens bytes it is given as a file's name when such a file exists: weblens hands it a stream."""
    local = tmp_path / "private-feed.xml"
    local.write_bytes(RSS.replace(b"Albatross docks at dawn", b"LOCAL-FILE-SECRET"))
    body = str(local).encode()
    content, _, _ = await _read(pages, "/named.rss", body, "application/rss+xml")
    assert "LOCAL-FILE-SECRET" not in content and content == body.decode()


async def test_a_billion_laughs_feed_stays_small_and_quick(pages: PageServer) -> None:
    levels = ['<!ENTITY a0 "lol">'] + [f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10)]
    body = (
        f'<?xml version="1.0"?><!DOCTYPE rss [{"".join(levels)}]>'
        '<rss version="2.0"><channel><title>&a9;</title><item><title>Quiet entry</title></item></channel></rss>'
    ).encode()
    started = time.perf_counter()
    content, _, _ = await _read(pages, "/laughs.rss", body, "application/rss+xml")
    assert time.perf_counter() - started < 15  # a hang guard: expat stops the expansion at once
    assert len(content) < 10_000 and "lollollol" not in content


async def test_a_long_feed_shows_its_first_entries_and_counts_the_rest(pages: PageServer) -> None:
    items = b"".join(
        b"<item><title>Entry %d</title><link>https://harbour.example/%d</link></item>" % (n, n)
        for n in range(MAX_FEED_ENTRIES + 5)
    )
    body = b'<rss version="2.0"><channel><title>Busy harbour</title>' + items + b"</channel></rss>"
    content, _, _ = await _read(pages, "/busy.rss", body, "application/rss+xml")
    assert "## Entry 0\n" in content and f"## Entry {MAX_FEED_ENTRIES - 1}\n" in content
    assert f"## Entry {MAX_FEED_ENTRIES}\n" not in content and content.rstrip().endswith("(5 more entries not shown)")
