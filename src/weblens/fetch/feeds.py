"""RSS, Atom and RDF feeds to markdown: the feed's title, then each entry's title, link, date and author, and
its content or summary as markdown. A link to a feed is a list of articles to an agent, not XML to read.

Parsed by feedparser from the bytes already downloaded, handed over as a stream: given a string that looks
like a URL feedparser fetches it itself (around weblens' guarded client), and given bytes it first tries to
open them as a local file's name (a body of `/srv/app/feed.xml` would read that file). feedparser drops entity
declarations it does not know and expat bounds entity amplification, so a billion-laughs feed stays small;
entries' HTML is sanitised by feedparser, then read by weblens' HTML-to-markdown path. Runs where every
page is read: in a worker, under the extraction deadline.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FEED_TYPES", "MAX_FEED_ENTRIES", "feed_markdown", "is_feed"]

FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml", "application/rdf+xml"})
"""Media types that name a feed; generic XML types are sniffed by their root element."""
_SNIFFED_TYPES = frozenset({"application/xml", "text/xml", "text/plain", ""})
MAX_FEED_ENTRIES = 1_000
"""Entries shown; the rest are counted in a last line (a feed's newest entries come first)."""
_SNIFF_BYTES = 4_096
_COMMENT = re.compile(rb"<!--.*?-->", re.DOTALL)
_ROOT = re.compile(rb"<(?![?!])(?:[\w.-]+:)?([A-Za-z][\w.-]*)")
_ROOT_NAMES = frozenset({b"rss", b"feed", b"RDF"})
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def is_feed(body: bytes, media_type: str) -> bool:
    """Whether a body is a feed: by its media type, or (generic XML or text) by its root element."""
    if media_type in FEED_TYPES:
        return True
    if media_type not in _SNIFFED_TYPES:
        return False
    root = _ROOT.search(_COMMENT.sub(b"", body[:_SNIFF_BYTES]))
    return root is not None and root.group(1) in _ROOT_NAMES


def _text(detail: Any, fallback: str = "") -> str:
    """A feed field as markdown: its HTML read as weblens reads HTML, plain text as it is."""
    if not detail:
        return fallback.strip()
    value = str(detail.get("value") or "")
    if detail.get("type") in _HTML_TYPES:
        from weblens.fetch.office import html_markdown

        return html_markdown(value)
    return value.strip()


def _line(text: str) -> str:
    return " ".join(text.split())


def feed_markdown(body: bytes, content_type: str, url: str = "") -> tuple[str, str] | None:
    """(the feed as markdown, its title), or None when feedparser finds no feed in the body."""
    import io

    import feedparser

    headers = {"content-type": content_type, **({"content-location": url} if url else {})}
    stream = io.BytesIO(body)
    parsed = feedparser.parse(stream, response_headers=headers, sanitize_html=True, resolve_relative_uris=True)
    if not parsed.version and not parsed.entries:
        return None
    feed = parsed.feed
    title = _line(_text(feed.get("title_detail"), feed.get("title", "")))
    parts = [f"# {title}"] if title else []
    about = _text(feed.get("subtitle_detail"), feed.get("subtitle", ""))
    if about:
        parts.append(about)
    for entry in parsed.entries[:MAX_FEED_ENTRIES]:
        heading = _line(_text(entry.get("title_detail"), entry.get("title", ""))) or "(untitled)"
        lines = [f"## {heading}"]
        if entry.get("link"):
            lines.append(str(entry["link"]))
        when = entry.get("published") or entry.get("updated")
        said = " · ".join(_line(str(part)) for part in (when, entry.get("author")) if part)
        if said:
            lines.append(f"*{said}*")
        parts.append("\n".join(lines))
        contents = entry.get("content") or []
        text = _text(contents[0] if contents else entry.get("summary_detail"), entry.get("summary", ""))
        if text:
            parts.append(text)
    hidden = len(parsed.entries) - MAX_FEED_ENTRIES
    if hidden > 0:
        parts.append(f"({hidden:,} more entries not shown)")
    return "\n\n".join(parts) + "\n", title
