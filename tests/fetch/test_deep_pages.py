"""Pages nested deeper than a parser follows are read whole, and say how they were read."""

from __future__ import annotations

import json

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.testing import Reply
from weblens.testing.pages import PageServer

DEPTH = 100_000


async def test_a_hundred_thousand_nested_divs_are_read_whole_with_a_note(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    html = (
        "<html><head><title>Deep</title></head><body><p>The opening paragraph of the deep page.</p>"
        + "<div>" * DEPTH
        + "<p>The buried sentence at the bottom of the nesting.</p>"
        + "</div>" * DEPTH
        + "<p>The closing paragraph after the nesting.</p></body></html>"
    )
    pages.route("GET", "/deep", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/deep"), settings=settings, cache=cache)
    for sentence in ("opening paragraph", "buried sentence", "closing paragraph"):
        assert sentence in page.content
    assert page.note is not None and "deeper than the HTML parser follows" in page.note


async def test_a_page_within_the_parsers_depth_has_no_note(pages: PageServer, settings: Settings, cache: Cache):
    nested = "<div>" * 100 + "<p>A sentence a hundred levels down.</p>" + "</div>" * 100
    html = f"<html><body>{nested}</body></html>"
    pages.route("GET", "/nested", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/nested"), settings=settings, cache=cache)
    assert "a hundred levels down" in page.content and page.note is None


async def test_json_fifty_thousand_deep_is_shown_as_sent_not_an_internal_error(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    body = '{"a":' * 50_000 + '"the innermost value"' + "}" * 50_000
    pages.route("GET", "/deep.json", Reply(body=body.encode(), content_type="application/json"))
    page = await fetch(pages.url("/deep.json"), settings=settings, cache=cache, max_length=3_000_000)
    assert page.content == body and "the innermost value" in page.content
    assert page.note is not None and "nested too deeply" in page.note
    shallow = await fetch(pages.url("/data.json"), settings=settings, cache=cache)
    assert json.loads(shallow.content) == {"name": "weblens", "tags": ["fetch", "safe"]}
