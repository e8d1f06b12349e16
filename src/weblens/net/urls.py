"""Which strings may reach a user or a model as a link: absolute http(s) URLs with a real host.

Providers and remote tools hand back whatever URLs they like (`javascript:`, `file:`,
`data:`, `http://[::1`); a client that renders a `resource_link` or a source as a link
would offer them to a person to click. They are dropped where answers are mapped.
"""

from __future__ import annotations

import re

import httpx

__all__ = ["web_url"]

_MAX_CHARS = 8192
_HOSTNAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")  # linear: each dot is a fixed separator


def web_url(value: object) -> str | None:
    """`value` (stripped) when it is an absolute http(s) URL with a valid host, else None."""
    if not isinstance(value, str) or not value.strip() or len(value) > _MAX_CHARS:
        return None
    text = value.strip()
    try:
        url = httpx.URL(text)
        host = url.raw_host.decode("ascii")  # IDNA-encoded: `bücher.de` is checked as `xn--bcher-kva.de`
    except (httpx.InvalidURL, UnicodeError, ValueError):
        return None
    if url.scheme not in ("http", "https") or not host:
        return None
    if ":" not in host and not _HOSTNAME.fullmatch(host):  # an IPv6 literal has colons; anything else is a name
        return None
    return text
