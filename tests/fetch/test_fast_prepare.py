"""weblens' stand-in for trafilatura's tree preparation (`weblens.fetch.fast_prepare`): trafilatura reads
every page the same with it, in every mode (tests/fetch/test_swap.py: not used on a trafilatura whose code changed)."""

from __future__ import annotations

import pytest
import trafilatura

from weblens.fetch import fast_prepare
from weblens.fetch.extract import extract
from weblens.testing.pages import article_html, page_fixture

_PAGES = [article_html(), *(page_fixture(name).decode() for name in ("page_forum_thread.html", "page_docs.html",
          "page_listing.html"))]  # fmt: skip
# fast or not, comments on or off: the backup copy is left out only in a fast pass without comments
_MODES = [
    {"fast": True},
    {"fast": False},
    {"fast": True, "include_comments": True},
    {"fast": False, "favor_recall": True},
]


@pytest.fixture
def installed() -> None:
    if not fast_prepare.install():  # what reading the first HTML page does
        pytest.skip("this trafilatura prepares trees with other code: the stand-in is not used")


@pytest.mark.parametrize("html", _PAGES)
@pytest.mark.parametrize("mode", _MODES, ids=str)
@pytest.mark.usefixtures("installed")
def test_trafilatura_reads_the_same(html: str, mode: dict[str, bool]) -> None:
    options = {"include_comments": False, "include_tables": True, "output_format": "markdown", **mode}
    with fast_prepare.stock():
        assert not fast_prepare.installed()
        stock = trafilatura.extract(html, **options)  # type: ignore[arg-type]
    assert fast_prepare.installed()
    assert stock
    assert trafilatura.extract(html, **options) == stock  # type: ignore[arg-type]


@pytest.mark.parametrize("html", _PAGES)
@pytest.mark.usefixtures("installed")
def test_weblens_reads_the_same(html: str) -> None:
    with fast_prepare.stock():
        stock = extract(html.encode(), "text/html; charset=utf-8", "https://example.com/")
    assert extract(html.encode(), "text/html; charset=utf-8", "https://example.com/") == stock
