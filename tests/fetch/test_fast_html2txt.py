"""weblens' stand-in for trafilatura's whole-page text (`weblens.fetch.fast_html2txt`): the same string as
trafilatura's `html2txt` on every shape of page, the page left untouched and trafilatura's output unchanged
(tests/fetch/test_swap.py: not used on a trafilatura whose code changed)."""

from __future__ import annotations

import importlib
from copy import deepcopy

import pytest
import trafilatura
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.fetch import fast_html2txt, fast_xpaths
from weblens.fetch.extract import extract
from weblens.testing.pages import article_html, page_fixture

_baseline = importlib.import_module("trafilatura.baseline")

# What trafilatura's deletion and spacing do differently by place: a deleted element's tail joins a block's tail,
# an inline element's tail, a comment's tail or its parent's text; deleted elements in a row and nested; control
# characters, a soft hyphen and a zero-width space in block and inline text (only a block's are removed).
_CRAFTED = [
    "<html><body><p>one</p><aside>side</aside> after the aside <p>two</p></body></html>",
    "<html><body><div><span>in</span><footer>foot</footer>tail<b>x</b></div></body></html>",
    "<html><body><div><aside>first</aside>joins the div text<p>p</p></div></body></html>",
    "<html><body><div>text<aside>a</aside>one<aside>b</aside>two<footer>c</footer>three</div></body></html>",
    "<html><body><div class='site-footer'>gone<aside>nested</aside>also</div>kept<p>after</p></body></html>",
    "<html><body><p>x</p><!-- note -->comment tail<aside>a</aside>aside tail</body></html>",
    "<html><body><span>a</span><?pi x?>pi tail<script>var a;</script>script tail</body></html>",
    "<html><body><div id='cookie-banner'>accept</div><p>soft\u00adhy\u200bphen\x07bell</p>"
    "<span>soft\u00adhy\u200bphen</span></body></html>",
    "<html><body><p>lines\n\tand tabs\u2028only</p><p>a line\nand a zero\u200bwidth space</p>\n<br>x</body></html>",
    "<html><body><h1>Title</h1>loose<br>after a break<table><tr><td>a</td><td>b</td></tr></table>end</body></html>",
    "<html><body><ul><li>one</li><li>two<ul><li>inner</li></ul>out</li></ul>x<em>y</em>z</body></html>",
    "<html><body></body></html>",
    "<html><body>\n  \t </body></html>",
    "<div><p>no body at all</p><aside>a</aside>tail</div>",
]
_PAGES = [article_html(), *(page_fixture(name).decode() for name in ("page_forum_thread.html", "page_docs.html",
          "page_listing.html"))]  # fmt: skip


@pytest.fixture
def installed() -> None:
    fast_xpaths.install()  # both, as reading the first HTML page does
    if not fast_html2txt.install():
        pytest.skip("this trafilatura measures a page with other code: the stand-in is not used")


@pytest.mark.parametrize("html", _CRAFTED + _PAGES)
@pytest.mark.usefixtures("installed")
def test_the_same_text_as_trafilatura_and_the_page_untouched(html: str) -> None:
    tree = lxml_html.fromstring(html)
    before = etree.tostring(tree)
    expected = _baseline.html2txt(deepcopy(tree))
    if any(port.name == "BASIC_CLEAN_XPATH" for port in fast_xpaths.installed()):  # asked element by element
        assert fast_xpaths.element_test(_baseline.BASIC_CLEAN_XPATH) is not None
    assert fast_html2txt.page_text(tree) == expected
    assert etree.tostring(tree) == before


@pytest.mark.parametrize("html", _CRAFTED[:6] + _PAGES)
@pytest.mark.usefixtures("installed")
def test_the_same_text_with_trafilatura_s_own_selection_of_what_to_delete(html: str) -> None:
    tree = lxml_html.fromstring(html)
    expected = _baseline.html2txt(deepcopy(tree))
    with fast_xpaths.stock():  # its XPath, which answers for a whole tree only
        assert fast_xpaths.element_test(_baseline.BASIC_CLEAN_XPATH) is None
        assert fast_html2txt.page_text(tree) == expected


@pytest.mark.usefixtures("installed")
def test_anything_but_a_parsed_html_tree_is_read_by_trafilatura() -> None:
    html = "<html><body><p>one</p><aside>side</aside>two</body></html>"
    assert fast_html2txt.page_text(html) == _baseline.html2txt(html)  # a string: trafilatura parses it
    for other in (etree.fromstring(html), etree.HTML(html)):  # not lxml.html's elements: trafilatura refuses them
        with pytest.raises(TypeError):
            _baseline.html2txt(other)
        with pytest.raises(TypeError):
            fast_html2txt.page_text(other)
    xhtml = lxml_html.fromstring(html, parser=lxml_html.XHTMLParser())
    assert fast_html2txt.page_text(xhtml) == _baseline.html2txt(deepcopy(xhtml))
    tree = lxml_html.fromstring(html)
    assert fast_html2txt.page_text(tree, clean=False) == _baseline.html2txt(deepcopy(tree), clean=False)


@pytest.mark.parametrize("html", _PAGES)
@pytest.mark.usefixtures("installed")
def test_trafilatura_and_weblens_read_the_same(html: str) -> None:
    options = {"include_comments": False, "include_tables": True, "output_format": "markdown"}
    for fast in (True, False):
        with fast_html2txt.stock():
            assert not fast_html2txt.installed()
            stock = trafilatura.extract(html, fast=fast, **options)  # type: ignore[arg-type]
        assert fast_html2txt.installed()
        assert stock
        assert trafilatura.extract(html, fast=fast, **options) == stock  # type: ignore[arg-type]
    with fast_html2txt.stock():
        stock_read = extract(html.encode(), "text/html; charset=utf-8", "https://example.com/")
    assert extract(html.encode(), "text/html; charset=utf-8", "https://example.com/") == stock_read
