"""A scanned PDF (pages that are images, no text layer) and an image of text a link points to
(PNG, JPEG, WebP, GIF, TIFF, BMP) are read by OCR when the `ocr` extra is installed, and say so;
an image that would decode to more pixels than weblens reads is refused before decoding;
without the extra, the result says what to install."""

from __future__ import annotations

import sys

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import TooLargeError, UnsupportedContentError
from weblens.fetch import Fetcher, fetch, ocr
from weblens.fetch.ocr import ocr_available
from weblens.runtime import Runtime
from weblens.testing import Reply
from weblens.testing.documents import IMAGE_FORMATS, SCANNED_LINES, blank_png
from weblens.testing.pages import PageServer
from weblens.tools.fetch import FetchTool

pytestmark = pytest.mark.timeout(120)

needs_ocr = pytest.mark.skipif(
    not ocr_available(), reason="OCR is not installed: pip install 'weblens[ocr]'"
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
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if the extra were not installed
    ocr.ocr_engine_loaded.cache_clear()  # this process loaded it (to decide the skip above): forget it
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 0})
    page = await fetch(pages.url("/blank.pdf"), settings=settings, cache=Cache(None))
    assert page.extractor == "pypdf" and "(no text on this page)" in page.content
    assert page.note is not None and "pip install 'weblens[ocr]'" in page.note


@needs_ocr
async def test_the_scanned_pages_of_a_pdf_with_a_text_layer_elsewhere_are_read_by_ocr(pages: PageServer) -> None:
    from weblens.testing.documents import TYPED_LINE, mixed_pdf

    pages.route("GET", "/mixed.pdf", Reply(body=mixed_pdf(), content_type="application/pdf"))
    async with Fetcher(_ocr_settings(pages), cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(pages.url("/mixed.pdf"))
    first, second = page.content.split("## Page 2")
    assert TYPED_LINE in first and SCANNED_LINES[0] in second  # was "(no text on this page)", and no note
    assert page.extractor == "pypdf+rapidocr" and page.note is not None and "Page 2 has no text layer" in page.note


@needs_ocr
def test_ocr_stops_short_of_the_extraction_time_limit_and_names_the_pages_it_left() -> None:
    """A full-page scan takes seconds: pages past the time limit stay unread (and named), so the rest of the
    document still comes back instead of the worker being stopped with nothing."""
    from weblens.fetch.extract import extract
    from weblens.testing.documents import TYPED_LINE, mixed_pdf

    out = extract(mixed_pdf(), "application/pdf", time_limit=1e-9)
    assert TYPED_LINE in out.content and SCANNED_LINES[0] not in out.content
    assert out.note is not None and "Page 2 has no text layer and was not read" in out.note
    assert "fetch.extract_timeout" in out.note
    assert SCANNED_LINES[0] in extract(mixed_pdf(), "application/pdf", time_limit=60).content


async def test_without_ocr_the_scanned_pages_of_a_pdf_are_named_with_what_to_install(
    pages: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weblens.testing.documents import mixed_pdf

    pages.route("GET", "/mixed-no-ocr.pdf", Reply(body=mixed_pdf(), content_type="application/pdf"))
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if the extra were not installed
    ocr.ocr_engine_loaded.cache_clear()
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 0})
    page = await fetch(pages.url("/mixed-no-ocr.pdf"), settings=settings, cache=Cache(None))
    assert page.extractor == "pypdf" and "(no text on this page)" in page.content
    assert page.note is not None and page.note.startswith("Page 2 has no text layer")
    assert "pip install 'weblens[ocr]'" in page.note


def _ocr_settings(pages: PageServer) -> Settings:
    return Settings(fetch={"allowed_hosts": [pages.host], "workers": 1, "extract_timeout": 30, "timeout": 60})


@needs_ocr
async def test_web_fetch_reads_an_image_of_text_by_ocr_and_says_so(pages: PageServer) -> None:
    from weblens.testing.documents import text_image

    body, content_type = text_image("png")  # black text on a transparent background
    pages.route("GET", "/notice.png", Reply(body=body, content_type=content_type))
    async with Runtime(settings=_ocr_settings(pages), cache=Cache(None)) as runtime:
        result = await FetchTool(runtime).execute({"url": pages.url("/notice.png")})
    assert result.ok, result.error
    assert result.data["extractor"] == "rapidocr"
    assert "by rapidocr" in result.text and "OCR" in result.text  # the model is told how the text was read
    assert SCANNED_LINES[0] in result.text and "Albatross" in result.text


@needs_ocr
@pytest.mark.parametrize("kind", IMAGE_FORMATS)
async def test_each_image_format_is_read_by_type_and_by_magic_bytes(kind: str, pages: PageServer) -> None:
    from weblens.testing.documents import text_image

    body, content_type = text_image(kind)
    pages.route("GET", f"/picture.{kind}", Reply(body=body, content_type=content_type))
    pages.route("GET", f"/download/{kind}", Reply(body=body, content_type="application/octet-stream"))
    async with Fetcher(_ocr_settings(pages), cache=Cache(None)) as fetcher:
        labelled = await fetcher.fetch(pages.url(f"/picture.{kind}"))
        sniffed = await fetcher.fetch(pages.url(f"/download/{kind}"))
    for page in (labelled, sniffed):
        assert page.extractor == "rapidocr", page
        assert page.content.splitlines() == list(SCANNED_LINES), page.content
        assert page.note is not None and f"OCR (rapidocr) from a {kind.upper()} image" in page.note


@needs_ocr
async def test_words_stay_apart_in_small_print(pages: PageServer) -> None:
    """The recognition model runs words together in small print ("Totalamountdue734dollars");
    weblens puts the spaces back from the blank columns between the letters it read."""
    from weblens.testing.documents import text_image

    lines = (
        "Opening hours are from nine until five on weekdays",
        "Total amount due 734 dollars before 30 June 2024",
        "Trains to the airport leave every fifteen minutes",
    )
    body, content_type = text_image("png", lines, size=20)
    pages.route("GET", "/notice.png", Reply(body=body, content_type=content_type))
    page = await fetch(pages.url("/notice.png"), settings=_ocr_settings(pages), cache=Cache(None))
    assert page.content.splitlines() == list(lines)


@needs_ocr
async def test_a_multi_page_tiff_is_read_page_by_page(pages: PageServer) -> None:
    from weblens.testing.documents import text_image

    body, content_type = text_image("tiff", pages=2)
    pages.route("GET", "/fax.tiff", Reply(body=body, content_type=content_type))
    page = await fetch(pages.url("/fax.tiff"), settings=_ocr_settings(pages), cache=Cache(None))
    assert "## Page 1" in page.content and "## Page 2" in page.content
    assert page.content.count(SCANNED_LINES[0]) == 2, page.content


@needs_ocr
@pytest.mark.parametrize(("side", "why"), [(12_000, "at most 40 megapixels"), (20_000, "could be decompression bomb")])
async def test_a_decompression_bomb_image_is_refused_before_it_is_decoded(
    side: int, why: str, pages: PageServer
) -> None:
    """12 000² pixels is under Pillow's own refusal (179 MP) but would decode to 144 MB grey,
    432 MB in colour; 20 000² is past it. Both are small files."""
    bomb = blank_png(side, side)
    assert len(bomb) < 1_000_000
    pages.route("GET", "/bomb.png", Reply(body=bomb, content_type="image/png"))
    with pytest.raises(TooLargeError) as caught:
        await fetch(pages.url("/bomb.png"), settings=_ocr_settings(pages), cache=Cache(None))
    assert caught.value.code == "too_large"
    assert why in caught.value.message and "decompression bomb" in caught.value.message


async def test_without_ocr_an_image_says_what_to_install(pages: PageServer, monkeypatch: pytest.MonkeyPatch) -> None:
    pages.route("GET", "/sign.png", Reply(body=blank_png(64, 32), content_type="image/png"))
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if the extra were not installed
    ocr.ocr_engine_loaded.cache_clear()
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 0})
    with pytest.raises(UnsupportedContentError) as caught:
        await fetch(pages.url("/sign.png"), settings=settings, cache=Cache(None))
    assert "needs OCR" in caught.value.message and "pip install 'weblens[ocr]'" in caught.value.message
    async with Runtime(settings=settings, cache=Cache(None)) as runtime:
        result = await FetchTool(runtime).execute({"url": pages.url("/sign.png")})
    assert result.error is not None and result.error.code == "unsupported_content"
    assert "pip install 'weblens[ocr]'" in result.error.message


async def test_an_svg_image_is_read_as_its_xml_text(pages: PageServer, settings: Settings) -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><text x="5" y="20">Harbour chart</text></svg>'
    pages.route("GET", "/chart.svg", Reply(body=svg, content_type="image/svg+xml"))
    page = await fetch(pages.url("/chart.svg"), settings=settings, cache=Cache(None))
    assert page.extractor == "text" and "Harbour chart" in page.content
