"""Office documents, OpenDocument text, EPUB, RTF and CSV to markdown, with headings and tables.

Each format goes through its own well-kept reader (the `documents` extra: mammoth, openpyxl,
python-pptx, odfpy, ebooklib, striprtf), imported on first use; CSV needs only the standard
library. Like a PDF's `## Page N`, a document is cut into sections a reader can page through:
`## Slide N`, `## Sheet: name`, an EPUB's chapters, a Word file's own headings. A zip container
(OOXML, ODF, EPUB) is checked before anything is inflated: its directory's uncompressed sizes
must stay under a bound and a ratio of the download (a zip bomb is refused as `too_large`).
Runs in a worker process, under the extraction deadline and the worker's memory limit.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Callable, Iterable

from weblens.errors import TooLargeError, UnsupportedContentError
from weblens.fetch.tables import table_row

__all__ = [
    "DOCUMENT_KINDS",
    "MAX_CSV_ROWS",
    "MAX_SHEET_ROWS",
    "MAX_UNZIPPED_BYTES",
    "MAX_ZIP_RATIO",
    "READER_NAMES",
    "check_zip",
    "document_kind",
    "document_to_markdown",
]

MAX_UNZIPPED_BYTES = 256 * 1024 * 1024
"""What a container's members may add up to, uncompressed."""
MAX_ZIP_RATIO = 200
"""How many times its download a container may inflate to (Office XML compresses 5-30x; bombs 1000x+)."""
MAX_ZIP_MEMBERS = 20_000
MAX_CSV_ROWS = 2_000
MAX_SHEET_ROWS = 2_000
"""Rows of a CSV file, or of one spreadsheet sheet, shown as a table; the rest is counted, not shown."""
MAX_COLUMNS = 50
MAX_CELL_CHARS = 200
_INSTALL = "pip install 'weblens[documents]'"

DOCUMENT_KINDS: dict[str, str] = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/epub+zip": "epub",
    "application/rtf": "rtf",
    "text/rtf": "rtf",
    "text/csv": "csv",
    "application/csv": "csv",
}
"""Media type -> the format weblens reads it as."""
_SUFFIXES = {f".{kind}": kind for kind in ("docx", "xlsx", "pptx", "odt", "epub", "rtf", "csv")}
_ZIP_MARKERS = {
    "word/document.xml": "docx",
    "xl/workbook.xml": "xlsx",
    "ppt/presentation.xml": "pptx",
}
_ZIP_MIMETYPES = {b"application/vnd.oasis.opendocument.text": "odt", b"application/epub+zip": "epub"}


def _zip_kind(body: bytes) -> str | None:
    """The format of a zip container, from its members (and an ODF/EPUB `mimetype` member)."""
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            names = set(archive.namelist())
            for marker, kind in _ZIP_MARKERS.items():
                if marker in names:
                    return kind
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 100:
                return _ZIP_MIMETYPES.get(archive.read("mimetype").strip())
    except (zipfile.BadZipFile, OSError, ValueError, KeyError):
        return None
    return None


def document_kind(body: bytes, media_type: str, url: str = "") -> str | None:
    """The document format of a body — by its media type, its magic bytes, or (for a generic
    type) its URL's suffix — or None when it is no document weblens reads here."""
    kind = DOCUMENT_KINDS.get(media_type)
    if body.startswith(b"PK\x03\x04"):  # the file's own bytes first: a .docx served as text/csv is a .docx
        return _zip_kind(body) or kind
    if body[:64].lstrip()[:5] == b"{\\rtf":
        return "rtf"
    if kind is None and media_type in ("", "application/octet-stream", "binary/octet-stream", "text/plain"):
        path = url.split("?", 1)[0].split("#", 1)[0].lower()
        suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
        if _SUFFIXES.get(suffix) in ("csv", "rtf"):
            return _SUFFIXES[suffix]
    return kind


def check_zip(body: bytes) -> None:
    """Refuse a zip container that would inflate past `MAX_UNZIPPED_BYTES`, or `MAX_ZIP_RATIO`
    times its size, by its directory's sizes, before a byte is inflated. (Python's zipfile stops
    each member at its declared size, so a directory that lies cannot inflate past it either.)"""
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UnsupportedContentError(f"the document's zip container is damaged: {exc}") from None
    if len(members) > MAX_ZIP_MEMBERS:
        raise TooLargeError(f"the document holds {len(members):,} files (at most {MAX_ZIP_MEMBERS:,} are read)")
    total = sum(member.file_size for member in members)
    bound = min(MAX_UNZIPPED_BYTES, MAX_ZIP_RATIO * max(len(body), 1))
    if total > bound:
        raise TooLargeError(
            f"the document would inflate from {len(body):,} to {total:,} bytes (at most {bound:,}: "
            f"{MAX_ZIP_RATIO}x its size, {MAX_UNZIPPED_BYTES >> 20} MB in all), so it was not opened: "
            "it looks like a zip bomb",
            details={"bytes": len(body), "uncompressed_bytes": total, "limit_bytes": bound},
        )


def _cell(value: object) -> str:
    text = "" if value is None else " ".join(str(value).split())
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    return text


def markdown_table(rows: Iterable[Iterable[object]], max_rows: int) -> tuple[str, int]:
    """(a markdown table of the first `max_rows` rows, the first as its header; rows left out)."""
    shown: list[list[str]] = []
    left_out = 0
    for row in rows:
        cells = [_cell(value) for value in list(row)[:MAX_COLUMNS]]
        if not any(cells):
            continue
        if len(shown) < max_rows:
            shown.append(cells)
        else:
            left_out += 1
    if not shown:
        return "", 0
    width = max(len(row) for row in shown)
    lines = [table_row(row + [""] * (width - len(row))) for row in shown]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines), left_out


def _left_out(count: int) -> str:
    return f"\n\n({count:,} more rows not shown)" if count else ""


def _csv(body: bytes, content_type: str) -> tuple[str, str]:
    from weblens.fetch.decode import decode_body

    text, _ = decode_body(body, content_type)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        table, left_out = markdown_table(csv.reader(io.StringIO(text), dialect), MAX_CSV_ROWS)
    except csv.Error:  # a field past the csv module's limit, a stray NUL: not a table, still text
        return text, ""
    return table + _left_out(left_out), ""


def _html_markdown(html: str) -> str:
    from weblens.fetch.html import parse_html
    from weblens.fetch.markdown import element_markdown

    tree = parse_html(html)
    if tree is None:
        return ""
    body = tree.find("body")
    return element_markdown(body if body is not None else tree).strip()


def _docx(body: bytes) -> tuple[str, str]:
    import mammoth

    result = mammoth.convert_to_html(io.BytesIO(body))
    return _html_markdown(result.value), ""


def _xlsx(body: bytes) -> tuple[str, str]:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(body), read_only=True, data_only=True)
    try:
        sections = []
        for sheet in book.worksheets:
            table, left_out = markdown_table(sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS), MAX_SHEET_ROWS)
            sections.append(f"## Sheet: {sheet.title}\n\n{table or '(empty sheet)'}{_left_out(left_out)}")
        title = book.properties.title or ""
    finally:
        book.close()
    return "\n\n".join(sections), str(title)


def _pptx(body: bytes) -> tuple[str, str]:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(body))
    sections = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        heading = f"## Slide {number}"
        if title_shape is not None and title_shape.text_frame.text.strip():
            heading += f": {' '.join(title_shape.text_frame.text.split())}"
        parts = [heading]
        for shape in slide.shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if shape.has_text_frame:
                lines = [" ".join(p.text.split()) for p in shape.text_frame.paragraphs]
                text = "\n".join(line for line in lines if line)
                if text:
                    parts.append(text)
            if getattr(shape, "has_table", False):
                rows = ([cell.text for cell in row.cells] for row in shape.table.rows)
                table, _ = markdown_table(rows, MAX_SHEET_ROWS)
                if table:
                    parts.append(table)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                parts.append(f"Notes: {notes}")
        sections.append("\n\n".join(parts))
    return "\n\n".join(sections), str(deck.core_properties.title or "")


def _odt(body: bytes) -> tuple[str, str]:
    from odf import teletype
    from odf.namespaces import TABLENS, TEXTNS
    from odf.opendocument import load

    document = load(io.BytesIO(body))
    out: list[str] = []

    def walk(node: object) -> None:
        for child in getattr(node, "childNodes", []):
            qname = getattr(child, "qname", None)
            if qname == (TEXTNS, "h"):
                level = int(child.getAttribute("outlinelevel") or 1)
                out.append("#" * min(max(level, 1), 6) + " " + " ".join(teletype.extractText(child).split()))
            elif qname == (TEXTNS, "p"):
                text = " ".join(teletype.extractText(child).split())
                if text:
                    out.append(text)
            elif qname == (TEXTNS, "list-item"):
                out.append("- " + " ".join(teletype.extractText(child).split()))
            elif qname == (TABLENS, "table"):
                rows = (
                    [teletype.extractText(cell) for cell in row.childNodes if cell.qname == (TABLENS, "table-cell")]
                    for row in child.getElementsByType(_odf_row())
                )
                table, _ = markdown_table(rows, MAX_SHEET_ROWS)
                if table:
                    out.append(table)
            else:
                walk(child)

    walk(document.text)
    title = ""
    from odf.dc import Title

    titles = document.meta.getElementsByType(Title)
    if titles:
        title = teletype.extractText(titles[0])
    return "\n\n".join(out), title


def _odf_row() -> type:
    from odf.table import TableRow

    return TableRow  # type: ignore[no-any-return]


def _epub(body: bytes) -> tuple[str, str]:
    import ebooklib
    from ebooklib import epub

    book = epub.read_epub(io.BytesIO(body), options={"ignore_ncx": True})
    chapters = []
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        text = _html_markdown(item.get_content().decode("utf-8", "replace"))
        if text:
            chapters.append(text)
    titles = book.get_metadata("DC", "title")
    return "\n\n".join(chapters), str(titles[0][0]) if titles else ""


def _rtf(body: bytes) -> tuple[str, str]:
    from striprtf.striprtf import rtf_to_text

    text = rtf_to_text(body.decode("latin-1"), errors="ignore")  # type: ignore[no-untyped-call]
    return "\n\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip()), ""


_READERS: dict[str, Callable[[bytes], tuple[str, str]]] = {
    "docx": _docx,
    "xlsx": _xlsx,
    "pptx": _pptx,
    "odt": _odt,
    "epub": _epub,
    "rtf": _rtf,
}
_CONTAINERS = frozenset({"docx", "xlsx", "pptx", "odt", "epub"})
READER_NAMES = {
    "docx": "mammoth",
    "xlsx": "openpyxl",
    "pptx": "python-pptx",
    "odt": "odfpy",
    "epub": "ebooklib",
    "rtf": "striprtf",
    "csv": "csv",
}
"""What each format's text is produced by (a result's `extractor`)."""


def document_to_markdown(body: bytes, kind: str, content_type: str = "") -> tuple[str, str]:
    """(markdown, title) of a document of format `kind` (see `document_kind`). A reader that is
    not installed, or a file it cannot read → UnsupportedContentError; a zip bomb → TooLargeError."""
    if kind == "csv":
        return _csv(body, content_type)
    if kind in _CONTAINERS:
        check_zip(body)
    try:
        return _READERS[kind](body)
    except ImportError:
        raise UnsupportedContentError(
            f"reading .{kind} files needs the documents extra: {_INSTALL}", details={"type": kind, "install": _INSTALL}
        ) from None
    except (TooLargeError, MemoryError):
        raise
    except Exception as exc:  # each reader raises its own errors for a damaged file
        raise UnsupportedContentError(
            f"the .{kind} file could not be read: {type(exc).__name__}: {str(exc)[:200]}", details={"type": kind}
        ) from None
