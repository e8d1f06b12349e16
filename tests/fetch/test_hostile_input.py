"""Hostile pages and headers (~1 MB each) finish in linear time: no regex or parser stalls on them.

Each case used to take from seconds to hours (issue 9: `<!--` x 30 000 took 40 s; an
attribute flood makes libxml2 compare every attribute with every other). pytest-timeout
turns a regression into a failure instead of a hang.
"""

from __future__ import annotations

import json

import pytest
from lxml import html as lxml_html

from weblens.fetch.decode import charset_from_content_type, decode_body
from weblens.fetch.extract import extract
from weblens.fetch.html import parse_html, visible_text_length
from weblens.fetch.markup import MAX_ATTRIBUTES, bound_markup, within_bounds
from weblens.search.models import clean_text

pytestmark = pytest.mark.timeout(60)

_FLOOD = " ".join(f"a{i}" for i in range(100_000))
HOSTILE_PAGES = {
    "comment openers": "<!--" * 250_000,
    "bare less-thans": "<" * 1_000_000,
    "attribute flood": f'<div {_FLOOD.replace(" ", "=x ")}>hi</div>',
    "attribute flood in quotes with >": "<div " + "".join(f'a{i}=">" ' for i in range(100_000)) + ">hi</div>",
    "attribute flood with slashes": "<p>x</p><div/" + "/".join(f"a{i}" for i in range(150_000)) + ">hi</div>",
    "attribute flood on a script": f"<script {_FLOOD}>x</script>",
    "attribute flood hidden behind script text": f'<script>x<b y="</script><div {_FLOOD}>"</script>',
    "unclosed tags": "<div>" * 200_000 + "text",
    "unclosed paragraphs": "<p>a " * 250_000,
    "deep nesting": "<div><span>" * 100_000,
    "too deep, then unclosed tags (flattened)": "<div>" * 300 + "<div a=b " * 100_000,
    "too deep, then tags full of slashes (flattened)": "<b>" * 300 + "<i/" * 200_000 + ">",
    "unclosed titles": "<title>" * 200_000,
    "unclosed quotes": '<b x="' * 300_000,
    "tag-like names": "<b" * 500_000,
    "meta tags": "<meta name=a content=b>" * 40_000,
    "list items": "<ul>" + "<li>item words here" * 100_000,
    "nested hydration JSON": '<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">'
    + "[" * 300_000
    + "]" * 300_000
    + "</script>",
    "wide hydration JSON": '<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">'
    + json.dumps({"a": ["several words of prose here"] * 40_000})
    + "</script>",
    "many microdata posts": "<html><body>"
    + '<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author">x</span>'
    '<div itemprop="text">a b c d e</div></div>' * 20_000
    + "</body></html>",
}


@pytest.mark.parametrize("html", list(HOSTILE_PAGES.values()), ids=list(HOSTILE_PAGES))
def test_hostile_pages_extract_in_bounded_time(html: str) -> None:
    out = extract(html.encode(), "text/html")
    assert isinstance(out.content, str)


@pytest.mark.parametrize("html", [HOSTILE_PAGES["comment openers"], HOSTILE_PAGES["attribute flood"]])
def test_visible_text_length_of_hostile_pages(html: str) -> None:
    assert visible_text_length(html) <= len(html)


def test_an_attribute_flood_is_cut_before_the_parser_sees_it() -> None:
    bounded = bound_markup(HOSTILE_PAGES["attribute flood"])
    element = lxml_html.fromstring(bounded)
    assert len(element.attrib) == MAX_ATTRIBUTES and element.text_content() == "hi"


_NAMES = " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES + 1))


@pytest.mark.parametrize(
    "page",
    [
        f"<p>x</p><i {_NAMES}>hi</i>",  # one attribute too many
        f"<p>x</p><b<c {_NAMES}>hi</b>",  # a name holding a `<` (libxml2 keeps it as the tag's name)
        f'<p>x</p><b<c="x {_NAMES}">hi</b>',  # ... and a quote, which the name swallows too
        f"<p>x</p><!-- a comment --><script>if (a<b) x = 1;</script><i/{_NAMES.replace(' ', '/')}>hi</i>",
    ],
    ids=["one too many", "a name holding a less-than", "a name holding a quote", "after a script, slashes"],
)
def test_every_attribute_flood_is_found(page: str) -> None:
    tags = [element for element in lxml_html.fromstring(bound_markup(page)).iter() if element.text == "hi"]
    assert [len(tag.attrib) for tag in tags] == [MAX_ATTRIBUTES]


@pytest.mark.parametrize(
    "page",
    [
        f"<p>x</p><i {_NAMES}>hi</i>",
        f'<p>x</p><b<c="x {_NAMES}">hi</b>',
        f"<SCRIPT>var s = '<i {_NAMES}>';</ScRiPt><I {_NAMES}>hi</I>",  # raw text ends whatever its case
        f"<p>\u00e9\u4e2d\U0001f600</p><i {_NAMES}>hi</i>",  # text Python holds in 4 bytes a character
    ],
    ids=["plain", "a name holding a quote", "after an upper-case script", "after wide characters"],
)
def test_a_page_parsed_from_its_bytes_has_its_flood_cut_too(page: str) -> None:
    tree = parse_html(page, page.encode())
    assert tree is not None
    assert [len(tag.attrib) for tag in tree.iter() if tag.text == "hi"] == [MAX_ATTRIBUTES]
    assert within_bounds(page.encode()) is False
    assert within_bounds(bound_markup(page).encode()) is True


def test_ordinary_markup_passes_unchanged() -> None:
    page = (
        "<!DOCTYPE html><html><head><script>if (a<b && c>d) x = '<div a b c>';</script></head>"
        '<body><!-- <p> --><img src="x.png" alt="a > b" data-x=\'<y>\'><p class=a id=b>text</p></body></html>'
    )
    assert bound_markup(page) == page
    most = "<i " + " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES)) + ">hi</i>"
    assert bound_markup(most) == most
    assert within_bounds(page.encode()) and within_bounds(most.encode())


@pytest.mark.parametrize(
    "body",
    [b"<meta" * 200_000, b"<meta charset=" + b" " * 1_000_000, b"<meta " + b"charset=" * 100_000],
    ids=["meta openers", "spaces after charset", "charset repeated"],
)
def test_decoding_hostile_bodies(body: bytes) -> None:
    text, _ = decode_body(body, "text/html", html=True)
    assert len(text) == len(body)


def test_a_hostile_content_type_header() -> None:
    assert charset_from_content_type("text/html; charset=" + " " * 1_000_000) is None


@pytest.mark.parametrize("value", ["<" * 1_000_000, "<a" * 500_000, "<!--" * 250_000, "&amp;" * 200_000])
def test_search_snippets_are_cleaned_in_bounded_time(value: str) -> None:
    assert len(clean_text(value)) <= len(value)
