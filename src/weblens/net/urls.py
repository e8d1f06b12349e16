"""Which strings may reach a user or a model as a link: absolute http(s) URLs with a real host.

Providers and remote tools hand back whatever URLs they like (`javascript:`, `file:`,
`data:`, `http://[::1`); a client that renders a `resource_link` or a source as a link
would offer them to a person to click. They are dropped where answers are mapped.
This runs for every result of every search: it uses `urllib.parse`, which is several
times cheaper than building an `httpx.URL`.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse

__all__ = ["web_url"]

_MAX_CHARS = 8192
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOSTNAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")  # linear: each dot is a fixed separator


def _valid_host(host: str) -> bool:
    if ":" in host:  # an IPv6 literal (urlsplit has taken the brackets off)
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return False
        return True
    if host.isascii():
        return _HOSTNAME.fullmatch(host) is not None
    try:  # an internationalised name: valid when IDNA can encode it
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    return _HOSTNAME.fullmatch(ascii_host.lower()) is not None


def web_url(value: object) -> str | None:
    """`value` (stripped) when it is an absolute http(s) URL with a valid host, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > _MAX_CHARS or _CONTROL.search(text):
        return None
    try:
        parts = urllib.parse.urlsplit(text)
        host = parts.hostname  # lowercased, brackets removed
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number or out of range
    except ValueError:  # e.g. `http://[::1`
        return None
    if parts.scheme.lower() not in ("http", "https") or not host or not _valid_host(host):
        return None
    return text
