"""What a fetch returns: the extracted document, and one page of it for a model."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Document", "Page"]


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
    """What produced the text: trafilatura, text, json, pypdf or raw."""
    note: str | None = None
    """Said when the text is not what it seems, e.g. an empty JavaScript shell."""


class Document(_Fetched):
    """A URL turned into text once; cached whole so every page of it is served from here."""

    content: str
    """The whole text: markdown for HTML, the text itself for text types, one section per PDF page."""
    total_length: int = 0


class Page(_Fetched):
    """A slice of a document: `content` holds characters `start_index` up to `next_start_index`."""

    content: str
    start_index: int = Field(ge=0)
    total_length: int = Field(ge=0)
    truncated: bool
    """True when more text follows this page."""
    next_start_index: int | None
    """Pass as `start_index` to read on; None on the last page."""
    cached: bool = False
    """Served from the cache (no new request)."""

    @classmethod
    def of(cls, document: Document, content: str, start_index: int, next_start: int | None, cached: bool) -> Page:
        fields = document.model_dump(exclude={"content", "total_length"})
        return cls(
            **fields,
            content=content,
            start_index=start_index,
            total_length=document.total_length,
            truncated=next_start is not None,
            next_start_index=next_start,
            cached=cached,
        )
