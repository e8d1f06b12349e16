"""Hostile documents for hardening tests and `bench/document_attacks.py`: what an attacker, or a
careless site, puts behind a link an agent is handed.

    for name, (body, content_type) in hostile_documents().items():
        server.route("GET", f"/{name}", Reply(body=body, content_type=content_type))

Zip containers that should reach their reader are padded (`rezip(..., pad=True)`) with a
stored member of random bytes, so they stay under the zip-bomb ratio, as an attacker's would.
Needs the `documents` extra (openpyxl writes the base workbook).
"""

from __future__ import annotations

import io
import random
import zipfile
import zlib
from pathlib import Path

from weblens.fetch.office import MAX_UNZIPPED_BYTES, MAX_ZIP_RATIO
from weblens.testing.documents import CONTENT_TYPES, DOCUMENT_FORMATS, blank_png, make_document, zip_bomb
from weblens.testing.pages import make_pdf, pdf_file

__all__ = [
    "WORD_NS",
    "broken_files",
    "entity_documents",
    "hostile_documents",
    "nested_docx",
    "pdf_page_tree",
    "pdf_with_image",
    "rezip",
    "sheet_xml",
]

WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def rezip(body: bytes, replace: dict[str, str] | None = None, *, pad: bool = False) -> bytes:
    """The zip `body` with members replaced (or added); `pad` adds a stored member of random bytes,
    so the whole inflates to under `MAX_ZIP_RATIO` times its size."""
    replace = dict(replace or {})
    source = zipfile.ZipFile(io.BytesIO(body))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            data: str | bytes = replace.pop(info.filename, None) or source.read(info.filename)
            stored = info.filename == "mimetype"  # ODF and EPUB: stored, first
            archive.writestr(info.filename, data, compress_type=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED)
        for name, data in replace.items():
            archive.writestr(name, data)
        if pad:
            inflated = sum(info.file_size for info in archive.infolist())
            if inflated >= MAX_UNZIPPED_BYTES:
                raise ValueError(f"{inflated:,} bytes inflated: past MAX_UNZIPPED_BYTES, no padding lets it through")
            noise = random.Random(0).randbytes(inflated // (MAX_ZIP_RATIO - 10))
            archive.writestr("padding.bin", noise, compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def sheet_xml(rows: int, columns: int, *, dimension: bool = True) -> str:
    """A worksheet of `rows` x `columns` numbers, with the <dimension> Excel writes (or without)."""
    from openpyxl.utils import get_column_letter

    row = "<row>" + "<c><v>7</v></c>" * columns + "</row>"
    declared = f'<dimension ref="A1:{get_column_letter(columns)}{rows}"/>' if dimension else ""
    return (
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"{declared}<sheetData>{row * rows}</sheetData></worksheet>"
    )


def _stream(data: bytes, entries: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n%s\nendstream" % (len(data), entries, data)


def pdf_with_image(side: int) -> bytes:
    """A one-page scan (no text layer) whose image is `side` x `side` grey pixels of Flate-packed
    zeros: 10 000 is 100 MB inflated from 100 KB."""
    packer = zlib.compressobj(9)
    pixels = b"".join(packer.compress(bytes(side * 100)) for _ in range(side // 100)) + packer.flush()
    image = _stream(
        pixels,
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 "
        b"/Filter /FlateDecode " % (side, side),
    )
    return pdf_file([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        image,
        _stream(b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
    ])  # fmt: skip


def pdf_page_tree(pages: int) -> bytes:
    """A PDF of `pages` blank pages (no text layer, no images)."""
    kids = " ".join(f"{3 + number} 0 R" for number in range(pages)).encode()
    tree = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages)]
    return pdf_file(tree + [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages)


def nested_docx(depth: int) -> bytes:
    """A .docx whose body nests content controls `depth` deep."""
    docx, _ = make_document("docx")
    nested = "<w:sdt><w:sdtContent>" * depth + "<w:p/>" + "</w:sdtContent></w:sdt>" * depth
    return rezip(docx, {"word/document.xml": f"<w:document {WORD_NS}><w:body>{nested}</w:body></w:document>"}, pad=True)


def entity_documents(secret: Path) -> dict[str, tuple[bytes, str]]:
    """Each container format with a part that declares an external entity (the file `secret`) and
    the billion-laughs entities, and uses both: name -> (body, format)."""
    laughs = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{(f"&lol{i - 1};" if i > 1 else "&lol;") * 10}">' for i in range(1, 10)
    )
    doctype = f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "{secret.as_uri()}">{laughs}]>'
    uses = "&xxe;&lol9;"
    made = {kind: make_document(kind)[0] for kind in ("docx", "xlsx", "pptx", "odt", "epub")}

    def part(kind: str, name: str) -> dict[str, str]:
        xml = zipfile.ZipFile(io.BytesIO(made[kind])).read(name).decode()
        xml = xml.split("?>", 1)[1] if xml.startswith("<?xml") else xml
        return {name: doctype + xml.replace("Albatross", uses)}

    paragraph = f"<w:p><w:r><w:t>{uses}</w:t></w:r></w:p>"
    word = {"word/document.xml": f"{doctype}<w:document {WORD_NS}><w:body>{paragraph}</w:body></w:document>"}
    return {
        "docx": (rezip(made["docx"], word), "docx"),
        "xlsx": (rezip(made["xlsx"], part("xlsx", "xl/worksheets/sheet1.xml")), "xlsx"),
        "pptx": (rezip(made["pptx"], part("pptx", "ppt/slides/slide1.xml")), "pptx"),
        "odt": (rezip(made["odt"], part("odt", "content.xml")), "odt"),
        "epub": (rezip(made["epub"], part("epub", "OEBPS/c1.xhtml")), "epub"),
        "epub package": (rezip(made["epub"], part("epub", "OEBPS/content.opf")), "epub"),
    }


def broken_files() -> dict[str, tuple[bytes, str]]:
    """An empty, a cut-off and a bit-flipped file of every format weblens reads."""
    whole = {kind: make_document(kind) for kind in DOCUMENT_FORMATS}
    whole["pdf"] = (make_pdf(["Harbour lights"]), "application/pdf")
    whole["png"] = (blank_png(200, 200), "image/png")
    files = {}
    for kind, (body, content_type) in whole.items():
        middle = len(body) // 2
        flipped = body[:middle] + bytes(b ^ 0x5A for b in body[middle : middle + 64]) + body[middle + 64 :]
        files[f"empty {kind}"] = (b"", content_type)
        files[f"cut-off {kind}"] = (body[:middle], content_type)
        files[f"bit-flipped {kind}"] = (flipped, content_type)
    return files


def hostile_documents() -> dict[str, tuple[bytes, str]]:
    """Name -> (body, content type): one of each attack `tests/fetch/test_document_attacks.py` and
    `bench/document_attacks.py` make, at a size that takes the unfixed readers seconds to minutes."""
    ct = CONTENT_TYPES
    xlsx, _ = make_document("xlsx")
    docx, _ = make_document("docx")
    odt, _ = make_document("odt")
    epub, _ = make_document("epub")
    paragraph = "<w:p><w:r><w:t>words</w:t></w:r></w:p>"
    word = f"<w:document {WORD_NS}><w:body>{paragraph * (40_000_000 // len(paragraph))}</w:body></w:document>"
    content = zipfile.ZipFile(io.BytesIO(odt)).read("content.xml").decode()
    chapter = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/c1.xhtml").decode()
    words = "lorem ipsum dolor " * 700_000
    deep = chapter.replace("<h1>", "<div>" * 100_000 + "</div>" * 100_000 + "<h1>")

    def sheet(rows: int, columns: int) -> bytes:
        return rezip(xlsx, {"xl/worksheets/sheet1.xml": sheet_xml(rows, columns)}, pad=True)

    pdf = make_pdf(["Harbour lights on page one"])
    return {
        "docx zip bomb (100 MB of zeros)": (zip_bomb("docx"), ct["docx"]),
        "docx 40 MB of XML, padded under the ratio": (rezip(docx, {"word/document.xml": word}, pad=True), ct["docx"]),
        "xlsx 1,000,000 rows": (
            rezip(xlsx, {"xl/worksheets/sheet1.xml": sheet_xml(1_000_000, 1)}, pad=True),
            ct["xlsx"],
        ),
        "xlsx 200 x 16,384 columns": (
            rezip(xlsx, {"xl/worksheets/sheet1.xml": sheet_xml(200, 16_384)}, pad=True),
            ct["xlsx"],
        ),
        "csv one line of 4,000,000 fields": (b"a," * 4_000_000, "text/csv"),
        "csv one 5 MB field": (b"x" * 5_000_000, "text/csv"),
        "csv 9 MB of rows": (b"id,name,city,amount\n" * 450_000, "text/csv"),
        "epub chapter of one 12 MB run of text": (
            rezip(epub, {"OEBPS/c1.xhtml": f"<html><body><h1>Huge</h1><p>{words}</p></body></html>"}, pad=True),
            ct["epub"],
        ),
        "epub chapter nested 100,000 deep": (rezip(epub, {"OEBPS/c1.xhtml": deep}, pad=True), ct["epub"]),
        "docx nested 100,000 deep": (nested_docx(100_000), ct["docx"]),
        "odt asking for 2e9 spaces": (
            rezip(odt, {"content.xml": content.replace("Albatross", 'A<text:s text:c="2000000000"/>B')}),
            ct["odt"],
        ),
        "rtf 200,000 nested groups": (b"{\\rtf1 " + b"{" * 200_000 + b"deep" + b"}" * 200_000 + b"}", ct["rtf"]),
        "png declaring 40,000 x 40,000": (blank_png(40_000, 40_000), "image/png"),
        "pdf scan of a 10k x 10k Flate image": (pdf_with_image(10_000), "application/pdf"),
        "pdf of 50,000 blank pages": (pdf_page_tree(50_000), "application/pdf"),
        "pdf served as text/csv": (pdf, "text/csv"),
        "docx served as text/csv": (docx, "text/csv"),
    }
