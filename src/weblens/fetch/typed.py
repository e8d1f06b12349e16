"""A URL as people and models type it: `example.com`, `localhost:8000`, `10.0.0.5/status`.

Without a scheme, `https://` is assumed and the page's note says so. An address literal or
a loopback name is often a local server speaking plain http: when its https attempt fails
with a TLS error (an http server answering a TLS hello: "wrong version number"), it is
fetched again over `http://`, and the note says that too. A name on the internet is never
downgraded: a TLS error there stays an error. The CLI (`weblens fetch`) and the fetch tools
share this, so they read `example.com` alike.
"""

from __future__ import annotations

from typing import Any

import httpx

from weblens.errors import ToolValidationError, UpstreamError
from weblens.fetch.document import Document, Page
from weblens.fetch.fetcher import Fetcher
from weblens.net.errors import network_failure
from weblens.net.ssrf import is_loopback_name, parse_ip
from weblens.urls import with_scheme

__all__ = ["document_typed", "fetch_typed"]


def _may_speak_plain_http(url: str) -> bool:
    try:
        host = httpx.URL(url).host
    except (httpx.InvalidURL, UnicodeError):
        return False
    return parse_ip(host) is not None or is_loopback_name(host)


async def document_typed(fetcher: Fetcher, url: str, **options: Any) -> tuple[Document, bool]:
    """`fetcher.document(url, **options)` for a URL that may have no scheme (see the module docstring)."""
    typed = url.strip()
    target = with_scheme(typed)
    if target == typed:
        return await fetcher.document(target, **options)
    if any(char.isspace() for char in typed):  # words, not an address: no DNS lookup for them
        message = f"{typed!r:.200} is not a URL: give an address such as example.com/page or https://example.com/page"
        raise ToolValidationError(message, [{"field": "url", "message": message, "type": "url"}])
    try:
        document, cached = await fetcher.document(target, **options)
        said = f"No scheme was given, so https:// was assumed: fetched {target}."
    except UpstreamError as exc:
        if network_failure(exc) != "tls" or not _may_speak_plain_http(target):
            raise
        plain = "http://" + target.removeprefix("https://")
        document, cached = await fetcher.document(plain, **options)
        said = f"No scheme was given: {target} failed with a TLS error, so {plain} was fetched over plain http."
    return document.model_copy(update={"note": f"{said} {document.note}" if document.note else said}), cached


async def fetch_typed(
    fetcher: Fetcher,
    url: str,
    *,
    max_length: int | None = None,
    start_index: int = 0,
    query: str | None = None,
    max_tokens: int | None = None,
    **options: Any,
) -> Page:
    """`fetcher.fetch(url, ...)` for a URL that may have no scheme (see the module docstring)."""
    query = fetcher.page_query(max_length=max_length, start_index=start_index, query=query, max_tokens=max_tokens)
    document, cached = await document_typed(fetcher, url, continuing=start_index > 0, **options)
    return await fetcher.page(
        document, cached, start_index=start_index, max_length=max_length, query=query, max_tokens=max_tokens
    )
