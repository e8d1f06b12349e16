"""Which strings may reach a user or a model as a link: absolute http(s) URLs with a real host.

Providers and remote tools hand back whatever URLs they like (`javascript:`, `file:`,
`data:`, `http://[::1`); a client that renders a `resource_link` or a source as a link
would offer them to a person to click. They are dropped where answers are mapped.
This runs for every result of every search: it uses `urllib.parse`, which is several
times cheaper than building an `httpx.URL`.

`sent_form` answers a different question: what request the guarded client will actually
send for a URL (the agent's URL provenance compares that, never a "same page" key).
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse

import httpx

__all__ = ["sent_form", "web_url"]

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


def sent_form(url: str) -> str | None:
    """What the guarded client puts on the wire for `url`, as one string: scheme, the host as
    the bytes it connects to and sends (httpx encodes names with IDNA 2008, so `straße` is
    `xn--strae-oqa`, never `strasse`), the port, and the request target exactly as sent
    (every query parameter, percent-escapes as written, `%2e%2e` left alone). The fragment
    is not sent and is left out. None when the URL carries userinfo (sent as a Basic
    header: a channel of its own) or the client could not send it at all."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        return None
    if parsed.userinfo or parsed.scheme not in ("http", "https") or not parsed.raw_host:
        return None
    host = parsed.raw_host.decode("ascii")
    if ":" in host:
        host = f"[{host}]"
    default = 443 if parsed.scheme == "https" else 80
    port = "" if parsed.port in (None, default) else f":{parsed.port}"
    return f"{parsed.scheme}://{host}{port}{parsed.raw_path.decode('ascii')}"
