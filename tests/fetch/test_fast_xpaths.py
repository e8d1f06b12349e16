"""weblens' stand-ins for trafilatura's slowest XPath expressions (`weblens.fetch.fast_xpaths`) select
exactly what the expressions select, on generated trees built from the very attribute values the
expressions test, on hand-made edge cases and on the repository's own pages; and one whose
expression trafilatura changed is not used."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import trafilatura
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html
from trafilatura.htmlprocessing import convert_tags
from trafilatura.settings import Extractor

from weblens.fetch import fast_xpaths
from weblens.fetch.extract import extract
from weblens.fetch.html import parse_html
from weblens.testing.fuzz import fuzz_settings
from weblens.testing.pages import article_html, page_fixture

# Attribute values that sit on every side of the expressions' tests: exact names, prefixes, case
# variants, tokens inside longer class lists, and values none of them matches.
_WORDS = [
    "post", "entry", "articleBody", "articleContent", "article", "story", "text", "cell", "postarea",
    "comments-title", "reply-box", "box reply-", "hidden", "Hidden", "display:none", "display: none",
    "true", "false", "cookie", "Cookie-Banner", "cookie-banner", "onetrust-x", "footer", "Footer", "site-footer",
    "nav", "Navigation", "navbar", "main", "mainbar", "main-content", "Main-Content", "MAIN-content",
    "page-Content", "Page-content", "content", "content-main", "contentBody", "teaser", "Teaser", "TEASER",
    "caption", "Caption", "fulltext", "FullText", "comment-list", "comments", "Comments", "Commentary",
    "comment", "commentary", "comol", "disqus_thread", "post-comments", "mvp-post-add-box", "infinite-scroll",
    "infinitescroll", "elementor-share-buttons", "article body", "share-this", "share", "shared", "sidebar",
    "ad-slot", " ad ", "x ad-y", "widget", "MostPopularStories", "primary", "story-body", "single-post",
    "akismet", "message", "-hide-", "noprint", "x", "", "  ", "ém", "social",
    # case: the patterns asked in any case are first asked for their words in lower case, but only of ASCII
    # values (Python's `re` folds the Kelvin sign to `k` and a long s to `s`)
    "COOKIE-NOTICE", "Consent_Manager", "CMPLZ-x", "coo\u212aie-banner", "con\u017fent-banner", "FULLTEXT",
]  # fmt: skip
_TAGS = [
    "div", "p", "span", "section", "article", "main", "aside", "ul", "ol", "li", "details", "h1", "footer",
    "script", "style", "svg", "template", "fencedframe", "item", "list", "a", "b",
]  # fmt: skip
_ATTRS = ["id", "class", "role", "style", "aria-hidden", "data-component", "data-lp-replacement-content", "itemprop"]

_values = st.one_of(
    st.sampled_from(_WORDS),
    st.lists(st.sampled_from(_WORDS), min_size=2, max_size=3).map(" ".join),
    st.text(alphabet="aAbcdeHimnNorstT- _:", max_size=12),
)
# attributes in any order (the expressions that read `@id|@class` take the first in document order)
_attributes = st.lists(st.tuples(st.sampled_from(_ATTRS), _values), max_size=4, unique_by=lambda pair: pair[0])


def _render(node: tuple[str, list[tuple[str, str]], list[Any]]) -> str:
    tag, attributes, children = node
    written = "".join(f' {name}="{value}"' for name, value in attributes)
    return f"<{tag}{written}>w {''.join(_render(child) for child in children)}</{tag}> t"


_nodes = st.recursive(
    st.tuples(st.sampled_from(_TAGS), _attributes, st.just([])),
    lambda inner: st.tuples(st.sampled_from(_TAGS), _attributes, st.lists(inner, max_size=4)),
    max_leaves=30,
)
_pages = st.lists(_nodes, min_size=1, max_size=4).map(
    lambda nodes: "<html><body>" + "".join(_render(node) for node in nodes) + "</body></html>"
)


@pytest.fixture(scope="module", autouse=True)
def _installed() -> None:
    fast_xpaths.install()


def _assert_same(tree: Any) -> None:
    for port, original, replacement in fast_xpaths.pairs():
        assert replacement(tree) == original(tree), f"{port.name}[{port.index}]"


def _trees(html: str) -> list[Any]:
    """The page as weblens parses it, as trafilatura converts it (lists become `list` and `item`,
    headings `head`) before most of the expressions run, and as a whole document (not an element)."""
    tree = parse_html(html)
    assert tree is not None
    converted = convert_tags(parse_html(html), Extractor(output_format="markdown", tables=True))
    return [tree, converted, tree.getroottree()]


def test_stand_ins_are_used_exactly_where_trafilatura_has_their_expression() -> None:
    """On the trafilatura these were written against (2.3.1) that is all of them; on a release that edits
    an expression, that expression's own XPath (bench/stand_ins.py prints how many are in use)."""
    built = {port for port, _, _ in fast_xpaths.pairs()}
    with fast_xpaths.stock():
        for port in fast_xpaths.PORTS:
            assert (fast_xpaths.source_digest(port.current()) == port.digest) == (port in built), port.name
    assert set(fast_xpaths.installed()) == built
    if trafilatura.__version__ == "2.3.1":
        assert built == set(fast_xpaths.PORTS)


@fuzz_settings(300)
@given(_pages)
def test_generated_trees_select_the_same_elements(html: str) -> None:
    for tree in _trees(html):
        _assert_same(tree)


@pytest.mark.parametrize(
    "html",
    [
        # `re:test(@id|@class, 'cookie')` and `starts-with(@id|@class, 'reply-')` read whichever comes first
        '<div class="cookie" id="x">a</div><div id="x" class="cookie">b</div><p id="cookie" class="y">c</p>',
        '<div class="reply-x" id="y">a</div><div id="y" class="reply-x">b</div>',
        '<div style="color: red" id="hidden">a</div><div id="shown" style="hidden">b</div>',
        '<div class="site" id="footer">a</div><div id="site" class="footer">b</div>',
        # `[1]` per parent: two matching siblings, and a match inside a match
        '<div class="post"><div class="post">a</div><section class="entry">b</section></div><div class="post">c</div>',
        '<main><div id="content">a</div></main><div class="content">b</div>',
        # an attribute present but empty, and one only present
        '<div data-lp-replacement-content>a</div><span role="">b</span><div class="">c</div><div id="">d</div>',
        # ordered lists are comment lists only by the narrower patterns
        '<ol class="post-comments">a</ol><ul id="disqus_thread">b</ul><ul id="comment-list">c</ul>',
        '<div class="infinite-scroll"><h1>kept</h1></div><div class="infinite-scroll">cut</div>'
        '<aside id="mvp-post-add-box"><h1>cut anyway</h1></aside>',
    ],
)
def test_edge_cases_select_the_same_elements(html: str) -> None:
    for tree in _trees(f"<html><body>{html}</body></html>"):
        _assert_same(tree)


@pytest.mark.parametrize(
    "name", ["page_forum_thread.html", "page_docs.html", "page_listing.html", "page_next_shell.html"]
)
def test_repository_pages_select_and_read_the_same(name: str) -> None:
    html = page_fixture(name).decode()
    for tree in _trees(html):
        _assert_same(tree)
    with fast_xpaths.stock():
        assert fast_xpaths.installed() == []
        stock = extract(html.encode(), "text/html; charset=utf-8", "https://example.com/")
    assert set(fast_xpaths.installed()) == {port for port, _, _ in fast_xpaths.pairs()}
    assert extract(html.encode(), "text/html; charset=utf-8", "https://example.com/") == stock


def test_a_changed_expression_keeps_trafilaturas_own() -> None:
    """A port written against another version of an expression is never swapped in."""
    port = dataclasses.replace(fast_xpaths.PORTS[0], name="TEASER_DISCARD_XPATH", index=0)
    assert port.digest != fast_xpaths.source_digest(port.current())
    from trafilatura import xpaths

    with fast_xpaths.stock():
        before = xpaths.TEASER_DISCARD_XPATH[0]
        assert port not in fast_xpaths.install([port])
        assert xpaths.TEASER_DISCARD_XPATH[0] is before
        assert isinstance(before, etree.XPath)


def test_trafilatura_called_directly_reads_the_same() -> None:
    """The stand-ins live in trafilatura's module state: a caller using trafilatura itself gets the same text."""
    html = article_html()
    with fast_xpaths.stock():
        stock = trafilatura.extract(html, include_comments=False)
    assert stock
    assert trafilatura.extract(html, include_comments=False) == stock


def test_trees_whose_attributes_differ_from_what_xpath_reads_get_the_xpath() -> None:
    """An XML document's DTD gives elements default attributes that `get` returns and XPath does not see;
    a comment is no element (XPath refuses it): both are left to the XPath itself."""
    declared = etree.fromstring(
        '<!DOCTYPE html [<!ATTLIST div class CDATA #FIXED "post cookie-banner" id CDATA "hidden">]>'
        "<html><body><div>a</div><section>b</section></body></html>"
    )
    assert declared.find(".//div").get("class") == "post cookie-banner"
    _assert_same(declared)
    comment = lxml_html.fromstring("<div><!-- x --></div>")[0]
    for _, original, replacement in fast_xpaths.pairs():
        with pytest.raises(ValueError, match="not an XML element"):
            original(comment)
        with pytest.raises(ValueError, match="not an XML element"):
            replacement(comment)
