"""A response body to text, by content type: HTML, text, JSON, PDF, Office documents, EPUB, RTF
and CSV (`weblens.fetch.office`), RSS and Atom feeds (`weblens.fetch.feeds`), Jupyter notebooks
(`weblens.fetch.notebook`), images by OCR (`weblens.fetch.images`); anything else is refused.

CPU-bound and synchronous on purpose: the fetcher runs it off the event loop (and may run
it in another process: inputs and outputs are plain, picklable values). The HTML and PDF
readers (trafilatura, pypdf) are imported on first use: they take most of a second to
load, and most commands never read a page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from weblens.errors import UnsupportedContentError
from weblens.fetch.decode import decode_body
from weblens.fetch.feeds import is_feed
from weblens.fetch.images import image_kind
from weblens.fetch.notebook import is_notebook, notebook_markdown
from weblens.fetch.ocr import OcrBudget
from weblens.fetch.office import READER_NAMES, document_kind

__all__ = ["Extracted", "extract", "inflates", "media_type"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {"application/xml", "application/javascript", "application/x-yaml", "application/yaml", "application/x-ndjson"}
)
_SNIFF_WINDOW = 512
JS_SHELL_NOTE = (
    "The page holds no readable text: it looks like a JavaScript application whose content is built in the browser."
)
EMPTY_NOTE = "The page holds no readable text."


@dataclass
class Extracted:
    content: str
    extractor: str
    title: str = ""
    byline: str | None = None
    date: str | None = None
    note: str | None = None
    render_reason: str | None = None
    """Why a browser would likely read more (`weblens.fetch.render_need`), for `render="auto"`."""

    def __post_init__(self) -> None:
        self.content, self.title = whole_characters(self.content), whole_characters(self.title)
        self.byline = None if self.byline is None else whole_characters(self.byline)


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_characters(text: str) -> str:
    """`text` as UTF-8 can store it: an RTF's or a JSON string's escaped surrogate pairs (an emoji) joined, a
    lone half replaced by U+FFFD. Such text cannot be cached, logged or sent, and was a traceback."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _sniff(body: bytes) -> str:
    head = body[:_SNIFF_WINDOW].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "application/pdf"
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return "text/html"
    if head.startswith((b"{", b"[")):
        return "application/json"
    return "text/plain" if b"\x00" not in head else "application/octet-stream"


def _is_text(kind: str) -> bool:
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+xml", "+yaml"))


def _is_json(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


def _html(body: bytes, content_type: str, url: str, raw: bool) -> Extracted:
    text, charset = decode_body(body, content_type, html=True)
    if raw:
        return Extracted(text, "raw")
    from weblens.fetch.html import SHELL_VISIBLE_CHARS, extract_html

    # the body is the text's UTF-8 when it was read as UTF-8 with nothing replaced: the parser takes it as it is
    encoded = body if charset == "utf-8" and "\ufffd" not in text else None
    found = extract_html(text, url, encoded)  # raises BlockedError for a bot check or consent wall
    from weblens.fetch.render_need import render_reason

    note = found.note
    if not found.content:
        shell = found.visible_chars < SHELL_VISIBLE_CHARS and "<script" in text.lower()
        note = JS_SHELL_NOTE if shell else EMPTY_NOTE
    reason = render_reason(text, found.content, found.visible_chars, found.method)
    return Extracted(found.content, found.method, found.title, found.byline, found.date, note, reason)


def _json(body: bytes, content_type: str) -> Extracted:
    text, _ = decode_body(body, content_type)
    try:
        value = json.loads(text)
        if is_notebook(value):
            markdown, title = notebook_markdown(value)
            return Extracted(markdown, "notebook", title, note=None if markdown else EMPTY_NOTE)
        return Extracted(json.dumps(value, indent=2, ensure_ascii=False), "json")
    except json.JSONDecodeError:
        return Extracted(text, "text", note="The body is labelled JSON but is not valid JSON; shown as sent.")
    except RecursionError:  # deeper than Python's parser follows: the text is still the page
        return Extracted(text, "text", note="The JSON is nested too deeply to lay out; shown as sent.")


def _path(url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0].lower()


def _is_pdf(body: bytes) -> bool:
    """A PDF by its magic bytes (which may follow up to 1 KB of junk, as readers allow)."""
    return body[:1024].lstrip().startswith(b"%PDF-")


def _route(body: bytes, content_type: str, url: str, raw: bool) -> tuple[str, str]:
    """(the reader that takes a body: image, document, pdf, html, json, text or none; the format
    it reads it as). Unambiguous magic bytes win over the content type: a PDF, an image or an
    Office file served as text/html, text/csv or another document's type is read as what it is."""
    kind = media_type(content_type)
    if _is_pdf(body):
        return "pdf", "application/pdf"
    image = None if raw else image_kind(body, kind)
    if image is not None:
        return "image", image
    if kind in ("", "application/octet-stream", "binary/octet-stream"):
        kind = _sniff(body)
    document = None if raw else document_kind(body, kind, url)
    if document is not None:
        return "document", document
    if kind in _HTML_TYPES:
        return "html", kind
    if not raw and is_feed(body, kind):
        return "feed", kind
    if kind == "application/pdf":
        return "pdf", kind
    if _is_json(kind) or (kind == "text/plain" and _path(url).endswith(".ipynb")):  # raw notebooks come as text
        return "json", kind
    return ("text" if _is_text(kind) else "none"), kind


def inflates(body: bytes, content_type: str, url: str = "") -> bool:
    """Whether reading the body can take far more memory or time than its size suggests (a
    document's zip container, a PDF, an image's pixels), so it is never read outside a worker."""
    return _route(body, content_type, url, raw=False)[0] in ("image", "document", "pdf")


def extract(
    body: bytes, content_type: str, url: str = "", *, raw: bool = False, time_limit: float | None = None
) -> Extracted:
    """Turn a body into text; `raw` keeps HTML source as it is. `time_limit`: the seconds the caller allows this
    read, which OCR (seconds a page) stops short of, leaving the pages it had no time for unread and named.
    Raises UnsupportedContentError."""
    budget = OcrBudget(time_limit)
    reader, kind = _route(body, content_type, url, raw)
    if reader == "image":
        from weblens.fetch.images import image_to_text

        read = image_to_text(body, kind, media_type(content_type), budget)
        return Extracted(read.text, "rapidocr", note=read.note)
    if reader == "document":
        from weblens.fetch.office import document_to_markdown

        text, title = document_to_markdown(body, kind, content_type)
        return Extracted(text, READER_NAMES[kind], title, note=None if text.strip() else EMPTY_NOTE)
    if reader == "html":
        return _html(body, content_type, url, raw)
    if reader == "pdf":
        from weblens.fetch.pdf import pdf_to_text

        pdf = pdf_to_text(body, budget)
        return Extracted(pdf.text, "pypdf+rapidocr" if pdf.ocr else "pypdf", pdf.title, note=pdf.note)
    if reader == "json":
        return _json(body, content_type)
    if reader == "feed":
        from weblens.fetch.feeds import feed_markdown

        feed = feed_markdown(body, content_type, url)
        if feed is not None:
            return Extracted(feed[0], "feedparser", feed[1], note=None if feed[0].strip() else EMPTY_NOTE)
    if reader in ("text", "feed"):  # a feed feedparser finds none in is shown as sent
        text, _ = decode_body(body, content_type)
        return Extracted(text, "text", note=None if text.strip() else EMPTY_NOTE)
    raise UnsupportedContentError(
        f"cannot turn {kind} content into text (weblens reads HTML, text, JSON, RSS and Atom feeds, PDF, CSV, "
        ".docx, .xlsx, .pptx, .odt, .ods, .odp, .epub, .rtf, and PNG, JPEG, WebP, GIF, TIFF and BMP images by OCR)",
        details={"type": kind},
    )
