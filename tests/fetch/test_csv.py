"""A link to a CSV or TSV file reads as one markdown table: its delimiter sniffed, its quotes RFC 4180's, its lines
ended as any program ends them, in the charset it was saved in (UTF-16 too), bounded and saying what it leaves out.
(CSV under other common content types: `test_documents.py`.)"""

from __future__ import annotations

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import Fetcher, fetch
from weblens.fetch.extract import extract
from weblens.testing import Reply
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(60)


async def test_a_long_csv_is_a_bounded_table_that_counts_what_it_leaves_out(pages: PageServer) -> None:
    rows = "".join(f"{n},item {n}\n" for n in range(5_000))
    pages.route("GET", "/big.csv", Reply(body="id,name\n" + rows, content_type="text/csv"))
    settings = Settings(fetch={"allowed_hosts": [pages.host], "workers": 1})
    async with Fetcher(settings, cache=Cache(None)) as fetcher:
        document, _ = await fetcher.document(pages.url("/big.csv"))
    assert document.content.startswith("| id | name |\n| --- | --- |\n| 0 | item 0 |")
    assert "| 1998 | item 1998 |" in document.content and "item 1999" not in document.content
    assert document.content.endswith("(3,001 more lines not shown)")


async def test_tab_separated_values_are_a_table_by_type_or_by_name(pages: PageServer) -> None:
    body = b"ship\ttons\tport\nAlbatross\t4200\tPier 4\nPetrel\t1800\tPier 9\n"
    pages.route("GET", "/ships", Reply(body=body, content_type="text/tab-separated-values"))
    pages.route("GET", "/ships.tsv", Reply(body=body, content_type="text/plain"))
    settings = Settings(fetch={"allowed_hosts": [pages.host]})
    for path in ("/ships", "/ships.tsv"):
        page = await fetch(pages.url(path), settings=settings, cache=Cache(None))
        assert page.extractor == "csv", path
        assert "| ship | tons | port |\n| --- | --- | --- |\n| Albatross | 4200 | Pier 4 |" in page.content, path


def test_a_field_that_starts_with_an_apostrophe_is_no_quoted_field() -> None:
    songs = (
        "title,artist,year\n'Round Midnight,Thelonious Monk,1944\nRock 'n' Roll,Various,1955\n"
        "'Til Tuesday,'Til Tuesday,1985\nSay 'hello',Someone,2001\n\"Hello, Goodbye\",The Beatles,1967\n"
    )
    assert extract(songs.encode(), "text/csv").content == (  # the sniffer took `'` for the quote and merged rows
        "| title | artist | year |\n| --- | --- | --- |\n| 'Round Midnight | Thelonious Monk | 1944 |\n"
        "| Rock 'n' Roll | Various | 1955 |\n| 'Til Tuesday | 'Til Tuesday | 1985 |\n| Say 'hello' | Someone | 2001 |\n"
        "| Hello, Goodbye | The Beatles | 1967 |"
    )


def test_a_csv_whose_lines_end_in_a_carriage_return_alone_is_a_table() -> None:
    read = extract(b"Name,Qty\rApples,3\rPears,5\r", "text/csv")  # Excel for Mac's "CSV (Macintosh)"
    # was the text under "(not shown as a table: ... do you need to open the file in universal-newline mode?)"
    assert read.content == "| Name | Qty |\n| --- | --- |\n| Apples | 3 |\n| Pears | 5 |"
    long = "id,name\r" + "".join(f"{n},item {n}\r" for n in range(5_000))
    assert extract(long.encode(), "text/csv").content.endswith("| 1998 | item 1998 |\n\n(3,001 more lines not shown)")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_csv_under_excels_type_is_a_table(codec: str) -> None:
    rows = "Name\tCity\nJosé\tZürich\nAnn\tKöln\n"  # Excel's "Unicode text": UTF-16, with a BOM or, elsewhere, none
    read = extract(rows.encode(codec), "application/vnd.ms-excel")  # was refused: a NUL in its first bytes
    assert read.extractor == "csv"
    assert read.content == "| Name | City |\n| --- | --- |\n| José | Zürich |\n| Ann | Köln |"


def test_excels_sep_line_names_the_delimiter_and_is_no_row() -> None:
    body = "\ufeffsep=;\r\nNom;Prix\r\nCafé;3,50\r\n" + "Thé;2,10\r\n" * 2_100  # a European Excel export
    read = extract(body.encode(), "text/csv")  # the header was `| sep= |  |`, the real header a row under it
    assert read.content.startswith("| Nom | Prix |\n| --- | --- |\n| Café | 3,50 |\n| Thé | 2,10 |")
    assert read.content.endswith("(102 more lines not shown)")
    quoted = extract(b'"sep=|"\nname|note\nann|a, b\n', "text/csv")
    assert quoted.content == "| name | note |\n| --- | --- |\n| ann | a, b |"
