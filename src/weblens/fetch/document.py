"""What a fetch returns: the extracted document, and one page of it for a model."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Document", "Page", "Passage"]


class _Fetched(BaseModel):
    """What every fetch says about where its text came from."""

    url: str
    """The URL asked for."""
    final_url: str
    """Where the redirects ended."""
    status: int
    content_type: str
    title: str = ""
    byline: str | None = None
    date: str | None = None
    extractor: str
    """What produced the text: trafilatura, text, json, pypdf, raw, a document reader (mammoth,
    openpyxl, python-pptx, odfpy, ebooklib, striprtf, csv), or OCR (pypdf+rapidocr for a scanned
    PDF, rapidocr for an image)."""
    note: str | None = None
    """Said when the text is not what it seems, e.g. an empty JavaScript shell."""
    rendered: bool = False
    """The text was read from the page as a browser rendered it (JavaScript run)."""
    render_reason: str | None = None
    """Why it was rendered ("requested", "javascript_shell", ...); on a plain read, why a render would help."""
    render_ms: int | None = None
    """How long the browser took, when it rendered."""
    fetched_at: float | None = None
    """When the text was downloaded (Unix time)."""
    stale: bool = False
    """Served from the cache past its freshness because the origin failed (`stale_if_error`)."""
    stale_reason: str | None = None
    """Why the origin could not be used, when `stale`."""
    no_store: bool = False
    """The site sent `Cache-Control: no-store`, so this copy was not cached: reading on downloads it again."""


class Document(_Fetched):
    """A URL turned into text once; cached whole so every page of it is served from here."""

    content: str
    """The whole text: markdown for HTML, the text itself for text types, one section per PDF page."""
    total_length: int = 0


class Passage(BaseModel):
    """A part of the document a query page shows: `document.content[start:end]`, under `heading_path`."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    heading_path: list[str] = Field(default_factory=list)
    """The headings it sits under, outermost first."""
    score: float = 0.0
    """How well it matches the query (BM25 and more); only comparable within one page."""


class Page(_Fetched):
    """A slice of a document: `content` holds characters `start_index` up to `next_start_index`.

    With a query, `content` is instead the passages that best answer it, in document order,
    each introduced by its `[start–end]` offsets and heading path, with `[… N characters left
    out]` where the document goes on; `passages` lists them.
    """

    content: str
    start_index: int = Field(ge=0)
    total_length: int = Field(ge=0)
    truncated: bool
    """True when more text follows this page."""
    next_start_index: int | None
    """Pass as `start_index` to read on; None on the last page."""
    cached: bool = False
    """Served from the cache (no new request)."""
    age_s: float = Field(default=0.0, ge=0)
    """How old the text is: seconds since it was downloaded (0 for a fresh download)."""
    query: str | None = None
    """The question the passages were chosen for; None for a plain slice."""
    passages: list[Passage] = Field(default_factory=list)
    left_out: int = Field(default=0, ge=0)
    """Characters of the document this page does not show."""
    tokens: int | None = None
    """Tokens in `content`, counted with `tokenizer`, when a token budget was asked for."""
    tokenizer: str | None = None

    @classmethod
    def of(
        cls,
        document: Document,
        content: str,
        start_index: int,
        next_start: int | None,
        cached: bool,
        *,
        query: str | None = None,
        passages: list[Passage] | None = None,
        left_out: int | None = None,
        tokens: int | None = None,
        tokenizer: str | None = None,
    ) -> Page:
        fields = document.model_dump(exclude={"content", "total_length"})
        left_out = document.total_length - len(content) if left_out is None else left_out
        return cls(
            **fields,
            content=content,
            start_index=start_index,
            total_length=document.total_length,
            truncated=next_start is not None or (query is not None and left_out > 0),
            next_start_index=next_start,
            cached=cached,
            query=query,
            passages=passages or [],
            left_out=left_out,
            tokens=tokens,
            tokenizer=tokenizer,
        )
