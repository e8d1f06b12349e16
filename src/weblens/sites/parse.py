"""What site files say: sitemaps (XML, gzipped, plain text), llms.txt, and a page's links.

Parsing only: the bodies come from the guarded client, already size-capped. A gzipped
sitemap is inflated here up to the same cap, so a gzip bomb stops at it.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from urllib.parse import urljoin

from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.errors import TooLargeError
from weblens.urls import is_web_url

__all__ = ["Link", "SitemapEntries", "inflate", "llms_links", "page_links", "sitemap_entries"]

_GZIP_MAGIC = b"\x1f\x8b"
_MD_LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(\s*<?([^()\s<>]{1,2000})>?(?:\s+\"[^\"\n]{0,300}\")?\s*\)")
_MAX_LINKS = 5_000
"""Links read from one page or llms.txt; past this the rest of the page is ignored."""


@dataclass
class Link:
    url: str
    text: str = ""
    lastmod: str | None = None


@dataclass
class SitemapEntries:
    """A sitemap's pages, or, for a sitemap index, the sitemaps it lists."""

    pages: list[Link] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)


def inflate(body: bytes, cap: int) -> bytes:
    """A `.gz` file's content (a sitemap served as application/gzip), at most `cap` bytes."""
    if not body.startswith(_GZIP_MAGIC):
        return body
    decoder = zlib.decompressobj(47)
    try:
        out = decoder.decompress(body, cap + 1)
    except zlib.error:
        return b""
    if len(out) > cap:
        raise TooLargeError(f"a gzipped sitemap inflates past the {cap:,} byte cap (fetch.max_bytes)")
    return out


def _join(base: str, href: str) -> str:
    try:
        return urljoin(base, href)
    except ValueError:  # a malformed host or port
        return ""


def _local(tag: object) -> str:
    return tag.split("}", 1)[-1].lower() if isinstance(tag, str) else ""


def sitemap_entries(body: bytes, base: str, limit: int) -> SitemapEntries:
    """The `<url>`s (with `lastmod`) or `<sitemap>`s of an XML sitemap, or the URLs of a text
    one (one per line); at most `limit` of each. Entities are never resolved."""
    found = SitemapEntries()
    head = body.lstrip()[:1]
    if head != b"<":
        for line in body.decode("utf-8", "replace").splitlines():
            url = line.strip()
            if is_web_url(url) and len(found.pages) < limit:
                found.pages.append(Link(url))
        return found
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=True)
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError:
        return found
    if root is None:
        return found
    for element in root:
        kind = _local(element.tag)
        if kind not in ("url", "sitemap"):
            continue
        values = {_local(child.tag): (child.text or "").strip() for child in element}
        loc = _join(base, values.get("loc", ""))
        if not is_web_url(loc):
            continue
        if kind == "sitemap" and len(found.sitemaps) < limit:
            found.sitemaps.append(loc)
        elif kind == "url" and len(found.pages) < limit:
            found.pages.append(Link(loc, lastmod=values.get("lastmod") or None))
    return found


def llms_links(text: str, base: str) -> list[Link]:
    """The markdown links of an llms.txt (`- [Title](url): notes`)."""
    links: list[Link] = []
    for match in _MD_LINK.finditer(text):
        url = _join(base, match.group(2))
        if is_web_url(url):
            links.append(Link(url, " ".join(match.group(1).split())))
            if len(links) >= _MAX_LINKS:
                break
    return links


def _tokens(value: str | None) -> set[str]:
    return set((value or "").lower().replace(",", " ").split())


def page_links(body: bytes, base: str) -> tuple[str, list[Link]]:
    """(the page's title, its `<a href>` links resolved against `<base>` or the page's URL). Links
    the page asks crawlers not to follow are left out: all of them under `<meta name="robots"
    content="nofollow">` (or `none`), and each `<a rel="nofollow">` (logout, "next month", sort
    orders: the links spider traps are made of)."""
    try:
        tree = lxml_html.document_fromstring(body)
    except (etree.ParserError, ValueError):
        return "", []
    title = " ".join((tree.findtext(".//title") or "").split())
    for meta in tree.iterfind(".//meta[@name]"):
        if meta.get("name", "").strip().lower() == "robots" and _tokens(meta.get("content")) & {"nofollow", "none"}:
            return title, []
    base_href = tree.find(".//base[@href]")
    if base_href is not None:
        base = _join(base, base_href.get("href", "")) or base
    links: list[Link] = []
    for anchor in tree.iterfind(".//a[@href]"):
        if "nofollow" in _tokens(anchor.get("rel")):
            continue
        url = _join(base, anchor.get("href", "").strip()).split("#", 1)[0]
        if is_web_url(url):
            links.append(Link(url, " ".join(anchor.text_content().split())[:300]))
            if len(links) >= _MAX_LINKS:
                break
    return title, links
