"""What documents as people write them read as: a Word file's photos, title and Title-styled first line, an EPUB
chapter's numbered lists that start past 1 and its tables' captions."""

from __future__ import annotations

import io
import random
import re
import zipfile

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.fetch.extract import extract
from weblens.fetch.office import html_markdown
from weblens.testing import Reply
from weblens.testing.documents import make_document
from weblens.testing.hostile_documents import WORD_NS, rezip
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(60)

_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PICTURE = (
    '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
    '<wp:docPr id="1" name="Picture 1" descr="The harbour at dawn"/>'
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
    '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
    '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:blipFill>'
    f'<a:blip xmlns:r="{_REL}" r:embed="rIdPhoto"/></pic:blipFill></pic:pic></a:graphicData></a:graphic>'
    "</wp:inline></w:drawing></w:r></w:p>"
)


def _para(text: str, style: str = "") -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}<w:r><w:t>{text}</w:t></w:r></w:p>"


def _word(body: str, members: dict[str, str | bytes] | None = None) -> bytes:
    docx, _ = make_document("docx")
    xml = f"<w:document {WORD_NS}><w:body>{body}</w:body></w:document>"
    return rezip(docx, {"word/document.xml": xml, **(members or {})})  # type: ignore[dict-item]


async def test_the_text_after_a_photo_in_a_word_file_is_read(pages: PageServer) -> None:
    rels = (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL}/styles" Target="styles.xml"/>'
        f'<Relationship Id="rIdPhoto" Type="{_REL}/image" Target="media/photo.png"/></Relationships>'
    )
    photo = random.Random(0).randbytes(1_200_000)  # a photo of 1.2 MB, as phones take them, shown on 8 pages
    pictured = "".join(_para(f"Pier {number}") + _PICTURE for number in range(1, 9))
    body = _word(
        _para("Before the photos") + pictured + _para("After the photos, the report goes on"),
        {"word/_rels/document.xml.rels": rels, "word/media/photo.png": photo},
    )
    content_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    pages.route("GET", "/report.docx", Reply(body=body, content_type=content_type))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1})
    page = await fetch(pages.url("/report.docx"), settings=settings, cache=Cache(None))
    # ended at `Pier 7`: each photo was inlined as 1.6 MB of base64, and past 10 MB of them the HTML parser stopped
    piers = "".join(f"Pier {number}\n\n" for number in range(1, 9))
    assert page.content == f"Before the photos\n\n{piers}After the photos, the report goes on"


def test_a_word_files_title_and_its_title_styled_line_are_read() -> None:
    styles = (
        f'<w:styles {WORD_NS}><w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>'
    )
    core = (
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbour  Survey 2024</dc:title></cp:coreProperties>'
    )
    body = _word(
        _para("Harbour Survey", "Titel") + _para("Scope", "Heading1") + _para("Every pier was counted."),
        {"word/styles.xml": styles, "docProps/core.xml": core},
    )
    read = extract(body, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    assert read.content == "# Harbour Survey\n\n# Scope\n\nEvery pier was counted."  # was `Harbour Survey`, a paragraph
    assert read.title == "Harbour Survey 2024"  # was "", though a workbook's and a deck's titles were read


def test_an_epub_chapters_numbered_list_and_table_caption_read_as_the_book_shows_them() -> None:
    epub, content_type = make_document("epub")
    chapter = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/c1.xhtml").decode()
    steps = (
        '<p>Then:</p><ol start="3"><li>Moor the boat</li><li>Log the catch</li></ol>'
        "<table><caption>Table 2: tonnage by pier</caption><tr><th>Pier</th><th>Tons</th></tr>"
        "<tr><td>North</td><td>40</td></tr></table></body>"
    )
    body = rezip(epub, {"OEBPS/c1.xhtml": chapter.replace("</body>", steps)})
    text = extract(body, content_type).content
    assert "Then:\n\n3. Moor the boat\n4. Log the catch" in text  # was `1. Moor the boat`
    assert "Table 2: tonnage by pier\n\n| Pier | Tons |\n|---|---|\n| North | 40 |" in text  # the caption was lost


def test_a_lists_numbers_are_those_its_start_values_and_direction_give() -> None:
    html = (
        '<ol start="4"><li>four<ol start="2"><li>two</li></ol></li><li>five</li></ol>'
        '<ol><li>one</li><li value="10">ten</li><li>eleven</li></ol>'
        '<ol reversed><li>three</li><li>two</li><li>one</li></ol><ol start="x"><li>first</li></ol>'
    )
    assert html_markdown(html) == (
        "4. four\n   2. two\n5. five\n\n1. one\n10. ten\n11. eleven\n\n3. three\n2. two\n1. one\n\n1. first"
    )


_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _workbook(formats: dict[str, str] | None = None) -> tuple[bytes, str]:
    """A workbook of two sheets, and its first sheet's XML; `formats` sets cells' number formats."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Catch"
    for row in (["Pier", "Share", "Time at sea", "Landed"], ["North", 0.125, 1.5, 45352], ["South", 0.5, 0.25, 45353]):
        sheet.append(row)
    for cell, number_format in (formats or {}).items():
        sheet[cell].number_format = number_format
    sheet["D2"].number_format = sheet["D3"].number_format = "yyyy-mm-dd"
    book.create_sheet("Crew").append(["Skipper", "Ada"])
    saved = io.BytesIO()
    book.save(saved)
    body = saved.getvalue()
    return body, zipfile.ZipFile(io.BytesIO(body)).read("xl/worksheets/sheet1.xml").decode()


def test_a_damaged_cell_of_a_workbook_costs_that_cell_not_the_workbook() -> None:
    body, sheet = _workbook()
    date_style = re.search(r'<c r="D2" s="(\d+)"', sheet).group(1)  # type: ignore[union-attr]
    damaged = {
        '<c r="A2" t="inlineStr"><is><t>North</t></is></c>': '<c r="A2" t="s"><v>999</v></c>',  # past the strings
        '<c r="B2" t="n"><v>0.125</v></c>': '<c r="B2" s="x" t="n"><v>0.125</v></c>',  # a style that is no index
        '<c r="C2" t="n"><v>1.5</v></c>': '<c r="C2" s="9999" t="n"><v>1.5</v></c>',  # a style past the styles
        f'<c r="D2" s="{date_style}" t="n"><v>45352</v></c>': f'<c r="D2" s="{date_style}"><v>soon</v></c>',
        '<row r="3">': '<row r="three">',
    }
    for good, bad in damaged.items():
        assert good in sheet
        sheet = sheet.replace(good, bad)
    read = extract(rezip(body, {"xl/worksheets/sheet1.xml": sheet}), _XLSX)
    # was `the .xlsx file could not be read: IndexError: list index out of range`, and no sheet was read
    assert read.content == (
        "## Sheet: Catch\n\n| Pier | Share | Time at sea | Landed |\n| --- | --- | --- | --- |\n"
        "|  |  | 1.5 |  |\n| South | 0.5 | 0.25 | 2024-03-02 |\n\n"
        "## Sheet: Crew\n\n| Skipper | Ada |\n| --- | --- |"
    )


def test_a_workbooks_percentages_and_durations_read_as_excel_shows_them() -> None:
    formats = {"B2": "0.0%", "B3": "0%", "C2": "[h]:mm:ss", "C3": "[h]:mm"}
    body, _ = _workbook(formats)
    # were `0.125`, `0.5`, `1 day, 12:00:00` and `6:00:00`
    assert extract(body, _XLSX).content.startswith(
        "## Sheet: Catch\n\n| Pier | Share | Time at sea | Landed |\n| --- | --- | --- | --- |\n"
        "| North | 12.5% | 36:00:00 | 2024-03-01 |\n| South | 50% | 6:00 | 2024-03-02 |\n\n"
    )


def test_a_word_files_simple_fields_read_as_the_text_word_shows() -> None:
    def field(instruction: str, shown: str) -> str:
        return f'<w:fldSimple w:instr="{instruction}"><w:r><w:t>{shown}</w:t></w:r></w:fldSimple>'

    run = '<w:r><w:t xml:space="preserve">{}</w:t></w:r>'
    dated = f'<w:fldSimple w:instr=" DATE "><w:hyperlink>{field("TIME", "1 March 2024")}</w:hyperlink></w:fldSimple>'
    body = _word(
        "<w:p>"
        + run.format("Page ")
        + field(" PAGE ", "3")
        + run.format(" of ")
        + field("NUMPAGES", "12")
        + run.format(", printed ")
        + dated
        + "</w:p>"
        + _para("Every pier was counted.")
    )
    read = extract(body, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    # was `Page of , printed`: mammoth leaves out a simple field, and the text Word shows for it
    assert read.content == "Page 3 of 12, printed 1 March 2024\n\nEvery pier was counted."


def test_an_rtf_files_title_is_the_one_its_info_group_gives() -> None:
    rtf = (
        rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}}{\info{\author Ada}{\title Harbour  Caf\'e9 Survey}"
        rb"{\subject Piers}}\f0 Every pier was counted.\par}"
    )
    read = extract(rtf, "application/rtf")
    assert read.title == "Harbour Café Survey"  # was "": striprtf leaves the info group out
    assert read.content == "Every pier was counted."
