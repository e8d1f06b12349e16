"""Every document a link can point to, fetched over real HTTP: .docx, .xlsx, .pptx, .odt, .ods, .odp,
.epub, .rtf and .csv come back as markdown with their headings, text and tables, by content
type or by magic bytes, paged like any page; zip bombs are refused before they inflate."""

from __future__ import annotations

import io
import sys
import zipfile

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import TooLargeError, UnsupportedContentError
from weblens.fetch import Fetcher, fetch
from weblens.fetch.extract import extract
from weblens.fetch.office import READER_NAMES, html_markdown
from weblens.testing import Reply
from weblens.testing.documents import (
    CONTENT_TYPES,
    DOCUMENT_FORMATS,
    DOCUMENT_PHRASES,
    GROUPED_LINES,
    HEADING,
    grouped_slide_show,
    make_document,
    odf_document,
    zip_bomb,
)
from weblens.testing.hostile_documents import WORD_NS, rezip
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(120)

_CONTAINERS = ("docx", "xlsx", "pptx", "odt", "ods", "odp", "epub")
# what servers send for a .csv besides text/csv (IIS and Windows: Excel's type)
_CSV_TYPES = ("application/vnd.ms-excel", "application/x-csv", "text/x-csv", "text/comma-separated-values")


@pytest.fixture(scope="module")
def served() -> PageServer:
    server = PageServer()
    server.__enter__()
    for kind in DOCUMENT_FORMATS:
        body, content_type = make_document(kind)
        server.route("GET", f"/file.{kind}", Reply(body=body, content_type=content_type))
        server.route("GET", f"/download/{kind}", Reply(body=body, content_type="application/octet-stream"))
    for kind in _CONTAINERS:
        server.route("GET", f"/bomb.{kind}", Reply(body=zip_bomb(kind), content_type="application/octet-stream"))
    long_body, long_type = make_document("docx", paragraphs=300)
    server.route("GET", "/long.docx", Reply(body=long_body, content_type=long_type))
    show = "application/vnd.openxmlformats-officedocument.presentationml.slideshow"
    server.route("GET", "/deck.ppsx", Reply(body=grouped_slide_show(), content_type=show))
    csv_body, _ = make_document("csv")
    for number, csv_type in enumerate(_CSV_TYPES):
        server.route("GET", f"/export{number}", Reply(body=csv_body, content_type=csv_type))
    locked = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096)  # how Word saves a password-protected .docx
    docx_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    server.route("GET", "/locked.docx", Reply(body=locked, content_type=docx_type))
    # Word writes an emoji in RTF as two escaped UTF-16 halves; JSON can hold half of one
    emoji_rtf = rb"{\rtf1\ansi\deff0 {\fonttbl {\f0 Arial;}}\f0 Smile \u-10179?\u-8704? done\par}"
    server.route("GET", "/emoji.rtf", Reply(body=emoji_rtf, content_type="application/rtf"))
    server.route("GET", "/half.json", Reply(body=b'{"name": "broken \\ud83d here"}', content_type="application/json"))
    yield server  # type: ignore[misc]
    server.__exit__(None, None, None)


@pytest.fixture(scope="module")
def fetcher_settings(served: PageServer) -> Settings:
    return Settings(fetch={"allowed_hosts": [served.host], "workers": 1})


@pytest.mark.parametrize("kind", DOCUMENT_FORMATS)
async def test_each_format_reads_as_markdown_with_its_text_and_table(
    kind: str, served: PageServer, fetcher_settings: Settings
) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(served.url(f"/file.{kind}"))
        sniffed = await fetcher.fetch(served.url(f"/download/{kind}"))
    for phrase in DOCUMENT_PHRASES:
        assert phrase in page.content, (phrase, page.content)
    assert page.extractor == READER_NAMES[kind]
    if kind != "rtf":  # RTF has no tables or headings a reader can tell from bold text
        assert "| Albatross | 4200 |" in page.content, page.content
    if kind in ("docx", "odt", "epub"):
        assert f"# {HEADING}" in page.content
    # a generic content type is read by the file's magic bytes (or, for CSV, its URL)
    if kind != "csv":
        assert sniffed.extractor == READER_NAMES[kind] and sniffed.content == page.content


async def test_a_slide_show_reads_every_slide_and_the_text_boxes_of_a_group(
    served: PageServer, fetcher_settings: Settings
) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        deck = await fetcher.fetch(served.url("/deck.ppsx"))  # was refused: "not a PowerPoint file"
    assert f"## Slide 1: {HEADING}" in deck.content and "| Albatross | 4200 |" in deck.content
    slide_two = deck.content.split("## Slide 2", 1)[1]
    assert all(line in slide_two for line in GROUPED_LINES)  # was an empty slide


@pytest.mark.parametrize("number", range(len(_CSV_TYPES)), ids=_CSV_TYPES)
async def test_a_csv_under_another_common_type_is_a_table(
    number: int, served: PageServer, fetcher_settings: Settings
) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(served.url(f"/export{number}"))
    assert page.extractor == READER_NAMES["csv"] and "| Albatross | 4200 |" in page.content


async def test_an_html_excel_export_under_excel_s_type_is_no_csv_table_of_markup(
    served: PageServer, fetcher_settings: Settings
) -> None:
    export = b"<table border='1'><tr><th>Name</th><th>Fruit</th></tr><tr><td>Ann</td><td>Apple, red</td></tr></table>"
    served.route("GET", "/export.xls", Reply(body=export, content_type="application/vnd.ms-excel"))
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        with pytest.raises(UnsupportedContentError, match=r"application/vnd\.ms-excel"):  # was `| <table border=...`
            await fetcher.fetch(served.url("/export.xls"))


async def test_a_password_protected_document_says_so(served: PageServer, fetcher_settings: Settings) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        with pytest.raises(UnsupportedContentError, match="password-protected"):  # was "zip container is damaged"
            await fetcher.fetch(served.url("/locked.docx"))


async def test_escaped_halves_of_a_character_come_back_whole_or_replaced(
    served: PageServer, fetcher_settings: Settings
) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:  # cached: was a UnicodeEncodeError
        rtf = await fetcher.fetch(served.url("/emoji.rtf"))
        half = await fetcher.fetch(served.url("/half.json"))
        again = await fetcher.fetch(served.url("/emoji.rtf"))
    assert "Smile \U0001f600 done" in rtf.content and again.content == rtf.content
    assert "broken \ufffd here" in half.content


@pytest.mark.parametrize("kind", _CONTAINERS)
async def test_a_zip_bomb_is_refused_before_it_inflates(
    kind: str, served: PageServer, fetcher_settings: Settings
) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        with pytest.raises(TooLargeError) as caught:
            await fetcher.fetch(served.url(f"/bomb.{kind}"))
    assert caught.value.code == "too_large"
    assert "zip bomb" in caught.value.message
    assert caught.value.details["uncompressed_bytes"] > 100 << 20


async def test_a_long_document_is_paged(served: PageServer, fetcher_settings: Settings) -> None:
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        first = await fetcher.fetch(served.url("/long.docx"), max_length=2_000)
        assert first.truncated and first.next_start_index is not None
        second = await fetcher.fetch(served.url("/long.docx"), max_length=2_000, start_index=first.next_start_index)
    assert second.cached and second.start_index == first.next_start_index
    assert first.total_length > 300 * 50


async def test_without_the_extra_the_error_says_what_to_install(
    served: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mammoth", None)  # as if `weblens[documents]` were not installed
    settings = Settings(fetch={"allowed_hosts": [served.host], "workers": 0})
    with pytest.raises(UnsupportedContentError) as caught:
        await fetch(served.url("/file.docx"), settings=settings, cache=Cache(None))
    assert "pip install 'weblens[documents]'" in caught.value.message


async def test_a_spreadsheets_repeated_rows_and_cells_show_as_far_as_a_table_does(pages: PageServer) -> None:
    """ODF writes a run of equal cells or rows as one element with a repeat count: a million empty rows
    cost nothing, a repeated row with text shows up to the row bound, a cell repeated 5 000 times is
    counted as columns rather than spelled out."""
    from weblens.fetch.office import MAX_COLUMNS, MAX_SHEET_ROWS
    from weblens.testing.documents import odf_document

    def row(cells: str, repeat: int = 1) -> str:
        return f'<table:table-row table:number-rows-repeated="{repeat}">{cells}</table:table-row>'

    def cell(text: str, repeat: int = 1) -> str:
        return f'<table:table-cell table:number-columns-repeated="{repeat}"><text:p>{text}</text:p></table:table-cell>'

    sheet = (
        row(cell("Vessel") + cell("Tonnage"))
        + row(cell("Albatross") + cell("4200"), repeat=3)
        + row(cell("", repeat=1024), repeat=1_000_000)
        + row(cell("Cormorant") + cell("x", repeat=5_000))
        + row(cell("Petrel") + cell("900"), repeat=50_000)
    )
    body = odf_document(
        "ods", f'<office:spreadsheet><table:table table:name="Fleet">{sheet}</table:table></office:spreadsheet>'
    )
    pages.route("GET", "/fleet.ods", Reply(body=body, content_type="application/vnd.oasis.opendocument.spreadsheet"))
    settings = Settings(fetch={"allowed_hosts": [pages.host]})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        document, _ = await fetcher.document(pages.url("/fleet.ods"))
    text = document.content
    assert text.startswith("## Sheet: Fleet\n\n| Vessel | Tonnage |")
    assert text.count("| Albatross | 4200 |") == 3 and "| Cormorant | x | x |" in text
    assert text.count("| Petrel | 900 |") == MAX_SHEET_ROWS - 5  # the header, three Albatross, one Cormorant
    assert f"only the first {MAX_COLUMNS} of 5,001 columns are shown" in text
    assert f"only the first {MAX_SHEET_ROWS:,} rows are shown" in text


def test_nested_lists_and_cells_of_paragraphs_keep_their_words_apart() -> None:
    """What Word (through mammoth), EPUB chapters and feeds turn into markdown."""
    html = (
        "<ol><li>Open the valve<ul><li>Check the gauge</li><li>Record the reading</li></ul></li><li>Close it</li></ol>"
        "<table><tr><th>Region</th><th>Cities</th></tr><tr><td><p>South</p><p>coast</p></td>"
        "<td><table><tr><td>Oslo</td><td>120</td></tr></table></td></tr></table>"
    )
    text = html_markdown(html)
    assert "1. Open the valve\n   - Check the gauge\n   - Record the reading\n2. Close it" in text  # was `valveCheck`
    assert "| South coast | Oslo 120 |" in text  # was `Southcoast`, `Oslo120`


def test_lists_nested_deep_are_indented_a_few_levels_only() -> None:
    html = "<ul><li>level" * 60 + "<p>word</p>" * 2000 + "</li></ul>" * 60
    text = html_markdown(html)
    assert len(text) < 3 * len(html)  # each level padded every line below it: 60 levels made it 15x
    assert text.count("word") == 2000 and text.startswith("- level\n  - level")


def test_spaces_at_the_edge_of_a_formatted_run_and_a_heading_s_line_break_keep_words_apart() -> None:
    text = html_markdown(
        "<h2>Chapter One<br>The Beginning</h2><p><b>Edit: </b>fixed the link</p>"
        "<p><span>Posted by </span><a href='/u'>alice</a></p><ul><li><b>Note: </b>read twice</li></ul>"
        "<table><tr><th>Name</th></tr><tr><td>Ann<script>var tracked = 1</script></td></tr></table>"
    )
    assert "## Chapter One The Beginning" in text  # was `OneThe`
    assert "**Edit:** fixed the link" in text and "Posted by alice" in text  # was `**Edit:**fixed`, `byalice`
    assert "- **Note:** read twice" in text
    assert "| Ann |" in text and "tracked" not in text  # a script in a cell was read as its text


def test_a_fragment_that_is_one_list_stays_a_list() -> None:
    # a feed entry's summary or a chapter that is one `<ul>`: its items were read as one run of words (`ab`)
    assert html_markdown("<ul><li>Apples</li><li>Pears</li></ul>") == "- Apples\n- Pears"


async def test_an_odt_keeps_nested_lists_and_merged_cells_in_their_columns(
    served: PageServer, fetcher_settings: Settings
) -> None:
    cell = "<table:table-cell><text:p>{}</text:p></table:table-cell>"
    body = odf_document(
        "odt",
        "<office:text><text:list><text:list-item><text:p>Gulls</text:p><text:list>"
        "<text:list-item><text:p>Herring gull</text:p></text:list-item>"
        "<text:list-item><text:p>Common gull</text:p></text:list-item></text:list></text:list-item>"
        "<text:list-item><text:p>Terns</text:p></text:list-item></text:list>"
        '<table:table table:name="t"><table:table-column table:number-columns-repeated="3"/><table:table-row>'
        + "".join(cell.format(name) for name in ("Species", "Count", "Site"))
        + '</table:table-row><table:table-row><table:table-cell table:number-columns-spanned="2">'
        "<text:p>Unknown</text:p></table:table-cell><table:covered-table-cell/>"
        + cell.format("Pier")
        + "</table:table-row><table:table-row><table:table-cell><text:p>Puffin</text:p><text:p>Fratercula</text:p>"
        "</table:table-cell>" + cell.format("12") + cell.format("Cliff") + "</table:table-row></table:table>"
        "</office:text>",
    )
    served.route("GET", "/guide.odt", Reply(body=body, content_type=CONTENT_TYPES["odt"]))
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(served.url("/guide.odt"))
    assert "- Gulls\n  - Herring gull\n  - Common gull\n- Terns" in page.content  # was `GullsHerring gullCommon gull`
    assert "| Unknown |  | Pier |" in page.content  # was `| Unknown | Pier |  |`
    assert "| Puffin Fratercula | 12 | Cliff |" in page.content


async def test_an_epub_chapter_in_the_charset_its_xml_declaration_names_reads_as_written(
    served: PageServer, fetcher_settings: Settings
) -> None:
    body, content_type = make_document("epub")
    chapter = (
        '<?xml version="1.0" encoding="ISO-8859-1"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c1</title>'
        "</head><body><h1>Café Chapter</h1><p>Déjà vu in Zürich, où la crème brûlée coûte cher.</p></body></html>"
    ).encode("latin-1")  # EPUB 2 allows any charset an XML declaration names
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(body)) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            target.writestr(member, chapter if member.filename == "OEBPS/c1.xhtml" else source.read(member))
    served.route("GET", "/latin.epub", Reply(body=out.getvalue(), content_type=content_type))
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(served.url("/latin.epub"))
    assert "# Café Chapter" in page.content and "Déjà vu in Zürich, où la crème brûlée" in page.content  # was `Caf�`


async def test_a_sheet_s_dates_and_whole_numbers_read_as_a_spreadsheet_shows_them(
    served: PageServer, fetcher_settings: Settings
) -> None:
    import datetime

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for row in (("Sailing", "Day", "Crew"), ("Spring", datetime.datetime(2024, 3, 1), 12.0),
                ("Night", datetime.datetime(2024, 3, 1, 21, 30), 4.5)):  # fmt: skip
        sheet.append(row)
    saved = io.BytesIO()
    book.save(saved)
    served.route("GET", "/sailings.xlsx", Reply(body=saved.getvalue(), content_type=CONTENT_TYPES["xlsx"]))
    async with Fetcher(fetcher_settings, cache=Cache(None)) as fetcher:
        page = await fetcher.fetch(served.url("/sailings.xlsx"))
    assert "| Spring | 2024-03-01 | 12 |" in page.content  # was `2024-03-01 00:00:00`
    assert "| Night | 2024-03-01 21:30:00 | 4.5 |" in page.content


def test_an_odt_reads_as_its_text_reads_with_changes_accepted_notes_apart_and_comments_left_out() -> None:
    dc = 'xmlns:dc="http://purl.org/dc/elements/1.1/"'
    cell = "<table:table-cell><text:p>{}</text:p></table:table-cell>"
    inner = f'<table:table table:name="inner"><table:table-row>{cell.format("Tern")}</table:table-row></table:table>'
    body = odf_document(
        "odt",
        "<office:text><text:tracked-changes><text:changed-region text:id='c1'><text:deletion>"
        f"<office:change-info><dc:creator {dc}>Ed</dc:creator></office:change-info>"
        "<text:p>The clause that was struck out.</text:p></text:deletion></text:changed-region></text:tracked-changes>"
        '<text:h text:outline-level="1"><text:number>1.</text:number>Survey</text:h>'
        "<text:p>Lights were counted<text:note text:note-class='footnote'><text:note-citation>1</text:note-citation>"
        "<text:note-body><text:p>At dusk.</text:p></text:note-body></text:note> by the keeper.</text:p>"
        f"<text:p>Gulls<office:annotation><dc:creator {dc}>Rev</dc:creator><dc:date {dc}>2024-01-01</dc:date>"
        "<text:p>Check this.</text:p></office:annotation> nest here.</text:p>"
        "<text:p><draw:frame><draw:text-box><text:p>A boxed aside.</text:p></draw:text-box></draw:frame>"
        "The paragraph the box is anchored in.</text:p>"
        '<table:table table:name="t"><table:table-header-rows><table:table-row>'
        + cell.format("Bird")
        + cell.format("Count")
        + "</table:table-row></table:table-header-rows><table:table-row>"
        + f"<table:table-cell>{inner}</table:table-cell>"
        + cell.format("12")
        + "</table:table-row></table:table></office:text>",
    )
    text = extract(body, CONTENT_TYPES["odt"]).content
    assert "struck out" not in text and "Rev" not in text and "Check this" not in text and "2024" not in text
    assert "# 1. Survey" in text  # was `1.Survey`
    assert "Lights were counted[1] by the keeper.\n\n[1] At dusk." in text  # was `counted1At dusk. by`
    assert "Gulls nest here." in text  # was `GullsRevCheck this. nest here.`
    assert "The paragraph the box is anchored in.\n\nA boxed aside." in text  # was `A boxed aside.The paragraph`
    assert text.endswith("| Bird | Count |\n| --- | --- |\n| Tern | 12 |")  # the inner row was an extra outer one


def test_a_spreadsheet_cells_comment_is_no_part_of_its_value() -> None:
    dc = 'xmlns:dc="http://purl.org/dc/elements/1.1/"'
    cell = "<table:table-cell><text:p>{}</text:p></table:table-cell>"
    body = odf_document(
        "ods",
        '<office:spreadsheet><table:table table:name="Budget"><table:table-row>'
        + cell.format("Item")
        + cell.format("Cost")
        + "</table:table-row><table:table-row>"
        + cell.format("Rent")
        + f'<table:table-cell office:value-type="float" office:value="1200"><office:annotation {dc}>'
        f"<dc:creator>Ann</dc:creator><dc:date>2024-01-01T00:00:00</dc:date><text:p>check with landlord</text:p>"
        "</office:annotation><text:p>1200</text:p></table:table-cell></table:table-row></table:table>"
        "</office:spreadsheet>",
    )
    text = extract(body, CONTENT_TYPES["ods"]).content
    assert "| Rent | 1200 |" in text  # was `Ann2024-01-01T00:00:00check with landlord1200`


def test_a_word_tables_merged_cells_leave_every_value_in_its_column() -> None:
    def cell(text: str, props: str = "") -> str:
        return f"<w:tc><w:tcPr>{props}</w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"

    down, below, across = '<w:vMerge w:val="restart"/>', "<w:vMerge/>", '<w:gridSpan w:val="2"/>'
    rows = (
        (cell("Region", down), cell("2023", across), cell("Total")),
        (cell("", below), cell("H1"), cell("H2"), cell("")),
        (cell("North", down), cell("10"), cell("20"), cell("30")),
        (cell("", below), cell("11"), cell("21"), cell("32")),
    )
    table = "<w:tbl>" + "".join("<w:tr>" + "".join(row) + "</w:tr>" for row in rows) + "</w:tbl>"
    docx, content_type = make_document("docx")
    body = rezip(docx, {"word/document.xml": f"<w:document {WORD_NS}><w:body>{table}</w:body></w:document>"})
    assert extract(body, content_type).content == (  # was `| 11 | 21 | 32 |  |`: each value a column to the left
        "| Region | 2023 |  | Total |\n|---|---|---|---|\n|  | H1 | H2 |  |\n"
        "| North | 10 | 20 | 30 |\n|  | 11 | 21 | 32 |"
    )


def test_a_hostile_span_adds_no_more_blank_cells_than_a_table_shows() -> None:
    from weblens.fetch.office import MAX_COLUMNS

    html = '<table><tr><td colspan="100000" rowspan="65534">wide</td><td>b</td></tr>' + "<tr><td>c</td></tr>" * 1000
    text = html_markdown(html + "</table>")
    assert text.startswith("| wide |" + "  |" * (MAX_COLUMNS - 1) + " b |")
    assert text.count("\n") == 1001 and len(text) < 200_000


def test_an_epub_missing_files_its_manifest_lists_reads_the_chapters_that_are_there() -> None:
    epub, content_type = make_document("epub")
    opf = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/content.opf").decode()
    chapter = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/c1.xhtml").decode()
    listed = (
        '<item id="font" href="fonts/Serif.otf" media-type="application/vnd.ms-opentype"/>'
        '<item id="cover" href="images/cover.jpg" media-type="image/jpeg" properties="cover-image"/>'
        '<item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="c3" href="c3.xhtml" media-type="application/xhtml+xml"/></manifest>'
    )
    opf = opf.replace("</manifest>", listed).replace("</spine>", '<itemref idref="c2"/><itemref idref="c3"/></spine>')
    third = chapter.replace(HEADING, "Chapter Three")
    body = rezip(epub, {"OEBPS/content.opf": opf, "OEBPS/c3.xhtml": third})  # no font, cover or c2.xhtml
    text = extract(body, content_type).content  # was refused: KeyError "There is no item named 'OEBPS/fonts/...'"
    assert f"# {HEADING}" in text and "| Albatross | 4200 |" in text
    assert "(a chapter is missing from the file: c2.xhtml)\n\n# Chapter Three" in text


def test_an_epub_with_an_empty_title_has_none() -> None:
    epub, content_type = make_document("epub")
    opf = zipfile.ZipFile(io.BytesIO(epub)).read("OEBPS/content.opf").decode()
    body = rezip(epub, {"OEBPS/content.opf": opf.replace(f"<dc:title>{HEADING}</dc:title>", "<dc:title/>")})
    assert extract(body, content_type).title == ""  # was "None"


def test_a_computed_number_shows_as_a_spreadsheet_shows_it() -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(("Item", "Gross"))
    book.active.append(("Tea", 3.3))
    saved = io.BytesIO()
    book.save(saved)
    sheet = zipfile.ZipFile(saved).read("xl/worksheets/sheet1.xml").decode()
    stored = sheet.replace("<v>3.3</v>", "<v>3.3000000000000003</v>")  # a formula's value, as Excel stores it
    text = extract(rezip(saved.getvalue(), {"xl/worksheets/sheet1.xml": stored}), CONTENT_TYPES["xlsx"]).content
    assert "| Tea | 3.3 |" in text  # was `3.3000000000000003`


@pytest.mark.parametrize(
    ("content_type", "said"),
    [
        ("application/msword", "the .doc file is in the older binary Office format"),
        ("application/vnd.ms-excel", "the .xls file is in the older binary Office format"),
        ("application/vnd.ms-powerpoint", "the .ppt file is in the older binary Office format"),
        ("application/octet-stream", "the file is password-protected (encrypted) or in the older binary Office"),
    ],
)
def test_a_legacy_binary_office_file_says_so_under_any_type(content_type: str, said: str) -> None:
    legacy = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096)  # an OLE2 compound file, as Office 97-2003 saved
    with pytest.raises(UnsupportedContentError) as caught:  # was "cannot turn application/msword content into text"
        extract(legacy, content_type)
    assert caught.value.message.startswith(said)
