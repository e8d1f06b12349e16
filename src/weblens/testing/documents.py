"""Documents with known text for tests and `bench/documents.py`: one of every format weblens
reads besides HTML and PDF, zip bombs dressed as each container, scanned PDFs and images of
known lines (`scanned_pdf`, `text_image`), and a PNG decompression bomb (`blank_png`).

    body, content_type = make_document("docx")
    assert all(phrase in text for phrase in DOCUMENT_PHRASES)   # what a reader must find

.docx, the OpenDocument files and .epub are written here as the smallest valid containers (their XML by hand);
.xlsx and .pptx with openpyxl and python-pptx (the `documents` extra).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

__all__ = [
    "CONTENT_TYPES",
    "DOCUMENT_FORMATS",
    "DOCUMENT_PHRASES",
    "IMAGE_FORMATS",
    "SCANNED_LINES",
    "blank_png",
    "make_document",
    "odf_document",
    "scanned_pdf",
    "text_image",
    "zip_bomb",
]

HEADING = "Harbour Survey"
PARAGRAPH = "The harbour lights were counted at dusk by the keeper"
TABLE = (("Vessel", "Tonnage"), ("Albatross", "4200"), ("Cormorant", "1375"))
DOCUMENT_PHRASES = (HEADING, PARAGRAPH, "Albatross", "4200", "Cormorant", "1375")
"""Text every generated document holds: a heading, a paragraph, and a table's cells."""

CONTENT_TYPES = {
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odp": "application/vnd.oasis.opendocument.presentation",
    "epub": "application/epub+zip",
    "rtf": "application/rtf",
    "csv": "text/csv",
}
DOCUMENT_FORMATS = tuple(CONTENT_TYPES)


def _zip(members: dict[str, str | bytes], *, stored_first: str | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        if stored_first is not None:  # ODF and EPUB: an uncompressed `mimetype` first
            archive.writestr(stored_first, members.pop(stored_first), compress_type=zipfile.ZIP_STORED)
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _docx(paragraphs: int = 1) -> bytes:
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'

    def para(text: str, style: str | None = None) -> str:
        props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{props}<w:r><w:t>{text}</w:t></w:r></w:p>"

    rows = "".join("<w:tr>" + "".join(f"<w:tc>{para(cell)}</w:tc>" for cell in row) + "</w:tr>" for row in TABLE)
    body = para(HEADING, "Heading1") + para(PARAGRAPH) * paragraphs + f"<w:tbl>{rows}</w:tbl>"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    return _zip(
        {
            "[Content_Types].xml": (
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
                'officedocument.wordprocessingml.document.main+xml"/></Types>'
            ),
            "_rels/.rels": (
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="word/document.xml"/></Relationships>'
            ),
            "word/_rels/document.xml.rels": (
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{rel}/styles" Target="styles.xml"/></Relationships>'
            ),
            "word/styles.xml": (
                f'<w:styles {w}><w:style w:type="paragraph" w:styleId="Heading1">'
                '<w:name w:val="heading 1"/></w:style></w:styles>'
            ),
            "word/document.xml": f"<w:document {w}><w:body>{body}</w:body></w:document>",
        }
    )


def _xlsx(paragraphs: int = 1) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = HEADING
    for row in TABLE:
        sheet.append(list(row))
    for _ in range(paragraphs):
        sheet.append([PARAGRAPH])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _pptx(paragraphs: int = 1) -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = HEADING
    box = slide.shapes.add_textbox(Inches(1), Inches(1.5), Inches(8), Inches(1))
    box.text_frame.text = "\n".join([PARAGRAPH] * paragraphs)
    table = slide.shapes.add_table(len(TABLE), 2, Inches(1), Inches(3), Inches(6), Inches(2)).table
    for r, row in enumerate(TABLE):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


GROUPED_LINES = ("First grouped box", "Second grouped box")
"""The text of `grouped_slide_show`'s grouped text boxes."""


def grouped_slide_show() -> bytes:
    """A PowerPoint slide show (.ppsx: a deck whose main part is typed as a show) whose second slide holds
    two text boxes grouped together."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation(io.BytesIO(_pptx()))
    group = deck.slides.add_slide(deck.slide_layouts[6]).shapes.add_group_shape()
    for row, line in enumerate(GROUPED_LINES):
        group.shapes.add_textbox(Inches(1), Inches(1 + row), Inches(6), Inches(1)).text_frame.text = line
    saved = io.BytesIO()
    deck.save(saved)
    show = io.BytesIO()
    with zipfile.ZipFile(saved) as source, zipfile.ZipFile(show, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            data = source.read(member)
            if member.filename == "[Content_Types].xml":
                data = data.replace(b"presentationml.presentation.main+xml", b"presentationml.slideshow.main+xml")
            target.writestr(member, data)
    return show.getvalue()


_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"'
)


def _odf_rows(rows: tuple[tuple[str, ...], ...]) -> str:
    return "".join(
        "<table:table-row>"
        + "".join(f"<table:table-cell><text:p>{cell}</text:p></table:table-cell>" for cell in row)
        + "</table:table-row>"
        for row in rows
    )


def odf_document(kind: str, body: str) -> bytes:
    """An ODF container of `kind` whose content.xml's office:body holds `body`."""
    content = (
        f'<office:document-content {_ODF_NS} office:version="1.2">'
        f"<office:body>{body}</office:body></office:document-content>"
    )
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{CONTENT_TYPES[kind]}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    return _zip(
        {"mimetype": CONTENT_TYPES[kind], "content.xml": content, "META-INF/manifest.xml": manifest},
        stored_first="mimetype",
    )


def _odt(paragraphs: int = 1) -> bytes:
    return odf_document(
        "odt",
        f'<office:text><text:h text:outline-level="1">{HEADING}</text:h>'
        + f"<text:p>{PARAGRAPH}</text:p>" * paragraphs
        + '<table:table table:name="t"><table:table-column table:number-columns-repeated="2"/>'
        f"{_odf_rows(TABLE)}</table:table></office:text>",
    )


def _ods(paragraphs: int = 1) -> bytes:
    """A sheet as LibreOffice writes one: its rows, then the rest of its million rows and 1 024
    columns as one repeated empty row of one repeated empty cell."""
    rows = ((HEADING,), *((PARAGRAPH,),) * paragraphs, *TABLE)
    empty = (
        '<table:table-row table:number-rows-repeated="1048570">'
        '<table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
    )
    return odf_document(
        "ods",
        f'<office:spreadsheet><table:table table:name="{HEADING}">'
        '<table:table-column table:number-columns-repeated="1024"/>'
        f"{_odf_rows(rows)}{empty}</table:table></office:spreadsheet>",
    )


def _odp(paragraphs: int = 1) -> bytes:
    box = (
        "<draw:frame><draw:text-box><text:p>"
        + HEADING
        + "</text:p>"
        + f"<text:p>{PARAGRAPH}</text:p>" * paragraphs
        + "</draw:text-box></draw:frame>"
    )
    table = f'<draw:frame><table:table table:name="t">{_odf_rows(TABLE)}</table:table></draw:frame>'
    return odf_document(
        "odp",
        f'<office:presentation><draw:page draw:name="page1">{box}{table}</draw:page></office:presentation>',
    )


def _epub(paragraphs: int = 1) -> bytes:
    cells = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in TABLE)
    chapter = (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c1</title>'
        f"</head><body><h1>{HEADING}</h1>"
        + f"<p>{PARAGRAPH}</p>" * paragraphs
        + f"<table>{cells}</table></body></html>"
    )
    opf = (
        '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
        'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">weblens-test</dc:identifier><dc:title>{HEADING}</dc:title>'
        "<dc:language>en</dc:language>"
        '</metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
        '<spine><itemref idref="c1"/></spine></package>'
    )
    container = (
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
        '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    return _zip(
        {
            "mimetype": CONTENT_TYPES["epub"],
            "META-INF/container.xml": container,
            "OEBPS/content.opf": opf,
            "OEBPS/c1.xhtml": chapter,
        },
        stored_first="mimetype",
    )


def _rtf(paragraphs: int = 1) -> bytes:
    rows = "".join("\\trowd " + "".join(f"{cell}\\cell " for cell in row) + "\\row\n" for row in TABLE)
    text = f"{{\\rtf1\\ansi {{\\b {HEADING}}}\\par\n" + f"{PARAGRAPH}\\par\n" * paragraphs + rows + "}"
    return text.encode("latin-1")


def _csv(paragraphs: int = 1) -> bytes:
    lines = [f"{HEADING},{PARAGRAPH}"] + [",".join(row) for row in TABLE] + [f"note,{PARAGRAPH}"] * (paragraphs - 1)
    return ("\r\n".join(lines) + "\r\n").encode()


_MAKERS: dict[str, Callable[[int], bytes]] = {
    "docx": _docx,
    "xlsx": _xlsx,
    "pptx": _pptx,
    "odt": _odt,
    "ods": _ods,
    "odp": _odp,
    "epub": _epub,
    "rtf": _rtf,
    "csv": _csv,
}


def make_document(kind: str, paragraphs: int = 1) -> tuple[bytes, str]:
    """(a `kind` file holding `DOCUMENT_PHRASES`, its content type); `paragraphs` repeats the
    paragraph to make it longer."""
    return _MAKERS[kind](paragraphs), CONTENT_TYPES[kind]


def zip_bomb(kind: str, inflated_mb: int = 100) -> bytes:
    """A valid `kind` container (docx, xlsx, pptx, odt or epub) with one more member of
    `inflated_mb` MB of zeros: about 100 KB to download, 1000x that to inflate."""
    body, _ = make_document(kind)
    out = io.BytesIO(body)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as archive, archive.open("padding.xml", "w") as member:
        chunk = bytes(1 << 20)
        for _ in range(inflated_mb):
            member.write(chunk)
    return out.getvalue()


SCANNED_LINES = ("The harbour lights were counted", "Vessel Albatross 4200 tons")
"""The text a `scanned_pdf` page shows as an image."""


def _picture_of(lines: tuple[str, ...], size: int = 36) -> Any:
    """A white page with `lines` drawn on it in black, `size` pixels high, as a scanner would see
    them (Pillow, its bundled font)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=size)
    pitch = size * 2 + 8
    image = Image.new("L", (1240, 120 + pitch * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((60, 60 + pitch * row), line, fill=0, font=font)
    return image


def scanned_pdf(pages: int = 1, lines: tuple[str, ...] = SCANNED_LINES) -> bytes:
    """A PDF whose `pages` pages are images of `lines` (a scan: no text layer), made with Pillow
    (which the `ocr` extra brings)."""
    images = [_picture_of(lines) for _ in range(pages)]
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=150, save_all=True, append_images=images[1:])
    return out.getvalue()


TYPED_LINE = "Cover letter: the scanned invoice follows"
"""The text layer of `mixed_pdf`'s first page."""


def mixed_pdf(lines: tuple[str, ...] = SCANNED_LINES) -> bytes:
    """A PDF whose first page has a text layer (`TYPED_LINE`) and whose second is a scan of `lines`."""
    from pypdf import PdfReader, PdfWriter

    from weblens.testing.pages import make_pdf

    writer = PdfWriter()
    for body in (make_pdf([TYPED_LINE]), scanned_pdf(1, lines)):
        for page in PdfReader(io.BytesIO(body)).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


IMAGE_CONTENT_TYPES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
    "tiff": "image/tiff",
    "bmp": "image/bmp",
}
IMAGE_FORMATS = tuple(IMAGE_CONTENT_TYPES)


def text_image(
    kind: str, lines: tuple[str, ...] = SCANNED_LINES, *, pages: int = 1, size: int = 36
) -> tuple[bytes, str]:
    """(an image of `lines`, `size` pixels high, in format `kind`, its content type), made with
    Pillow; a TIFF of `pages` pages repeats them on each. PNG is drawn on a transparent background."""
    image = _picture_of(lines, size)
    if kind == "png":  # black text on transparency: a reader must not see black on black
        image = image.convert("LA")
        image.putalpha(image.getchannel("L").point(lambda value: 255 - value))
    if kind == "gif":
        image = image.convert("P")
    out = io.BytesIO()
    extra = {"save_all": True, "append_images": [image.copy() for _ in range(pages - 1)]} if pages > 1 else {}
    image.save(out, kind.upper(), **({"quality": 85} if kind in ("jpeg", "webp") else {}), **extra)
    return out.getvalue(), IMAGE_CONTENT_TYPES[kind]


def blank_png(width: int, height: int) -> bytes:
    """A valid white 8-bit grey PNG of any size, written with the standard library alone: large
    sizes compress about 1000:1 (12 000 x 12 000 pixels is a 140 KB file: a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * width  # filter byte "none", then the row
    rows_per_chunk = max(1, (1 << 20) // len(row))
    starts = range(0, height, rows_per_chunk)
    data = b"".join(packer.compress(row * min(rows_per_chunk, height - start)) for start in starts)
    data += packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
