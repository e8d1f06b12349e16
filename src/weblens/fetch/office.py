"""Office documents, OpenDocument text, spreadsheets and slides, EPUB, RTF and CSV to markdown, with headings
and tables.

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
import datetime
import decimal
import io
import math
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, partial
from typing import Any, NamedTuple

from weblens.errors import TooLargeError, UnsupportedContentError
from weblens.fetch.decode import decode_body, utf16_codec
from weblens.fetch.tables import MAX_COLUMNS, table_row

__all__ = [
    "DOCUMENT_KINDS",
    "MAX_CHAPTER_CHARS",
    "MAX_CSV_ROWS",
    "MAX_SHEET_ROWS",
    "MAX_UNZIPPED_BYTES",
    "MAX_WORKBOOK_CELLS",
    "MAX_ZIP_RATIO",
    "READER_NAMES",
    "Table",
    "check_zip",
    "document_kind",
    "document_to_markdown",
    "html_markdown",
    "markdown_table",
]

MAX_UNZIPPED_BYTES = 256 * 1024 * 1024
"""What a container's members may add up to, uncompressed."""
MAX_ZIP_RATIO = 200
"""How many times its download a container may inflate to (Office XML compresses 5-30x; bombs 1000x+)."""
MAX_ZIP_MEMBERS = 20_000
MAX_CSV_ROWS = 2_000
MAX_SHEET_ROWS = 2_000
"""Rows of a CSV file, or of one spreadsheet sheet, shown as a table; the rows after are not read
(a CSV's are counted as lines), and the table says so."""
MAX_CHAPTER_CHARS = 2_000_000
"""Markup of one EPUB chapter read (a whole novel is about a million characters); past it the
chapter is cut, and says so (libxml2 would drop a run of text over 10 MB, and leave it empty)."""
MAX_WORKBOOK_CELLS = 250_000
"""Cells of a spreadsheet read, all sheets together (openpyxl parses some 150 000 a second, and
every cell of a row it reads): a sheet 16 384 columns wide stops after some rows, not at the deadline."""
MAX_CELL_CHARS = 200
_SHOWN_DIGITS = 15  # significant digits of a number shown: as Excel shows it; every 15-digit decimal survives a double
_MAX_LIST_DEPTH = 32  # lists nested deeper are read as one item each
_MAX_LIST_INDENT = 8  # nor indented past this many levels: each pads every line below it
_MAX_GROUP_DEPTH = 32  # shapes grouped deeper are read as they are (their text left out)
_INSTALL = "pip install 'weblens[documents]'"

DOCUMENT_KINDS: dict[str, str] = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
    "application/epub+zip": "epub",
    "application/rtf": "rtf",
    "text/rtf": "rtf",
    "text/csv": "csv",
    "application/csv": "csv",
    "application/x-csv": "csv",
    "text/x-csv": "csv",
    "text/comma-separated-values": "csv",
    "text/tab-separated-values": "csv",  # the delimiter is sniffed
}
"""Media type -> the format weblens reads it as."""
_SUFFIXES = {f".{kind}": kind for kind in ("docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "rtf", "csv")}
_SUFFIXES[".tsv"] = "csv"
_LINE_END = re.compile(r"\r\n?|\n")
_DELIMITERS = ",;\t|"
_SEP_HINT = re.compile(r'"?sep=([^\r\n"])"?(?:\r\n?|\n)', re.IGNORECASE)
"""Excel's first line naming the delimiter (`sep=;`), which Excel reads and does not show; it was the header."""
_SNIFF_CHARS = 8192  # of a CSV the delimiter is sniffed from: some rows, at any width a table shows
_TEXT_HEAD_BYTES = 1024  # of a body looked at to tell text from binary: a binary file shows a NUL long before
_IN_MEMORY = re.compile(r"'?<_io\.BytesIO object at 0x[0-9a-f]+>'?")
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a legacy Office file (.xls, .doc, or an encrypted .docx)
_LEGACY_KINDS = {"application/msword": "doc", "application/vnd.ms-excel": "xls", "application/vnd.ms-powerpoint": "ppt"}
"""The binary Office formats before 2007, by their media types (an OLE2 file under another type is an `ole2`)."""
_ZIP_MARKERS = {
    "word/document.xml": "docx",
    "xl/workbook.xml": "xlsx",
    "ppt/presentation.xml": "pptx",
}
_ZIP_MIMETYPES = {
    b"application/vnd.oasis.opendocument.text": "odt",
    b"application/vnd.oasis.opendocument.spreadsheet": "ods",
    b"application/vnd.oasis.opendocument.presentation": "odp",
    b"application/epub+zip": "epub",
}


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
    if body.startswith(_OLE2):  # read by no reader here, but said so: not "cannot turn application/msword into text"
        return kind if kind in _CONTAINERS else _LEGACY_KINDS.get(media_type, "ole2")
    if body.startswith(b"PK\x03\x04"):  # the file's own bytes first: a .docx served as text/csv is a .docx
        return _zip_kind(body) or kind
    if body[:64].lstrip()[:5] == b"{\\rtf":
        return "rtf"
    if media_type == "application/vnd.ms-excel" and _plain_text(body):
        return "csv"  # what IIS and Windows send for a .csv; a binary .xls, an HTML or XML "Excel export" is no CSV
    if kind is None and media_type in ("", "application/octet-stream", "binary/octet-stream", "text/plain"):
        path = url.split("?", 1)[0].split("#", 1)[0].lower()
        suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
        if _SUFFIXES.get(suffix) in ("csv", "rtf"):
            return _SUFFIXES[suffix]
    return kind


def _plain_text(body: bytes) -> bool:
    """Whether a body is text that is not markup: no NUL (read as UTF-16 when it is UTF-16 text, which Excel saves
    as "Unicode text"), no legacy Office container, no leading `<`."""
    head = body[:_TEXT_HEAD_BYTES]
    text = head.decode(utf16_codec(head) or "utf-8", errors="replace")
    return not body.startswith(_OLE2) and "\x00" not in text and not text.lstrip("\ufeff \t\r\n").startswith("<")


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
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        value = value.date()  # a spreadsheet's date, not `2024-03-01 00:00:00`
    elif isinstance(value, float):
        value = float(f"{value:.{_SHOWN_DIGITS}g}")  # `3.3` as Excel shows it, not the `3.3000000000000003` it stores
        if value.is_integer() and abs(value) < 1e15:
            value = int(value)  # `12`, not `12.0` (ODF and CSV numbers are floats)
    text = "" if value is None else " ".join(str(value).split())
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    return text


class Table(NamedTuple):
    """A markdown table of the first rows of a longer run, and what it leaves out."""

    text: str
    rows: int
    """Rows shown (the first is the header)."""
    more_rows: bool
    """Rows with text follow the last one shown; they were not read."""
    columns: int
    """Cells in the widest row read (only the first `MAX_COLUMNS` are shown)."""

    def cut(self, rows_left: str = "") -> str:
        """A line saying what the table leaves out ("" when nothing), `rows_left` saying how many rows."""
        said = []
        if self.more_rows:
            said.append(rows_left or f"only the first {self.rows:,} rows are shown")
        if self.columns > MAX_COLUMNS:
            said.append(f"only the first {MAX_COLUMNS} of {self.columns:,} columns are shown")
        return f"\n\n({'; '.join(said)})" if said else ""


def _filled(row: Sequence[object], start: int = 0) -> bool:
    return any(value is not None and value != "" for value in row[start:])


def markdown_table(rows: Iterable[Sequence[object]], max_rows: int) -> Table:
    """A markdown table of the first `max_rows` rows with text, the first as its header, each
    cut to `MAX_COLUMNS` cells; rows after them are not read (but the next one, to tell whether
    there are more), so a sheet of a million rows costs what its first rows do."""
    shown: list[list[str]] = []
    columns = 0
    more = False
    for row in rows:
        if len(shown) == max_rows:
            if _filled(row):
                more = True
                break
            continue
        cells = [_cell(value) for value in row[:MAX_COLUMNS]]
        if len(row) > MAX_COLUMNS and _filled(row, MAX_COLUMNS):
            columns = max(columns, len(row))
        while cells and not cells[-1]:  # a spreadsheet's empty trailing cells are no columns
            cells.pop()
        if cells:
            shown.append(cells)
    if not shown:
        return Table("", 0, False, 0)
    width = max(len(row) for row in shown)
    lines = [table_row(row + [""] * (width - len(row))) for row in shown]
    lines.insert(1, "|" + " --- |" * width)
    return Table("\n".join(lines), len(shown), more, max(columns, width))


def _lines(text: str, start: int = 0) -> Iterator[str]:
    """The lines of `text` from `start`, ends kept, one at a time (an `io.StringIO` would copy it four times over); a
    line ends at `\r\n`, `\n` or a lone `\r` (old Mac files), as in Python's universal newlines."""
    for end in _LINE_END.finditer(text, start):
        yield text[start : end.end()]
        start = end.end()
    if start < len(text):
        yield text[start:]


def _line_ends(text: str, start: int) -> int:
    """How many lines end in `text` from `start` on (counted in C: a million-line CSV takes milliseconds)."""
    return text.count("\n", start) + text.count("\r", start) - text.count("\r\n", start)


def _dialect(sample: str) -> dict[str, Any]:
    """The sniffed delimiter, and whether spaces follow it. Not the quote: it is `"` (RFC 4180), and the sniffer took
    a field that starts with an apostrophe (`'Til Tuesday`) for one quoted with `'`, and merged rows."""
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
    except csv.Error:
        return {}
    return {"delimiter": sniffed.delimiter, "skipinitialspace": sniffed.skipinitialspace}


def _csv(body: bytes, content_type: str) -> tuple[str, str]:
    text, _ = decode_body(body, content_type)
    hint = _SEP_HINT.match(text)
    dialect = {"delimiter": hint.group(1)} if hint else _dialect(text[:_SNIFF_CHARS])
    read = hint.end() if hint else 0
    lines = _lines(text, read)

    def counted() -> Iterator[str]:
        nonlocal read
        for line in lines:
            read += len(line)
            yield line

    try:
        table = markdown_table(csv.reader(counted(), **dialect), MAX_CSV_ROWS)
    except csv.Error:  # with every line end split on, only a field past the csv module's limit: still text
        limit = csv.field_size_limit()
        return f"(not shown as a table: a field is longer than the {limit:,} characters one may hold)\n\n{text}", ""
    rest = _line_ends(text, read) + (not text.endswith(("\n", "\r")) and read < len(text))
    return table.text + table.cut(f"{rest + 1:,} more lines not shown"), ""


def html_markdown(html: str) -> str:
    """An HTML document or fragment as markdown, as weblens reads a page's main content (read flattened when it
    nests deeper than the parser follows)."""
    from weblens.fetch.html import parse_html
    from weblens.fetch.markdown import element_markdown

    tree = parse_html(html)
    flattened = tree is not None and bool(tree.xpath(_PARSER_DEPTH))
    if flattened:  # libxml2 stops at its depth limit and drops the rest: read the markup flattened
        from weblens.fetch.markup import flatten_markup

        tree = parse_html(flatten_markup(html))
    if tree is None:
        return ""
    body = tree.find("body")
    if body is None:  # a fragment of one element (a feed entry's `<ul>`) is that element: its holder is read
        body = tree.makeelement("div")
        body.append(tree)
    text = element_markdown(body).strip()
    return f"({_FLATTENED})\n\n{text}" if flattened and text else text


_PARSER_DEPTH = "boolean(" + "/*" * 250 + ")"
"""An element as deep as the HTML parser goes (256 levels): it stopped there."""
_FLATTENED = "this part nests its markup deeper than the parser follows; it was read flattened, its layout lost"


def _docx(body: bytes) -> tuple[str, str]:
    import mammoth

    result = mammoth.convert_to_html(io.BytesIO(_docx_fields(body)), style_map=_DOCX_STYLES, convert_image=_no_image)
    return html_markdown(result.value), _docx_title(body)


_DOCX_STYLES = "p[style-name='Title'] => h1:fresh"
"""Word's Title style is the document's heading (mammoth's own map makes it a paragraph)."""
_DOCX_CORE = "docProps/core.xml"
_DOCX_MAIN = "word/document.xml"
_WORD = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_UNWRAPPED = "{urn:weblens}unwrapped"  # a field marked to have its tag stripped, its runs kept
_MAX_CORE_BYTES = 1 << 20  # a document's properties are a few hundred bytes


def _no_image(image: object) -> list[object]:
    """No element for a picture: it has no text, and mammoth's default inlined it as base64 — past 10 MB of
    photos the HTML parser stopped, and every paragraph after them was lost (and the base64 cost memory)."""
    return []


def _docx_title(body: bytes) -> str:
    """The title a Word file's properties give (`docProps/core.xml`'s `dc:title`), as Word shows in File > Info."""
    from lxml import etree  # type: ignore[import-untyped]

    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            if archive.getinfo(_DOCX_CORE).file_size > _MAX_CORE_BYTES:
                return ""
            core = archive.read(_DOCX_CORE)
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        title = etree.fromstring(core, parser).find("{http://purl.org/dc/elements/1.1/}title")
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, etree.XMLSyntaxError):
        return ""  # no properties, or damaged ones: the text is what matters
    return " ".join((title.text or "").split()) if title is not None else ""


def _docx_fields(body: bytes) -> bytes:
    """The Word file with each simple field (`w:fldSimple`: a page number, a date, a cross-reference) replaced by
    its result's runs, the text Word shows: mammoth skips the element, and lost it (`Page  of`). The file as it
    is when it has none, or its XML cannot be parsed (mammoth then says why). Its members are within the bounds
    `check_zip` checked; the copy is stored, not compressed again."""
    from lxml import etree

    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            xml = archive.read(_DOCX_MAIN)
            if b"fldSimple" not in xml:
                return body
            parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
            tree = etree.fromstring(xml, parser)
            for field in tree.iter(f"{{{_WORD}}}fldSimple"):
                field.tag = _UNWRAPPED  # the tree is not changed while it is walked
            etree.strip_tags(tree, _UNWRAPPED)
            copy = io.BytesIO()
            with zipfile.ZipFile(copy, "w", zipfile.ZIP_STORED) as out:
                for info in archive.infolist():
                    data = etree.tostring(tree, encoding="UTF-8") if info.filename == _DOCX_MAIN else archive.read(info)
                    out.writestr(info.filename, data)
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, etree.XMLSyntaxError):
        return body
    return copy.getvalue()


class _CellBudget:
    """Rows of a workbook's sheets until `MAX_WORKBOOK_CELLS` cells have been read, all sheets together."""

    def __init__(self) -> None:
        self.left = MAX_WORKBOOK_CELLS

    def rows(self, rows: Iterable[Sequence[object]]) -> Iterator[Sequence[object]]:
        for row in rows:
            if self.left <= 0:
                return
            self.left -= max(1, len(row))
            yield row


def _xlsx(body: bytes) -> tuple[str, str]:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(body), read_only=True, data_only=True)
    try:

        def rows(sheet: Any) -> tuple[Iterable[Sequence[object]], int | None]:
            return _xlsx_rows(book, sheet), sheet.max_row  # from the sheet's own <dimension>, when it has one

        text = _workbook([(sheet.title, partial(rows, sheet)) for sheet in book.worksheets])
        title = book.properties.title or ""
    finally:
        book.close()
    return text, str(title)


def _xlsx_rows(book: Any, sheet: Any) -> Iterator[list[object]]:
    """A read-only sheet's rows, each as wide as its cells, their values as Excel shows them (`_xlsx_value`).
    Read by `_lenient_parser`, not openpyxl's `iter_rows`: one damaged cell there failed the whole workbook."""
    with sheet._get_source() as source:
        parser = _lenient_parser()(
            source,
            sheet._shared_strings,
            data_only=True,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )
        formats: dict[object, str] = {}  # by style index: a sheet uses a few
        for _, cells in parser.parse():
            row: list[object] = [None] * max((cell["column"] for cell in cells), default=0)
            for cell in cells:
                value, style = cell["value"], cell["style_id"]
                if value is not None and cell["column"] >= 1:
                    if style not in formats:
                        formats[style] = _number_format(book, style)
                    row[cell["column"] - 1] = _xlsx_value(value, formats[style])
            yield row


_CELL_ERRORS = (ValueError, IndexError, TypeError, OverflowError)
"""What openpyxl raises for one damaged cell: a shared string past the list, a number or date that is none."""


@cache
def _lenient_parser() -> type[Any]:
    """openpyxl's sheet parser, reading a damaged cell (a shared-string index past the strings, a style, number,
    boolean or date that is none, a bad reference) as an empty one at its place, and a row whose number is none as
    the row after the last: the rest of the sheet, and the other sheets, are read."""
    from openpyxl.utils.exceptions import CellCoordinatesException
    from openpyxl.worksheet._reader import WorkSheetParser

    class Parser(WorkSheetParser):  # type: ignore[misc]  # openpyxl is untyped
        col_counter: int
        row_counter: int

        def parse_cell(self, element: Any) -> dict[str, Any]:
            counted = self.col_counter
            for keep in (("r",), ()):  # empty at its reference; if that is damaged too, after the cell before it
                try:
                    return super().parse_cell(element)  # type: ignore[no-any-return]
                except (*_CELL_ERRORS, CellCoordinatesException):
                    self.col_counter = counted
                    element = element.makeelement(element.tag, {k: v for k, v in element.attrib.items() if k in keep})
            return super().parse_cell(element)  # type: ignore[no-any-return]

        def parse_row(self, row: Any) -> tuple[int, list[dict[str, Any]]]:
            try:
                return super().parse_row(row)  # type: ignore[no-any-return]
            except _CELL_ERRORS:
                row.attrib.pop("r", None)
                return super().parse_row(row)  # type: ignore[no-any-return]

    return Parser


def _number_format(book: Any, style_id: object) -> str:
    """A cell's number format code, by its style's index; "General" for an index the workbook does not hold."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE

    try:
        number = book._cell_styles[style_id].numFmtId if isinstance(style_id, int) and style_id >= 0 else 0
        if number < BUILTIN_FORMATS_MAX_SIZE:
            return str(BUILTIN_FORMATS.get(number, "General"))
        return str(book._number_formats[number - BUILTIN_FORMATS_MAX_SIZE])
    except (IndexError, TypeError, AttributeError):
        return "General"


_PERCENT = re.compile(r"[#,0]*0(?:\.(0+))?%")
"""A percentage format (`0%`, `0.00%`, `#,##0.0%`), its decimals grouped."""


def _xlsx_value(value: object, number_format: str) -> object:
    """A cell's value as Excel shows it in the common formats that change what it reads as: a percentage
    (`0.125` in `0.0%` is `12.5%`) and a duration (`[h]:mm:ss`: `36:00:00`, not `1 day, 12:00:00`); any
    other value as it is."""
    if isinstance(value, datetime.timedelta):
        return _duration(value, "s" in number_format.split(";")[0].lower())
    percent = _PERCENT.fullmatch(number_format)
    if percent and isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        decimals = len(percent.group(1) or "")
        hundredths = decimal.Decimal(f"{value:.{_SHOWN_DIGITS}g}") * 100
        shown = hundredths.quantize(decimal.Decimal(1).scaleb(-decimals), decimal.ROUND_HALF_UP)  # 0.125 in 0%: 13%
        return f"{shown:{',' if ',' in number_format else ''}.{decimals}f}%"
    return value


def _duration(value: datetime.timedelta, seconds: bool = True) -> str:
    """A duration in hours past 24, as Excel's `[h]:mm:ss` shows it (`[h]:mm` without the seconds)."""
    step = 1 if seconds else 60
    total = round(value.total_seconds() / step)
    hours, rest = divmod(abs(total) * step, 3600)
    minutes, secs = divmod(rest, 60)
    sign = "-" if total < 0 else ""
    return f"{sign}{hours}:{minutes:02}" + (f":{secs:02}" if seconds else "")


def _workbook(sheets: Sequence[tuple[str, Callable[[], tuple[Iterable[Sequence[object]], int | None]]]]) -> str:
    """`## Sheet: name` and a markdown table per sheet, all under one `MAX_WORKBOOK_CELLS` budget. Each sheet
    is (its name, a function giving its rows and the row count it declares, if any), called only when read."""
    sections = []
    budget = _CellBudget()
    spent = f"at most {MAX_WORKBOOK_CELLS:,} cells of a workbook are read"
    for number, (name, read) in enumerate(sheets):
        if budget.left <= 0:
            sections.append(f"({len(sheets) - number:,} more sheets not read: {spent})")
            break
        rows, declared = read()
        table = markdown_table(budget.rows(rows), MAX_SHEET_ROWS)
        if budget.left <= 0:
            said = f"reading stopped after {table.rows:,} rows: {spent}"
            table = table._replace(more_rows=True)
        else:
            of = f" of {declared:,}" if (declared or 0) > table.rows else ""  # a declared count may lie
            said = f"only the first {table.rows:,}{of} rows are shown"
        sections.append(f"## Sheet: {name}\n\n{table.text or '(empty sheet)'}{table.cut(said)}")
    return "\n\n".join(sections)


def _deck_shapes(shapes: Any, depth: int = 0) -> Iterator[Any]:
    """A slide's shapes in order, those inside a group too (grouped text boxes were left out)."""
    for shape in shapes:
        inner = getattr(shape, "shapes", None) if depth < _MAX_GROUP_DEPTH else None
        if inner is not None:
            yield from _deck_shapes(inner, depth + 1)
        else:
            yield shape


def _pptx(body: bytes) -> tuple[str, str]:
    from pptx.package import Package

    # the package's presentation, without `pptx.Presentation`'s check of its type, which refuses a slide show
    # (.ppsx) and a template (.potx) whose slides read alike
    deck = Package.open(io.BytesIO(body)).main_document_part.presentation
    sections = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        heading = f"## Slide {number}"
        if title_shape is not None and title_shape.text_frame.text.strip():
            heading += f": {' '.join(title_shape.text_frame.text.split())}"
        parts = [heading]
        for shape in _deck_shapes(slide.shapes):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if shape.has_text_frame:
                lines = [" ".join(p.text.split()) for p in shape.text_frame.paragraphs]
                text = "\n".join(line for line in lines if line)
                if text:
                    parts.append(text)
            if getattr(shape, "has_table", False):
                rows = ([cell.text for cell in row.cells] for row in shape.table.rows)
                table = markdown_table(rows, MAX_SHEET_ROWS)
                if table.text:
                    parts.append(table.text + table.cut())
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                parts.append(f"Notes: {notes}")
        sections.append("\n\n".join(parts))
    return "\n\n".join(sections), str(deck.core_properties.title or "")


def _odt(body: bytes) -> tuple[str, str]:
    from odf.opendocument import load

    document = load(io.BytesIO(body))
    out: list[str] = []
    _odf_blocks(document.text, out)
    return "\n\n".join(out), _odf_title(document)


def _odp(body: bytes) -> tuple[str, str]:
    """An OpenDocument presentation: `## Slide N` per page (named when its name is not the default
    `pageN`), then its text boxes, lists, tables and speaker notes in document order."""
    from odf.draw import Page
    from odf.namespaces import DRAWNS
    from odf.opendocument import load

    document = load(io.BytesIO(body))
    sections = []
    for number, page in enumerate(document.presentation.getElementsByType(Page), start=1):
        name = " ".join(str(page.getAttrNS(DRAWNS, "name") or "").split())
        heading = f"## Slide {number}" + (f": {name}" if name and name.lower() != f"page{number}" else "")
        out = [heading]
        _odf_blocks(page, out)
        sections.append("\n\n".join(out))
    return "\n\n".join(sections), _odf_title(document)


def _ods(body: bytes) -> tuple[str, str]:
    """An OpenDocument spreadsheet: `## Sheet: name` per sheet, each a markdown table, bounded like a
    workbook (`MAX_SHEET_ROWS`, `MAX_WORKBOOK_CELLS`). Repeated rows and cells (a sheet's trailing
    million empty rows, one element) are never spelled out."""
    from odf.namespaces import TABLENS
    from odf.opendocument import load

    document = load(io.BytesIO(body))
    sheets = [node for node in document.spreadsheet.childNodes if getattr(node, "qname", None) == (TABLENS, "table")]
    named = [(" ".join(str(sheet.getAttrNS(TABLENS, "name") or "").split()), sheet) for sheet in sheets]
    text = _workbook([(name, partial(_ods_sheet, sheet)) for name, sheet in named])
    return text, _odf_title(document)


_ODS_MAX_CELLS_A_ROW = 16_384
"""Cells read of one row: the widest sheet LibreOffice or Excel makes (a repeated cell is one string, referenced)."""


def _ods_sheet(sheet: Any) -> tuple[Iterator[list[str]], None]:
    return _ods_rows(sheet), None  # an ODS sheet declares no row count


def _ods_rows(sheet: Any) -> Iterator[list[str]]:
    """The rows of an ODS sheet with their text, repeats expanded only as far as they can show: an empty
    row is skipped however often it repeats, a row with text repeats at most `MAX_SHEET_ROWS` + 1 times."""
    from odf.namespaces import TABLENS

    for row in _odf_rows(sheet):
        cells: list[str] = []
        for cell in row.childNodes:
            if getattr(cell, "qname", None) not in _ODF_CELLS:
                continue
            repeat = _repeats(cell.getAttrNS(TABLENS, "number-columns-repeated"))
            cells.extend([_odf_cell(cell)] * min(repeat, _ODS_MAX_CELLS_A_ROW - len(cells)))
            if len(cells) >= _ODS_MAX_CELLS_A_ROW:
                break
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            for _ in range(min(_repeats(row.getAttrNS(TABLENS, "number-rows-repeated")), MAX_SHEET_ROWS + 1)):
                yield cells


def _repeats(value: object) -> int:
    try:
        return max(1, int(str(value or 1)))
    except ValueError:
        return 1


def _odf_blocks(node: object, out: list[str]) -> None:
    """The headings, paragraphs, list items and tables under an ODF element, as markdown blocks, in order; after
    each, the blocks it holds that are no part of its line (its footnotes' text, its text boxes' paragraphs)."""
    for child in getattr(node, "childNodes", []):
        qname = getattr(child, "qname", None)
        after: list[str] = []
        if qname in _ODF_LEFT_OUT:
            continue
        if qname == (_TEXT_NS, "h"):
            level = int(child.getAttribute("outlinelevel") or 1)
            out.append("#" * min(max(level, 1), 6) + " " + " ".join(_odf_text(child, after).split()))
        elif qname == (_TEXT_NS, "p"):
            text = " ".join(_odf_text(child, after).split())
            if text:
                out.append(text)
        elif qname == (_TEXT_NS, "list"):
            lines: list[str] = []
            _odf_list(child, lines, "", after)
            if lines:
                out.append("\n".join(lines))
        elif qname == (_TABLE_NS, "table"):
            rows = (  # a merged cell's covered places stay empty cells: the cells after it keep their columns
                [_odf_cell(cell, after) for cell in row.childNodes if cell.qname in _ODF_CELLS]
                for row in _odf_rows(child)
            )
            table = markdown_table(rows, MAX_SHEET_ROWS)
            if table.text:
                out.append(table.text + table.cut())
        else:
            _odf_blocks(child, out)
        out.extend(after)


def _odf_rows(table: Any) -> Iterator[Any]:
    """A table's own rows, those in its header and row groups too; not the rows of tables in its cells (their text
    is in the cell: listed again, each was an extra row of the outer table)."""
    for child in table.childNodes:
        qname = getattr(child, "qname", None)
        if qname == (_TABLE_NS, "table-row"):
            yield child
        elif qname in _ODF_ROW_GROUPS:
            yield from _odf_rows(child)


def _odf_list(node: Any, lines: list[str], pad: str, after: list[str], depth: int = 0) -> None:
    """A list's items as markdown lines in order, each item's own lists indented under it (their text was glued
    to the item's: `GullsHerring gull`) and its paragraphs after them below it."""
    for item in node.childNodes:
        if getattr(item, "qname", None) not in ((_TEXT_NS, "list-item"), (_TEXT_NS, "list-header")):
            continue
        marked = False
        for part in item.childNodes:
            if getattr(part, "qname", None) == (_TEXT_NS, "list") and depth < _MAX_LIST_DEPTH:
                _odf_list(part, lines, pad + "  " if depth < _MAX_LIST_INDENT else pad, after, depth + 1)
                continue
            text = _odf_paragraphs(part, after)
            if text:
                lines.append(f"{pad}  {text}" if marked else f"{pad}- {text}")
                marked = True


def _odf_cell(cell: Any, after: list[str] | None = None) -> str:
    """A table cell's paragraphs and list items on one line, apart (`PuffinFratercula` was two paragraphs)."""
    return _odf_paragraphs(cell, after)


def _odf_paragraphs(node: Any, after: list[str] | None = None) -> str:
    """The text of the paragraphs and headings under an ODF element, one space between them."""
    if getattr(node, "qname", None) in ((_TEXT_NS, "p"), (_TEXT_NS, "h")):
        return " ".join(_odf_text(node, after).split())
    if node.nodeType != node.ELEMENT_NODE:
        return " ".join(str(getattr(node, "data", "")).split())
    if node.qname in _ODF_LEFT_OUT:
        return ""
    return " ".join(text for part in node.childNodes if (text := _odf_paragraphs(part, after)))


def _odf_title(document: Any) -> str:
    from odf.dc import Title

    titles = document.meta.getElementsByType(Title)
    return _odf_text(titles[0]) if titles else ""


def _odf_text(node: Any, after: list[str] | None = None) -> str:
    """The text of an ODF element. Like odfpy's `teletype.extractText`, but a run of spaces
    (`<text:s text:c="N"/>`) is one space: its `c` is the file's to choose, and 2 000 000 000 of
    them took 2 GB from an 827-byte file (the text is whitespace-collapsed after anyway). Comments and deleted
    text are left out; a footnote is its mark (`[1]`), its text goes to `after` with its text boxes' paragraphs
    (blocks of their own after the paragraph; left out when `after` is None); a heading's number is apart."""
    parts = []
    for child in node.childNodes:
        if child.nodeType == child.TEXT_NODE:
            parts.append(child.data)
            continue
        name = getattr(child, "qname", None)
        if child.nodeType != child.ELEMENT_NODE or name in _ODF_LEFT_OUT:
            continue
        if name == (_TEXT_NS, "line-break"):
            parts.append("\n")
        elif name in _ODF_SPACES:
            parts.append(" ")
        elif name == (_TEXT_NS, "note"):
            parts.append(_odf_note(child, after))
        elif name == (_DRAW_NS, "frame"):
            if after is not None:
                _odf_blocks(child, after)
        else:
            parts.append(_odf_text(child, after) + (" " if name == (_TEXT_NS, "number") else ""))
    return "".join(parts)


def _odf_note(note: Any, after: list[str] | None) -> str:
    """A footnote's or endnote's mark (`[1]`, as it is cited); its text, `[1] ...`, goes to `after`."""
    parts = {getattr(part, "qname", None): part for part in note.childNodes}
    citation = parts.get((_TEXT_NS, "note-citation"))
    label = " ".join(_odf_text(citation).split()) if citation is not None else ""
    mark = f"[{label or '*'}]"  # a note without its citation still marks where it was
    body = parts.get((_TEXT_NS, "note-body"))
    if after is not None and body is not None:
        text = _odf_paragraphs(body, after)
        if text:
            after.append(f"{mark} {text}")
    return mark


_TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_DRAW_NS = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
_ODF_CELLS = frozenset({(_TABLE_NS, "table-cell"), (_TABLE_NS, "covered-table-cell")})
_ODF_ROW_GROUPS = frozenset({(_TABLE_NS, n) for n in ("table-header-rows", "table-rows", "table-row-group")})
_ODF_SPACES = frozenset({(_TEXT_NS, "s"), (_TEXT_NS, "tab")})
_ODF_LEFT_OUT = frozenset({(_OFFICE_NS, "annotation"), (_TEXT_NS, "tracked-changes")})
"""No part of the text: comments (with their author and date) and tracked changes (the text a change deleted)."""


def _epub(body: bytes) -> tuple[str, str]:
    import ebooklib

    reader = _epub_reader()(io.BytesIO(body), {"ignore_ncx": True})
    book = reader.load()
    chapters = []
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        if posixpath.normpath(posixpath.join(reader.opf_dir, item.get_name())) in reader.missing:
            chapters.append(f"(a chapter is missing from the file: {item.get_name()})")
            continue
        # get_content() re-parses it, and loses a long text; EPUB 2 allows any charset its XML declaration names
        markup, _ = decode_body(item.content, "application/xhtml+xml", html=True)
        text = html_markdown(markup[:MAX_CHAPTER_CHARS])
        if len(markup) > MAX_CHAPTER_CHARS:
            read = f"only the first {MAX_CHAPTER_CHARS:,} of its {len(markup):,} characters are read"
            text += f"\n\n(the chapter is cut here: {read})"
        if text:
            chapters.append(text)
    titles = book.get_metadata("DC", "title")
    return "\n\n".join(chapters), " ".join(str(titles[0][0] or "").split()) if titles else ""  # `<dc:title/>`: None


@cache
def _epub_reader() -> type[Any]:
    """ebooklib's reader, lenient where weblens needs nothing of what it refused a whole book over: a member the
    manifest lists and the zip lacks (a font, a cover, a chapter) reads as empty and is named in `missing`, and
    the table of contents is not parsed (the spine gives the reading order; a missing one refused the book)."""
    from ebooklib import epub

    class Reader(epub.EpubReader):  # type: ignore[misc]  # ebooklib is untyped
        def __init__(self, file: Any, options: dict[str, Any]) -> None:
            super().__init__(file, options)
            self.missing: set[str] = set()

        def read_file(self, name: str) -> bytes:
            try:
                return super().read_file(name)  # type: ignore[no-any-return]
            except KeyError:
                if name in (_EPUB_CONTAINER, self.opf_file):  # the book's own description: nothing to read without
                    raise
                self.missing.add(posixpath.normpath(name))
                return b""

        def _parse_nav(self, *args: Any, **kwargs: Any) -> None:
            pass

        def _parse_ncx(self, *args: Any, **kwargs: Any) -> None:
            pass

    return Reader


_EPUB_CONTAINER = "META-INF/container.xml"


def _rtf(body: bytes) -> tuple[str, str]:
    from striprtf.striprtf import rtf_to_text

    rtf = body.decode("latin-1")
    text = rtf_to_text(rtf, errors="ignore")  # type: ignore[no-untyped-call]
    return "\n\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip()), _rtf_title(rtf)


_RTF_HEAD_CHARS = 1 << 20
"""Of an RTF file searched for its `{\\info}` group, which follows the font, colour, style and list tables."""
_RTF_INFO_CHARS = 8192  # of the group searched for its title: the first of the properties Word writes
_RTF_INFO = re.compile(r"\{\\info(?![A-Za-z])")
_RTF_TITLE = re.compile(r"\{\\title(?![A-Za-z])\s?((?:\\.|[^\\{}]){0,1024})\}")
"""`{\\title ...}`: its text (with escapes, `\\'e9`, `\\u8364?`, and no groups), a thousand characters at most."""
_RTF_CODEPAGE = re.compile(r"\\ansicpg\d{1,5}")


def _rtf_title(rtf: str) -> str:
    """The title in an RTF file's `{\\info}` group (Word's File > Properties), its escapes read in the file's code
    page; striprtf leaves the group out, as no part of the text. Looked for near its start only: bounded."""
    from striprtf.striprtf import rtf_to_text

    info = _RTF_INFO.search(rtf, 0, _RTF_HEAD_CHARS)
    title = _RTF_TITLE.search(rtf, info.end(), info.end() + _RTF_INFO_CHARS) if info else None
    if info is None or title is None:
        return ""
    codepage = _RTF_CODEPAGE.search(rtf, 0, info.start())
    fragment = "{\\rtf1" + (codepage.group() if codepage else "") + " " + title.group(1) + "}"
    return " ".join(rtf_to_text(fragment, errors="ignore").split())  # type: ignore[no-untyped-call]


_READERS: dict[str, Callable[[bytes], tuple[str, str]]] = {
    "docx": _docx,
    "xlsx": _xlsx,
    "pptx": _pptx,
    "odt": _odt,
    "ods": _ods,
    "odp": _odp,
    "epub": _epub,
    "rtf": _rtf,
}
_CONTAINERS = frozenset({"docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"})
READER_NAMES = {
    "docx": "mammoth",
    "xlsx": "openpyxl",
    "pptx": "python-pptx",
    "odt": "odfpy",
    "ods": "odfpy",
    "odp": "odfpy",
    "epub": "ebooklib",
    "rtf": "striprtf",
    "csv": "csv",
}
"""What each format's text is produced by (a result's `extractor`)."""


def document_to_markdown(body: bytes, kind: str, content_type: str = "") -> tuple[str, str]:
    """(markdown, title) of a document of format `kind` (see `document_kind`). A reader that is
    not installed, or a file it cannot read → UnsupportedContentError; a zip bomb → TooLargeError."""
    if body.startswith(_OLE2):
        if kind in _LEGACY_KINDS.values():
            what = f"the .{kind} file is in the older binary Office format (before 2007)"
        else:  # an encrypted .docx is an OLE2 file too
            name = "file" if kind == "ole2" else f".{kind} file"
            what = f"the {name} is password-protected (encrypted) or in the older binary Office format "
            what += "(.doc, .xls, .ppt)"
        raise UnsupportedContentError(f"{what}, which weblens does not read", details={"type": kind})
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
    except RecursionError:  # a reader walking XML nested 100 000 deep
        raise UnsupportedContentError(
            f"the .{kind} file nests its XML too deeply to be read", details={"type": kind}
        ) from None
    except Exception as exc:  # each reader raises its own errors for a damaged file
        said = _IN_MEMORY.sub("the file", str(exc))[:200]  # readers name the buffer they were given
        raise UnsupportedContentError(
            f"the .{kind} file could not be read: {type(exc).__name__}: {said}", details={"type": kind}
        ) from None
