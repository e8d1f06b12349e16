"""Every regex in src/weblens on hostile input, through the public functions that run it:
each finishes in linear time (issue 9 §1: no regex may be super-linear). The HTML-side ones
(markup, decode, clean_text) are in tests/fetch/test_hostile_input.py; these are the rest.
A backtracking pattern takes minutes on 200 000 characters; the bound is generous."""

from __future__ import annotations

import time

import pytest

from weblens.agent.citations import SourceBook
from weblens.agent.verify import check_citations
from weblens.fetch.passages import split_passages
from weblens.fetch.ranking import score_passages
from weblens.net.urls import web_url
from weblens.redact import redact_text
from weblens.result import Source, ToolResult
from weblens.urls import canonical_url, find_urls

pytestmark = pytest.mark.timeout(120)

N = 200_000
BOUND_S = 10.0
HOSTILE_TEXT = {
    "open brackets": "[" * N,
    "unclosed links": "[a](" * (N // 4),
    "unclosed citations": "[1," * (N // 3),
    "citation spaces": "[1" + " ," * (N // 2),
    "heading spaces": "#" + " " * N + "!",
    "fence ticks": "`" * N,
    "dots and closers": ".)" * (N // 2),
    "quotes": "\"'" * (N // 2),
    "spaces": " " * N,
    "tabs and newlines": "\t\n" * (N // 2),
    "urls without end": "http://" + "a" * N,
    "url schemes": "http://" * (N // 7),
    "percent runs": "%" * N,
    "dotted labels": "a." * (N // 2) + "!",
    "cjk": "。" * N,
}


def _bounded(call: object) -> None:
    started = time.monotonic()
    assert callable(call)
    call()
    assert time.monotonic() - started < BOUND_S


@pytest.mark.parametrize("text", list(HOSTILE_TEXT.values()), ids=list(HOSTILE_TEXT))
def test_reading_functions_are_linear_on_hostile_text(text: str) -> None:
    _bounded(lambda: split_passages(text))
    _bounded(lambda: score_passages([text], [text[:300]], "alpha beta gamma"))
    _bounded(lambda: find_urls(text, bare=True))
    _bounded(lambda: SourceBook().used_by(text))
    _bounded(lambda: redact_text(text))


HOSTILE_ANSWERS = {
    **HOSTILE_TEXT,
    "quoted markers": '"a" [1] ' * (N // 16),
    "single quotes": " 'x" * (N // 3),
    "blockquote lines": "> a [1]\n" * (N // 16),
    "blockquote lead-ins": "As [1] says:\n> a\n" * (N // 32),
    "many quotes, one marker": '"the storm" ' * (N // 12) + "[1]",
    "ellipses": '"a … a … a … a" [1] ' * (N // 20),
}


@pytest.mark.parametrize("text", list(HOSTILE_ANSWERS.values()), ids=list(HOSTILE_ANSWERS))
def test_citation_checks_are_bounded_on_hostile_answers(text: str) -> None:
    book = SourceBook()
    page = "the storm a " * (N // 12)  # a long source whose words every quote finds everywhere
    data = {"url": "https://a.example/", "final_url": "https://a.example/", "content": page}
    book.render(ToolResult.success("page", data=data, sources=[Source(title="A", url="https://a.example/")]))
    _bounded(lambda: check_citations(text + " [1]", book))


@pytest.mark.parametrize("text", list(HOSTILE_TEXT.values()), ids=list(HOSTILE_TEXT))
def test_url_checks_are_linear_on_hostile_input(text: str) -> None:
    _bounded(lambda: web_url("http://" + text.replace("/", "a")[:N]))
    _bounded(lambda: canonical_url("http://example.com/" + text))
