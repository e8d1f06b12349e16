"""PDF to text, page by page, with pypdf (pure Python, well kept)."""

from __future__ import annotations

import io
import logging

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from weblens.errors import UnsupportedContentError

__all__ = ["pdf_to_text"]

logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed PDFs are common and not our bug


def pdf_to_text(body: bytes) -> tuple[str, str]:
    """(text with one `## Page N` section per page, title). Unreadable → UnsupportedContentError."""
    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnsupportedContentError("the PDF is encrypted with a password; its text cannot be read")
        sections = []
        for number, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").strip()
            sections.append(f"## Page {number}\n\n{text}" if text else f"## Page {number}\n\n(no text on this page)")
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title)
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnsupportedContentError(f"the PDF could not be read: {type(exc).__name__}: {exc}") from None
    return "\n\n".join(sections), title
