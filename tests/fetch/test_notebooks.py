"""A link to a Jupyter notebook, fetched over real HTTP, reads as its prose and code: markdown cells as
written, code fenced in the kernel's language, text output after it (bounded), images and JSON left out."""

from __future__ import annotations

import json

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch import fetch
from weblens.fetch.extract import extract
from weblens.fetch.notebook import MAX_OUTPUT_CHARS
from weblens.testing import Reply
from weblens.testing.pages import PageServer

pytestmark = pytest.mark.timeout(60)

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "language": "python"}, "language_info": {"name": "python"}},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Harbour traffic\n", "\n", "Ships counted per day."]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": "ships = {'Albatross': 4200}\nprint(sum(ships.values()))",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["4200\n"]},
                {
                    "output_type": "display_data",
                    "data": {"image/png": "iVBORw0KGgo" * 5000, "text/plain": ["<Figure>"]},
                },
            ],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "source": ["for n in range(10**6):\n", "    print(n)"],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "".join(f"{n}\n" for n in range(20_000))}],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "source": "1 / 0",
            "outputs": [
                {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": []}
            ],
        },
    ],
}


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/traffic.ipynb", "application/x-ipynb+json"), ("/raw/traffic.ipynb", "text/plain; charset=utf-8")],
)
async def test_a_notebook_reads_as_its_prose_code_and_text_output(
    pages: PageServer, path: str, content_type: str
) -> None:
    pages.route("GET", path, Reply(body=json.dumps(NOTEBOOK).encode(), content_type=content_type))
    settings = Settings(fetch={"allowed_hosts": [pages.host]})
    page = await fetch(pages.url(path), settings=settings, cache=Cache(None), max_length=100_000)
    assert page.extractor == "notebook" and page.title == "Harbour traffic"
    text = page.content
    assert text.startswith("# Harbour traffic\n\nShips counted per day.\n\n```python\nships = {'Albatross': 4200}\n")
    assert "```text\n4200\n<Figure>\n```" in text and "iVBOR" not in text  # the plot's PNG is left out
    assert "more characters of output" in text and len(text) < MAX_OUTPUT_CHARS + 1_000
    assert "```text\nZeroDivisionError: division by zero\n```" in text


async def test_other_json_is_still_pretty_printed(pages: PageServer) -> None:
    pages.route(
        "GET", "/data.json", Reply(body=b'{"cells": [1, 2], "nbformat": "four"}', content_type="application/json")
    )
    page = await fetch(
        pages.url("/data.json"), settings=Settings(fetch={"allowed_hosts": [pages.host]}), cache=Cache(None)
    )
    assert page.extractor == "json" and '"cells": [\n    1,' in page.content


def test_a_cells_output_loses_its_terminal_colours() -> None:
    cell = {
        "cell_type": "code",
        "source": "warn()",
        "outputs": [
            {"output_type": "stream", "name": "stderr", "text": ["\x1b[31mWarning:\x1b[0m low tide\n"]},
            {"output_type": "error", "ename": "ValueError", "evalue": "\x1b[0;31mbad depth\x1b[0m", "traceback": []},
            {"output_type": "stream", "name": "stdout", "text": "\x1b]8;;https://example.com\x07chart\x1b]8;;\x07\n"},
        ],
    }
    notebook = {"nbformat": 4, "metadata": {}, "cells": [cell]}
    text = extract(json.dumps(notebook).encode(), "application/x-ipynb+json").content
    assert "```text\nWarning: low tide\nValueError: bad depth\nchart\n```" in text  # was `\x1b[31mWarning:\x1b[0m`
