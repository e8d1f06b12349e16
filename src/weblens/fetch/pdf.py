"""PDF to text, page by page, with pypdf (pure Python, well kept); a PDF with no text layer at
all (a scan) is read by OCR when the `ocr` extra is installed (`weblens.fetch.ocr`)."""

from __future__ import annotations

import io
import logging
from typing import NamedTuple

from pypdf import PdfReader
from pypdf.errors import DependencyError, LimitReachedError

from weblens.errors import TooLargeError, UnsupportedContentError, WeblensError
from weblens.fetch.ocr import OcrBudget

__all__ = ["PdfText", "page_sections", "pdf_to_text"]

logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed PDFs are common and not our bug

_NO_TEXT = "(no text on this page)"
_IN_TIME = "to finish within the extraction's time limit, fetch.extract_timeout"
_MAX_REASON_CHARS = 200  # of a reader's own message in ours: enough to say what broke, not a page of repr


class PdfText(NamedTuple):
    text: str
    """One `## Page N` section per page."""
    title: str
    note: str | None = None
    ocr: bool = False
    """The text was read from the pages' images by OCR."""


def page_sections(texts: list[str]) -> str:
    """One `## Page N` section per page; an empty page says so."""
    return "\n\n".join(f"## Page {number}\n\n{text or _NO_TEXT}" for number, text in enumerate(texts, start=1))


def _scanned(reader: PdfReader, title: str, budget: OcrBudget) -> PdfText:
    """A PDF without a text layer: its pages' images by OCR, or a note on what would read it."""
    from weblens.fetch.ocr import MAX_OCR_PAGES, OCR_NOTE, ocr_missing, ocr_pdf_pages

    pages = len(reader.pages)
    missing = ocr_missing()
    if missing is not None:
        note = f"The PDF has no text layer (a scan?); to read it by OCR, {missing}"
        return PdfText(page_sections([""] * pages), title, note)
    texts = ocr_pdf_pages(reader, budget=budget)
    note = OCR_NOTE if any(texts) else "The PDF has no text layer, and OCR found no text in its images."
    if budget.stopped:
        note += f" OCR stopped after {len(texts)} of its {pages:,} pages, {_IN_TIME}."
    elif pages > MAX_OCR_PAGES:
        note += f" Only the first {MAX_OCR_PAGES} of its {pages:,} pages were read."
    return PdfText(page_sections(texts), title, note, ocr=True)


def _with_scanned_pages(reader: PdfReader, texts: list[str], title: str, budget: OcrBudget) -> PdfText:
    """A PDF of text pages and scanned ones (pages with images and no text layer): those read by OCR, or a note
    naming them and what would read them."""
    from weblens.fetch.ocr import MAX_OCR_PAGES, ocr_missing, ocr_pdf_pages

    scans = [number for number, text in enumerate(texts) if not text and reader.pages[number].images]
    if not scans:
        return PdfText(page_sections(texts), title)
    named = _page_list(scans)
    missing = ocr_missing()
    if missing is not None:
        return PdfText(page_sections(texts), title, f"{named} no text layer (scans?); to read them by OCR, {missing}")
    found = ocr_pdf_pages(reader, scans, budget)
    for number, text in zip(scans, found, strict=False):
        texts[number] = text
    read, unread = scans[: len(found)], scans[len(found) :]
    note = ""
    if read:
        were = "was" if len(read) == 1 else "were"
        note = f"{_page_list(read)} no text layer and {were} read by OCR (rapidocr) from images: expect misread "
        note += "words and spacing there."
    if unread:
        why = _IN_TIME if budget.stopped else f"at most {MAX_OCR_PAGES} pages are read by OCR"
        note += f" {_page_list(unread)} no text layer and {'was' if len(unread) == 1 else 'were'} not read ({why})."
    return PdfText(page_sections(texts), title, note.strip(), ocr=bool(read))


def _page_list(numbers: list[int]) -> str:
    """`Page 3 has` / `Pages 2, 3 and 9 have` (the numbers counted from 0), at most ten named."""
    shown = [str(number + 1) for number in numbers[:10]] + (["more"] if len(numbers) > 10 else [])
    if len(shown) == 1:
        return f"Page {shown[0]} has"
    return f"Pages {', '.join(shown[:-1])} and {shown[-1]} have"


def pdf_to_text(body: bytes, budget: OcrBudget | None = None) -> PdfText:
    """The text of every page, the title, and a note (OCR of scanned pages within `budget`). Unreadable →
    UnsupportedContentError."""
    budget = budget or OcrBudget()
    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnsupportedContentError("the PDF is encrypted with a password; its text cannot be read")
        texts = [(page.extract_text() or "").strip() for page in reader.pages]
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title)
        if texts and not any(texts):
            return _scanned(reader, title, budget)
        if not all(texts):
            return _with_scanned_pages(reader, texts, title, budget)
    except LimitReachedError as exc:  # a stream (a page's text, a scan's image) that would inflate past pypdf's cap
        raise TooLargeError(
            f"the PDF was not read: one of its streams (a page's text or image) inflates past what pypdf "
            f"decodes (a decompression bomb?): {exc}"
        ) from None
    except DependencyError as exc:  # an AES-encrypted PDF (even with an empty password) where `cryptography` is not
        raise UnsupportedContentError(
            f"the PDF could not be read: it needs a package not installed here ({exc})"
        ) from None
    except (WeblensError, MemoryError):  # our own errors (OCR's), and the worker's memory limit, as they are
        raise
    except Exception as exc:  # a damaged file: pypdf raises AttributeError, TypeError, ... past its own errors
        said = f"{type(exc).__name__}: {str(exc)[:_MAX_REASON_CHARS]}"
        raise UnsupportedContentError(f"the PDF could not be read: it looks damaged ({said})") from None
    return PdfText(page_sections(texts), title)
