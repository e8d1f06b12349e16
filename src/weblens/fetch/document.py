"""What a fetch returns: the extracted document, and one page of it for a model."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Document", "Page"]


class Document(BaseModel):
    """A URL turned into text once; cached whole so every page of it is served from here."""

    url: str
    """The URL asked for."""
    final_url: str
    """Where the redirects ended."""
    status: int
    content_type: str
    title: str = ""
    byline: str | None = None
    date: str | None = None
    content: str
    """The whole text: markdown for HTML, the text itself for text types, one section per PDF page."""
    extractor: str
    """What produced `content`: trafilatura, text, json, pypdf or raw."""
    total_length: int = 0
    note: str | None = None
    """Said when the text is not what it seems, e.g. an empty JavaScript shell."""


class Page(BaseModel):
    """A slice of a document: `content` holds characters `start_index` up to `next_start_index`."""

    url: str
    final_url: str
    status: int
    content_type: str
    title: str = ""
    byline: str | None = None
    date: str | None = None
    extractor: str
    content: str
    start_index: int = Field(ge=0)
    total_length: int = Field(ge=0)
    truncated: bool
    """True when more text follows this page."""
    next_start_index: int | None
    """Pass as `start_index` to read on; None on the last page."""
    cached: bool = False
    """Served from the cache (no new request)."""
    note: str | None = None

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
