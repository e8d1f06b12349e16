"""weblens' stand-in for jusText's paragraph maker (`weblens.fetch.fast_justext`) makes and classifies
exactly the paragraphs jusText does, on generated trees, hand-made edge cases and the repository's own
pages; trafilatura reads the same text with it; and it is not used on a jusText whose code changed."""

from __future__ import annotations

from typing import Any

import pytest
import trafilatura
from hypothesis import given
from hypothesis import strategies as st
from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
from justext.utils import normalize_whitespace
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html
from trafilatura.baseline import basic_cleaning
from trafilatura.external import jt_stoplist_init

from weblens.fetch import fast_justext
from weblens.fetch.extract import extract
from weblens.fetch.html import parse_html
from weblens.testing.fuzz import fuzz_settings
from weblens.testing.pages import page_fixture

_STOPLIST = jt_stoplist_init()  # trafilatura's: every language's stop words, as a tuple
_FIELDS = ("text", "class_type", "cf_class", "dom_path", "xpath", "tags_count", "chars_count_in_links", "heading",
           "words_count", "is_boilerplate")  # fmt: skip


def _paragraphs(maker: Any, classify: Any, tree: Any, stoplist: Any = _STOPLIST) -> list[tuple[Any, ...]]:
    """Every field of every paragraph after both of jusText's passes, as trafilatura runs them."""
    paragraphs = maker.make_paragraphs(tree)
    classify(paragraphs, stoplist, 50, 150, 0.1, 0.2, 0.25, True)
    revise_paragraph_classification(paragraphs, 150)
    return [tuple(getattr(paragraph, field) for field in _FIELDS) for paragraph in paragraphs]


def _assert_same(tree: Any, stoplist: Any = _STOPLIST) -> None:
    expected = _paragraphs(ParagraphMaker, classify_paragraphs, tree, stoplist)
    assert _paragraphs(fast_justext.FastParagraphMaker, fast_justext.classify, tree, stoplist) == expected


# Text that sits on every side of jusText's tests: blank, spaced by every kind of white space, stop
# words (English and others), long enough to be good, a copyright sign.
_TEXT = st.one_of(
    st.sampled_from(["", " ", "\n", "\r\n ", "\t\xa0", "\u2003", "the and of", "© 2026", "&copy", "x"]),
    st.text(alphabet="ab \n\r\t\xa0\u2028\x1c", max_size=12),
    st.lists(st.sampled_from(["the", "of", "und", "le", "word", "Lorem", "ipsum", " ", "\n"]), max_size=40).map(
        " ".join
    ),
)
_TAGS = ["div", "p", "br", "a", "span", "b", "h1", "h3", "td", "tr", "table", "select", "option", "li", "ul",
         "blockquote", "pre", "textarea", "body", "em", "fb:like"]  # fmt: skip


def _render(node: tuple[str, str, list[Any], str]) -> str:
    tag, text, children, tail = node
    if tag == "br":
        return f"<br>{tail}"
    if tag == "!--":
        return f"<!--{text}-->{tail}"
    return f"<{tag}>{text}{''.join(_render(child) for child in children)}</{tag}>{tail}"


_nodes = st.recursive(
    st.tuples(st.sampled_from([*_TAGS, "!--"]), _TEXT, st.just([]), _TEXT),
    lambda inner: st.tuples(st.sampled_from(_TAGS), _TEXT, st.lists(inner, max_size=5), _TEXT),
    max_leaves=40,
)
_pages = st.lists(_nodes, min_size=1, max_size=4).map(
    lambda nodes: "<html><head><title>t</title></head><body>" + "".join(map(_render, nodes)) + "</body></html>"
)


@fuzz_settings(300)
@given(_pages)
def test_generated_trees_make_the_same_paragraphs(html: str) -> None:
    tree = lxml_html.fromstring(html)
    _assert_same(tree)
    _assert_same(basic_cleaning(tree), frozenset({"the", "of", "und"}))


@fuzz_settings(300)
@given(st.text(alphabet="a \n\r\t\x0b\x0c\x1c\x1f\x85\xa0\u2028\u2029\u3000", max_size=40))
def test_white_space_is_normalized_as_justext_does(text: str) -> None:
    assert fast_justext.normalized(text) == normalize_whitespace(text)


def test_white_space_runs_take_linear_time() -> None:
    """Long runs with and without a line break in them: a pattern that retried each run from each of its
    characters would take hours here."""
    for run in (" \t" * 200_000, " \t" * 200_000 + "\n" + "\xa0" * 200_000):
        text = f"a{run}b{run}"
        assert fast_justext.normalized(text) == normalize_whitespace(text)


@pytest.mark.parametrize(
    "html",
    [
        "<div>one<br>two<br><br>three<br><br><br>four</div>",  # <br><br> splits a paragraph; one <br> does not
        "<p><br></p><p> <br> </p><div><br><br></div>",  # paragraphs of line breaks only are dropped
        "<p>read <a>the linked words of the story</a> here</p><a>outside</a>",
        "<p>a<!-- comment -->b<?pi x?>c</p>",  # the tails of comments and instructions are text
        "<table><tr><td>x</td><td>y</td></tr><tr><td>x</td></tr></table>",  # td[1], td[2] in the paths
        "<select><option>one</option><option>two</option></select>",
        "<h1>A heading</h1><p>" + "the story of the town and the river " * 10 + "</p>",
        "<fb:like>namespaced-looking tag</fb:like>",
    ],
)
def test_edge_cases_make_the_same_paragraphs(html: str) -> None:
    tree = lxml_html.fromstring(f"<html><body>{html}</body></html>")
    _assert_same(tree)
    _assert_same(tree.find("body"))


def test_trees_it_does_not_read_itself_go_to_justext() -> None:
    """An entity node (jusText fails on it; trafilatura then keeps its own text) and an instruction beside
    the root (jusText reads it) are left to jusText's own maker, failure included."""
    root = etree.fromstring("<html><body><p>text</p></body></html>")
    root.find(".//p").append(etree.Entity("amp"))
    with pytest.raises(TypeError):
        ParagraphMaker.make_paragraphs(root)
    with pytest.raises(TypeError):
        fast_justext.FastParagraphMaker.make_paragraphs(root)
    beside = etree.fromstring("<doc><?before x?><html><body><p>one</p></body></html>tail<?after y?>after</doc>")
    _assert_same(beside[1])
    namespaced = etree.fromstring('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>one</p></body></html>')
    _assert_same(namespaced)


@pytest.mark.parametrize("name", ["page_forum_thread.html", "page_docs.html", "page_listing.html"])
def test_repository_pages_make_and_read_the_same(name: str) -> None:
    html = page_fixture(name).decode()
    tree = parse_html(html)
    _assert_same(tree)
    _assert_same(basic_cleaning(parse_html(html)))
    with fast_justext.stock():
        assert not fast_justext.installed()
        stock = trafilatura.extract(html, fast=False, include_comments=False, output_format="markdown")
        ours = extract(html.encode(), "text/html; charset=utf-8", "https://example.com/")
    assert fast_justext.installed() == (fast_justext.source_digest() == fast_justext.DIGEST)
    assert trafilatura.extract(html, fast=False, include_comments=False, output_format="markdown") == stock
    assert extract(html.encode(), "text/html; charset=utf-8", "https://example.com/") == ours


def test_justext_decides_the_same_through_trafilatura(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page whose text trafilatura's own pass prunes (a sidebar) and jusText reads: its reading is the one
    trafilatura keeps, and it is the same with the stand-in."""
    sentence = "The river rose in the night and the people of the town carried what they could up the hill. " * 2
    html = f"<html><body><p>Short note.</p><div class='sidebar'><p>{sentence}</p><p>{sentence}</p></div></body></html>"
    with fast_justext.stock():
        stock = trafilatura.extract(html, fast=False, include_comments=False)
    assert stock is not None
    assert trafilatura.extract(html, fast=False, include_comments=False) == stock
    from trafilatura import external

    class NoParagraphs:
        @classmethod
        def make_paragraphs(cls, root: Any) -> list[Any]:
            return []

    monkeypatch.setattr(external, "ParagraphMaker", NoParagraphs)
    assert len(trafilatura.extract(html, fast=False, include_comments=False) or "") < len(stock)  # jusText decided


def test_it_stands_in_only_for_the_justext_it_was_written_against() -> None:
    """Installed exactly when jusText's sources hash to the digest it was written against: on jusText 3.0.2
    (the release it was written against) that is so."""
    import justext

    assert fast_justext.install() == (fast_justext.source_digest() == fast_justext.DIGEST)
    assert fast_justext.installed() == (fast_justext.source_digest() == fast_justext.DIGEST)
    if getattr(justext, "__version__", None) == "3.0.2":
        assert fast_justext.installed()


def test_a_changed_justext_keeps_its_own() -> None:
    """Written against other sources (another digest), the stand-in is never swapped in."""
    from trafilatura import external

    with fast_justext.stock():
        assert not fast_justext.install(digest="ffffffff")
        assert external.ParagraphMaker is ParagraphMaker
        assert external.classify_paragraphs is classify_paragraphs
    assert external.ParagraphMaker is fast_justext.FastParagraphMaker
