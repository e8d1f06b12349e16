"""A scanned PDF (pages that are images, no text layer) is read by OCR when the `ocr` extra is
installed, and says so; without it, the result says what to install."""

from __future__ import annotations

import sys

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import Fetcher, fetch, ocr
from weblens.fetch.ocr import ocr_available
from weblens.testing import Reply
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(120)

needs_ocr = pytest.mark.skipif(
    not ocr_available(), reason="OCR is not installed: pip install 'weblens[ocr]' (and apt-get install libgl1)"
)


@needs_ocr
async def test_a_scanned_pdf_is_read_by_ocr_and_says_so(pages: PageServer) -> None:
    from weblens.testing.documents import SCANNED_LINES, scanned_pdf

    pages.route("GET", "/scan.pdf", Reply(body=scanned_pdf(pages=2), content_type="application/pdf"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 30, "timeout": 60})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(pages.url("/scan.pdf"))
    assert page.extractor == "pypdf+rapidocr"
    assert page.note is not None and "OCR" in page.note
    assert page.content.count(SCANNED_LINES[0]) == 2, page.content  # both pages, each under its heading
    assert "## Page 1" in page.content and "## Page 2" in page.content and "Albatross" in page.content


async def test_without_ocr_a_scanned_pdf_says_what_to_install(
    pages: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weblens.testing.hostile import slow_pdf

    empty_page = slow_pdf(0)  # one page, no text drawn: no text layer to read
    pages.route("GET", "/blank.pdf", Reply(body=empty_page, content_type="application/pdf"))
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # as if the extra were not installed
    ocr.ocr_engine_loaded.cache_clear()  # this process loaded it (to decide the skip above): forget it
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 0})
    page = await fetch(pages.url("/blank.pdf"), settings=settings, cache=Cache(None))
    assert page.extractor == "pypdf" and "(no text on this page)" in page.content
    assert page.note is not None and "pip install 'weblens[ocr]'" in page.note
