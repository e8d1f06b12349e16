"""One page of an extracted document: a slice from `start_index`, or the passages that answer
a query, within a character and a token budget.

Pure CPU work on a document already in hand (the fetcher runs it off the event loop), so a
second page or a second question about the same URL costs no request.
"""

from __future__ import annotations

from weblens.fetch.document import Document, Page, Passage
from weblens.fetch.paging import page_bounds, token_page_bounds
from weblens.fetch.passages import Span, split_passages
from weblens.fetch.ranking import score_passages
from weblens.fetch.selection import select_passages
from weblens.fetch.tokens import TokenCounter

__all__ = ["NO_MATCH_NOTE", "read_page"]

NO_MATCH_NOTE = "No passage matches the query; this is the start of the document instead."


def _window(spans: list[Span], start_index: int) -> list[Span]:
    """The passages from `start_index` on; one that straddles it keeps its tail."""
    return [
        span if span.start >= start_index else Span(start_index, span.end, span.heading_path)
        for span in spans
        if span.end > start_index
    ]


def _slice(
    document: Document,
    cached: bool,
    start_index: int,
    max_length: int | None,
    max_tokens: int | None,
    counter: TokenCounter | None,
    note: str | None = None,
) -> Page:
    text = document.content
    if max_tokens is not None and counter is not None:
        end, next_start = token_page_bounds(text, start_index, max_tokens, counter, max_length)
    else:
        assert max_length is not None
        end, next_start = page_bounds(text, start_index, max_length)
    content = text[start_index:end]
    tokens = counter.count(content) if counter is not None else None
    page = Page.of(
        document, content, start_index, next_start, cached, tokens=tokens, tokenizer=counter.name if counter else None
    )
    if note:
        page.note = f"{page.note} {note}" if page.note else note
    return page


def read_page(
    document: Document,
    cached: bool,
    *,
    start_index: int,
    max_length: int | None,
    default_length: int,
    query: str | None = None,
    max_tokens: int | None = None,
    query_tokens: int,
    counter: TokenCounter | None = None,
) -> Page:
    """The page of `document` a caller asked for.

    Without a query: characters from `start_index`, cut on a paragraph boundary within
    `max_length` characters (`default_length` when neither budget is given) and `max_tokens`.
    With one: the best passages from `start_index` on, within `max_tokens` (default
    `query_tokens`) and `max_length`; `counter` must be given whenever tokens are counted.
    """
    if query is None:
        if max_tokens is None:
            return _slice(document, cached, start_index, max_length or default_length, None, None)
        return _slice(document, cached, start_index, max_length, max_tokens, counter)
    assert counter is not None
    text = document.content
    spans = _window(split_passages(text), start_index)
    headings = [" ".join(span.heading_path) for span in spans]
    scores = score_passages([text[span.start : span.end] for span in spans], headings, query)
    budget = max_tokens or query_tokens
    chars = max_length or len(text) + 1
    if not any(score > 0 for score in scores):
        page = _slice(document, cached, start_index, max_length, budget, counter, NO_MATCH_NOTE)
        page.query = query
        return page
    selection = select_passages(
        text, spans, scores, max_tokens=budget, max_chars=chars, counter=counter, window=(start_index, len(text))
    )
    passages = [
        Passage(start=s.span.start, end=s.span.end, heading_path=list(s.span.heading_path), score=round(s.score, 3))
        for s in selection.shown
    ]
    return Page.of(
        document,
        selection.content,
        start_index,
        None,
        cached,
        query=query,
        passages=passages,
        left_out=document.total_length - selection.shown_chars,
        tokens=selection.tokens,
        tokenizer=counter.name,
    )
