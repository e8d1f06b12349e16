"""weblens' stand-in for trafilatura's link-density pruning (`weblens.fetch.fast_link_density`): the same elements
deleted as trafilatura's `delete_by_link_density` on every shape of subtree, and trafilatura's output unchanged
(tests/fetch/test_swap.py: not used on a trafilatura whose code changed)."""

from __future__ import annotations

import importlib

import pytest
import trafilatura
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.fetch import fast_link_density
from weblens.testing.pages import article_html, page_fixture

_processing = importlib.import_module("trafilatura.htmlprocessing")
# trafilatura's own names for the tags it converted before it prunes
_CONVERTED = {"a": "ref", "ul": "list", "ol": "list", "li": "item", "h2": "head", "blockquote": "quote",
              "img": "graphic"}  # fmt: skip
_LINKS = "".join(f"<a href='/{i}'>Link {i}</a> " for i in range(8))
# Menus and farms at every depth, one long link, a link in a list item's paragraph, a linked image, headings and
# quotes of links, prose with a link in it, nested containers that hold links only far down, and no link at all.
_CRAFTED = [
    f"<div><div class='menu'>{_LINKS}</div><p>Prose that stays, long enough to be read as the page's text.</p></div>",
    f"<div><div><div><div>{_LINKS}</div></div><p>Kept words around the nest.</p></div>tail</div>",
    "<div><p><a href='/x'>" + "A single link whose text is nearly all of the paragraph " * 3 + "</a> end</p></div>",
    f"<div><ul><li><p>{_LINKS}</p></li><li>plain item</li></ul><ul><li><a href='/1'>one</a></li></ul></div>",
    f"<div><div><img src='/i.png'>{_LINKS}</div><h2><a href='/h'>Heading link</a></h2><blockquote>{_LINKS}"
    "</blockquote></div>",
    "<div><p>Read <a href='/more'>the report</a> before the meeting on Tuesday, then the minutes.</p></div>",
    "<div><div><div><p>Deep prose without links, " + "words " * 40 + f"</p></div><div>{_LINKS}</div></div></div>",
    "<div><div><p>No link anywhere in this subtree, only words.</p></div><p>More words.</p></div>",
    f"<div><div>{_LINKS}<div>{_LINKS}<div>{_LINKS}</div></div></div><p>after</p></div>",
    f"<div><table><tr><td><p>{_LINKS}</p></td></tr></table><p>{_LINKS}</p></div>",
    # a "latest news" farm past the size gate, nested twice (each link's text read for both levels), a catalog of
    # long card links, links that are paragraphs of their own, and links with no text (icons)
    "<div><div><div class='latest'>" + "".join(f"<a href='/n{i}'>Harbour news story number {i} of the week</a> "
    for i in range(12)) + "</div></div><p>" + "Prose after the farm. " * 12 + "</p></div>",
    "<div><div>" + "".join(f"<a href='/c{i}'>{'Card title and its long teaser text ' * 4}{i}</a>" for i in range(6))
    + "</div></div>",
    "<div><div>" + "".join(f"<p><a href='/p{i}'>A report on moorings and chains, part {i}</a></p>" for i in range(8))
    + "</div></div>",
    "<div><div>" + "".join(f"<a href='/i{i}'><img src='/{i}.png'></a><a href='/e{i}'></a>" for i in range(6))
    + "<p>Short words.</p></div></div>",
    "<div><div><a href='/x'></a> A short caption.</div><div><a href='/y'></a><a href='/z'>Map</a> Directions</div>"
    "<p>Prose that stays, long enough to be read as the page's text.</p></div>",
]
_TAGS = ("div", "list", "p", "head", "quote")
_PAGES = [article_html(), *(page_fixture(name).decode() for name in ("page_forum_thread.html", "page_docs.html",
          "page_listing.html"))]  # fmt: skip


def _converted(html: str) -> etree._Element:
    tree = lxml_html.fragment_fromstring(html)
    for element in tree.iter():
        element.tag = _CONVERTED.get(element.tag, element.tag)
    return tree


@pytest.fixture
def installed() -> None:
    if not fast_link_density.install():  # what reading the first HTML page does
        pytest.skip("this trafilatura prunes links with other code: the stand-in is not used")


@pytest.mark.parametrize("html", _CRAFTED)
@pytest.mark.parametrize("tag", _TAGS)
@pytest.mark.parametrize(("backtracking", "favor_precision"), [(False, False), (True, False), (True, True)])
@pytest.mark.usefixtures("installed")
def test_the_same_elements_deleted_as_trafilatura(
    html: str, tag: str, backtracking: bool, favor_precision: bool
) -> None:
    theirs, ours = _converted(html), _converted(html)
    _processing.delete_by_link_density(theirs, tag, backtracking, favor_precision)
    fast_link_density.delete_by_link_density(ours, tag, backtracking, favor_precision)
    assert etree.tostring(ours) == etree.tostring(theirs)


@pytest.mark.usefixtures("installed")
def test_a_menu_of_links_is_deleted_and_prose_with_a_link_kept() -> None:
    tree = _converted(_CRAFTED[0])
    fast_link_density.delete_by_link_density(tree, "div", backtracking=True)
    left = etree.tostring(tree, encoding="unicode")
    assert "Link 3" not in left and "Prose that stays" in left


@pytest.mark.parametrize("html", _PAGES)
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.usefixtures("installed")
def test_trafilatura_reads_the_same_text_with_the_stand_in(html: str, fast: bool) -> None:
    options = {"fast": fast, "include_comments": False, "include_tables": True, "output_format": "markdown"}
    ours = trafilatura.extract(html, **options)
    with fast_link_density.stock():
        theirs = trafilatura.extract(html, **options)
    assert ours == theirs and ours
