"""Hostile documents a link can point to, fetched over real HTTP as an agent would: each comes
back as bounded text that says what it left out, or as a typed error, fast; never the secrets
of the machine reading it, never a reader running on outside a worker's limits.

The files are made by `weblens.testing.hostile_documents` (which `bench/document_attacks.py`
times): a spreadsheet of a million rows or 16 384 columns, a CSV of one
4-million-field line, an EPUB chapter that is one 12 MB run of text, documents whose XML
declares entities (billion laughs, external files), files served under another file's type,
and empty or cut-off files of every format. Zip containers are padded with random bytes so
they pass the zip-bomb ratio and reach the reader.
"""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import WeblensError
from weblens.fetch import Fetcher
from weblens.fetch.ocr import MAX_OCR_PAGES, ocr_available
from weblens.fetch.office import MAX_CHAPTER_CHARS, MAX_COLUMNS
from weblens.testing import Reply
from weblens.testing.documents import CONTENT_TYPES, blank_png, make_document
from weblens.testing.hostile_documents import (
    WORD_NS,
    broken_files,
    entity_documents,
    nested_docx,
    pdf_page_tree,
    pdf_with_image,
    rezip,
    sheet_xml,
)
from weblens.testing.pages import PageServer, make_pdf

pytestmark = pytest.mark.timeout(60)
HANG_S = 15
"""A read past this has hung, not merely run slow: each takes under a second on an idle core, and the
extraction deadline (10 s of the worker's own time) bounds it; wall time on a loaded machine runs longer."""


def _settings(server: PageServer, **fetch: object) -> Settings:
    return Settings(fetch={"allowed_hosts": [server.host], "workers": 1, **fetch})


async def _read(server: PageServer, path: str, body: bytes, content_type: str, **fetch: object) -> str:
    """The whole text of `body` served at `path`, as `weblens.fetch` reads it, which did not hang."""
    server.route("GET", path, Reply(body=body, content_type=content_type))
    async with Fetcher(_settings(server, **fetch), cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        started = time.perf_counter()
        document, _ = await fetcher.document(server.url(path))
        assert time.perf_counter() - started < HANG_S
    return document.content


async def test_a_spreadsheet_of_a_million_rows_shows_its_first_rows_and_says_so(pages: PageServer) -> None:
    xlsx, _ = make_document("xlsx")
    body = rezip(xlsx, {"xl/worksheets/sheet1.xml": sheet_xml(1_000_000, 1)}, pad=True)
    text = await _read(pages, "/rows.xlsx", body, CONTENT_TYPES["xlsx"], extract_timeout=4)
    assert text.count("| 7 |") == 2_000
    assert text.endswith("(only the first 2,000 of 1,000,000 rows are shown)")


async def test_a_sheet_16384_columns_wide_is_cut_to_a_bounded_table_that_says_so(pages: PageServer) -> None:
    xlsx, _ = make_document("xlsx")
    body = rezip(xlsx, {"xl/worksheets/sheet1.xml": sheet_xml(200, 16_384)}, pad=True)
    text = await _read(pages, "/wide.xlsx", body, CONTENT_TYPES["xlsx"], extract_timeout=4)
    first_row = text.split("\n")[2]
    assert first_row.count("7") == MAX_COLUMNS
    assert "reading stopped after" in text and f"only the first {MAX_COLUMNS} of 16,384 columns are shown" in text


async def test_a_spreadsheet_table_is_as_wide_as_its_cells(pages: PageServer) -> None:
    body, content_type = make_document("xlsx")
    text = await _read(pages, "/plain.xlsx", body, content_type)
    assert "| Albatross | 4200 |\n" in text  # not padded with empty cells to 50 columns


async def test_a_csv_of_one_huge_line_is_a_bounded_table_that_says_so(pages: PageServer) -> None:
    wide = ("a," * 4_000_000).encode()
    one_field = b"x" * 5_000_000  # past the csv module's field limit: shown as text, and said
    text = await _read(pages, "/wide.csv", wide, "text/csv")
    assert len(text) < 1_000 and text.endswith(f"(only the first {MAX_COLUMNS} of 4,000,001 columns are shown)")
    text = await _read(pages, "/field.csv", one_field, "text/csv")
    assert text.startswith("(not shown as a table: a field is longer than the 131,072 characters one may hold)")


async def test_an_epub_chapter_of_one_12_mb_run_of_text_is_cut_and_says_so(pages: PageServer) -> None:
    epub, _ = make_document("epub")
    words = "lorem ipsum dolor " * 700_000
    chapter = f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Huge</h1><p>{words}</p></body></html>'
    body = rezip(epub, {"OEBPS/c1.xhtml": chapter}, pad=True)
    text = await _read(pages, "/huge.epub", body, CONTENT_TYPES["epub"])
    assert text.startswith("# Huge\n\nlorem ipsum dolor") and MAX_CHAPTER_CHARS - 100 < len(text) < len(words)
    assert text.endswith(
        f"(the chapter is cut here: only the first {MAX_CHAPTER_CHARS:,} of its {len(chapter):,} characters are read)"
    )


async def test_entities_in_a_documents_xml_neither_expand_nor_read_local_files(
    pages: PageServer, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("WEBLENS-LOCAL-SECRET")
    documents = entity_documents(secret)
    for number, (body, kind) in enumerate(documents.values()):
        pages.route("GET", f"/entities/{number}", Reply(body=body, content_type=CONTENT_TYPES[kind]))
    seen = []
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        for number, name in enumerate(documents):
            started = time.perf_counter()
            try:
                document, _ = await fetcher.document(pages.url(f"/entities/{number}"))
                said = document.content + (document.note or "")
                assert len(said) < 2_000, name  # a billion laughs did not expand
            except WeblensError as exc:
                assert exc.code == "unsupported_content", (name, exc)
                said = exc.message
            assert time.perf_counter() - started < HANG_S, name
            seen.append(said)
    assert not any("WEBLENS-LOCAL-SECRET" in said for said in seen), seen


async def test_a_file_served_under_another_files_type_is_read_as_what_it_is(pages: PageServer) -> None:
    pdf = make_pdf(["Harbour lights on page one"])
    docx, _ = make_document("docx")
    served = {
        "/pdf-as-csv": (pdf, "text/csv"),
        "/pdf-as-html": (pdf, "text/html"),
        "/pdf-as-docx": (pdf, CONTENT_TYPES["docx"]),
        "/pdf-as-png": (pdf, "image/png"),
        "/docx-as-csv": (docx, "text/csv"),
    }
    if ocr_available():
        served["/png-as-text"] = (blank_png(64, 32), "text/plain")
    for path, (body, content_type) in served.items():
        pages.route("GET", path, Reply(body=body, content_type=content_type))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        read = {path: await fetcher.fetch(pages.url(path)) for path in served}
    for path in ("/pdf-as-csv", "/pdf-as-html", "/pdf-as-docx", "/pdf-as-png"):
        assert read[path].extractor == "pypdf" and "Harbour lights on page one" in read[path].content, path
    assert read["/docx-as-csv"].extractor == "mammoth" and "| Albatross | 4200 |" in read["/docx-as-csv"].content
    if ocr_available():  # a blank image: OCR says it found nothing, instead of showing the PNG's bytes as text
        assert read["/png-as-text"].extractor == "rapidocr" and "PNG" not in read["/png-as-text"].content


async def test_a_small_document_is_read_in_a_worker_under_its_memory_limit(pages: PageServer) -> None:
    """A one-shot `weblens fetch` reads small pages in its own process; a 300 KB .docx that
    inflates to 40 MB of XML must still go to a worker, whose memory limit stops it at once
    (in the process it ran on for minutes, past its timeout, to gigabytes)."""
    docx, content_type = make_document("docx")
    paragraph = "<w:p><w:r><w:t>words</w:t></w:r></w:p>"
    xml = f"<w:document {WORD_NS}><w:body>{paragraph * (40_000_000 // len(paragraph))}</w:body></w:document>"
    body = rezip(docx, {"word/document.xml": xml}, pad=True)
    assert len(body) < 1 << 20
    pages.route("GET", "/small-bomb.docx", Reply(body=body, content_type=content_type))
    settings = _settings(pages, in_process_bytes=1 << 20, worker_memory_mb=64, extract_timeout=30, timeout=60)
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        await fetcher.workers.warm()
        started = time.perf_counter()
        with pytest.raises(WeblensError) as caught:
            await fetcher.fetch(pages.url("/small-bomb.docx"))
        assert time.perf_counter() - started < HANG_S
    assert caught.value.code == "too_large" and "worker_memory_mb" in caught.value.message


async def test_an_empty_or_broken_file_of_any_format_is_a_typed_error_or_says_it_is_empty(pages: PageServer) -> None:
    files = broken_files()
    for number, (body, content_type) in enumerate(files.values()):
        pages.route("GET", f"/broken/{number}", Reply(body=body, content_type=content_type))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        for number, name in enumerate(files):
            started = time.perf_counter()
            try:
                page = await fetcher.fetch(pages.url(f"/broken/{number}"))
                assert page.content.strip() or page.note, name
            except WeblensError as exc:
                assert exc.code == "unsupported_content", (name, exc.code, exc.message)
                assert "Traceback" not in exc.message and len(exc.message) < 600, name
            assert time.perf_counter() - started < HANG_S, name


async def test_a_pdf_damaged_past_pypdfs_own_errors_is_a_typed_error_that_says_it_could_not_be_read(
    pages: PageServer,
) -> None:
    damaged = make_pdf(["Harbour lights"]).replace(b"trailer\n<<", b"trailer\n5 <<")  # a trailer that is no dictionary
    pages.route("GET", "/damaged.pdf", Reply(body=damaged, content_type="application/pdf"))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        with pytest.raises(WeblensError) as caught:  # was pypdf's AttributeError, an internal_error for web_fetch
            await fetcher.fetch(pages.url("/damaged.pdf"))
    assert caught.value.code == "unsupported_content"
    assert caught.value.message.startswith("the PDF could not be read: it looks damaged")


@pytest.mark.skipif(not ocr_available(), reason="OCR is not installed: pip install 'weblens[ocr]'")  # read before OCR
async def test_an_image_damaged_past_pillows_own_errors_is_a_typed_error_that_says_it_could_not_be_read(
    pages: PageServer,
) -> None:
    from PIL import Image

    saved = io.BytesIO()
    Image.new("RGB", (64, 32), "white").save(saved, "TIFF")
    damaged = bytearray(saved.getvalue())
    damaged[8] = 158  # the first directory's count of entries, as a fuzzer changed it
    pages.route("GET", "/damaged.tiff", Reply(body=bytes(damaged), content_type="image/tiff"))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        with pytest.raises(WeblensError) as caught:  # was Pillow's TypeError("Missing dimensions")
            await fetcher.fetch(pages.url("/damaged.tiff"))
    assert caught.value.code == "unsupported_content"
    assert caught.value.message.startswith("the body (image/tiff) could not be read as a TIFF image: it looks damaged")


@pytest.mark.skipif(not ocr_available(), reason="OCR is not installed: pip install 'weblens[ocr]'")  # none decodes it
async def test_a_pdf_whose_image_inflates_past_what_pypdf_decodes_is_too_large_and_says_why(pages: PageServer) -> None:
    body = pdf_with_image(10_000)  # a 10k x 10k grey scan: 100 MB inflated from 100 KB
    pages.route("GET", "/scan-bomb.pdf", Reply(body=body, content_type="application/pdf"))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        with pytest.raises(WeblensError) as caught:
            await fetcher.fetch(pages.url("/scan-bomb.pdf"))
    assert caught.value.code == "too_large" and "decompression bomb" in caught.value.message


@pytest.mark.skipif(not ocr_available(), reason="OCR is not installed: pip install 'weblens[ocr]'")
async def test_a_blank_scan_longer_than_ocr_reads_says_which_pages_were_read(pages: PageServer) -> None:
    count = 30
    body = pdf_page_tree(count)
    pages.route("GET", "/blank-scan.pdf", Reply(body=body, content_type="application/pdf"))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(pages.url("/blank-scan.pdf"))
    assert page.note is not None and "OCR found no text" in page.note
    assert f"Only the first {MAX_OCR_PAGES} of its {count} pages were read." in page.note


async def test_an_odt_that_asks_for_two_billion_spaces_gets_one(pages: PageServer) -> None:
    odt, content_type = make_document("odt")
    content = zipfile.ZipFile(io.BytesIO(odt)).read("content.xml").decode()
    spaced = content.replace("Albatross", 'Alba<text:s text:c="2000000000"/>tross')  # an 800-byte file
    text = await _read(pages, "/spaces.odt", rezip(odt, {"content.xml": spaced}), content_type, worker_memory_mb=256)
    assert "| Alba tross | 4200 |" in text


async def test_markup_nested_100_000_deep_is_read_flattened_or_refused_saying_why(pages: PageServer) -> None:
    epub, epub_type = make_document("epub")
    chapter = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/c1.xhtml").decode()
    deep = chapter.replace("<h1>", "<div>" * 100_000 + "deep" + "</div>" * 100_000 + "<h1>")
    text = await _read(pages, "/deep.epub", rezip(epub, {"OEBPS/c1.xhtml": deep}, pad=True), epub_type)
    assert text.startswith("(this part nests its markup deeper than the parser follows; it was read flattened")
    assert "Harbour Survey" in text and "Albatross" in text  # the text after the nesting is not lost
    pages.route("GET", "/deep.docx", Reply(body=nested_docx(100_000), content_type=CONTENT_TYPES["docx"]))
    async with Fetcher(_settings(pages), cache=Cache(None)) as fetcher:
        with pytest.raises(WeblensError) as caught:
            await fetcher.fetch(pages.url("/deep.docx"))
    assert caught.value.code == "unsupported_content" and "nests its XML too deeply" in caught.value.message
