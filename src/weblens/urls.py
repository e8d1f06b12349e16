"""URLs in text, and one canonical form for telling two spellings of the same page apart.

`canonical_url` is the key two URLs are compared by wherever weblens asks "is this the
same page?": the agent's source ledger (its numbering) and search fusion's dedupe. It never
decides what may be fetched or linked: it drops exactly what carries data to a server, so URL
provenance and the link guard compare what would be sent (`weblens.net.urls.sent_form`).
It ignores what does not change the page — scheme (http/https) and host case, `www.`,
default ports, user info, tracking parameters (`utm_*`, `fbclid`, ...), parameter
order, a trailing slash, the fragment, a path written in Unicode or in its UTF-8 escapes —
and keeps everything else.

`find_urls` finds http(s) URLs in running text (and, for text a person typed, bare
host names such as `example.com/page`); it scans in linear time, whatever the text.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

__all__ = ["FoundUrl", "canonical_url", "find_urls", "is_web_url", "same_url", "with_scheme"]

TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid",
        "li_fat_id", "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "hsctatracking",
        "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "vero_conv", "wickedid", "rb_clickid", "s_cid",
        "ref_src", "spm", "scm",
    }
)  # fmt: skip
"""Query parameters that only say how a visitor arrived (compared in lower case)."""
TRACKING_PREFIXES = ("utm_", "mtm_", "pk_", "hsa_")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_ASCII_PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))
"""Left as written when a path is put in sent form: only other characters (non-ASCII) are escaped."""
# What may not be part of a URL in running text: space, quotes and angle brackets, backticks,
# and the CJK punctuation that follows a URL without a space in Chinese and Japanese text.
_URL = re.compile(r"""https?://[^\s<>"'`\[\]，。、；：！？）】」』》\x00-\x1f\x7f]+""", re.IGNORECASE)
_TOKEN = re.compile(r"""[^\s<>"'`()\[\]{}，。、；：！？（）【】「」『』《》\x00-\x1f\x7f]+""")
_TRAILING = ".,;:!?…*_~'\""
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?!\d)")
"""`mailto:`, `file:`, `https:`; not `localhost:8080`."""
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_TLD = re.compile(r"[a-z]{2,63}|xn--[a-z0-9-]{1,59}")


@dataclass(frozen=True)
class FoundUrl:
    """A URL found in text: where it is (`start`/`end` in the text) and the URL itself."""

    start: int
    end: int
    url: str
    bare: bool = False
    """Written without a scheme (`example.com/page`); `url` then starts with http://."""


def is_web_url(url: str) -> bool:
    """An http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        return parts.scheme.lower() in _DEFAULT_PORTS and bool(parts.hostname)
    except ValueError:
        return False


def with_scheme(url: str) -> str:
    """A URL as typed, with `https://` put in front when it has no scheme (`example.com/a`,
    `localhost:8000`); a URL with a scheme, or a path, stays as it is."""
    stripped = url.strip()
    if _SCHEME.match(stripped) or stripped.startswith(("/", ".")):
        return stripped
    return f"https://{stripped}"


def _host(hostname: str) -> str:
    host = hostname.rstrip(".").lower()
    with contextlib.suppress(UnicodeError):  # not IDNA-encodable (an empty label): compare it as written
        host = host.encode("idna").decode("ascii")
    return host.removeprefix("www.")


def _unescape_unreserved(text: str) -> str:
    """%41 -> A for characters that never need escaping; other escapes in upper case."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(fix, text)


def _path(path: str) -> str:
    # a raw `/wiki/元宵节` is sent as its UTF-8 escapes: the same page as `/wiki/%E5%85%83...`
    segments: list[str] = []
    for segment in _unescape_unreserved(quote(path, safe=_ASCII_PRINTABLE)).split("/"):
        if segment == "..":
            if len(segments) > 1:
                segments.pop()
        elif segment != ".":
            segments.append(segment)
    normalised = "/".join(segments)
    if not normalised.startswith("/"):
        normalised = "/" + normalised
    return normalised.rstrip("/") or "/"


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """The key two URLs of the same page share (see the module docstring). A string that is
    not an http(s) URL is returned stripped, so it still compares equal only to itself."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return text
        port = parts.port
    except ValueError:  # a malformed port or IPv6 literal
        return text
    host = _host(parts.hostname)
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port not in _DEFAULT_PORTS.values():
        host = f"{host}:{port}"
    pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    query = urlencode(sorted(pairs), quote_via=quote, safe="/:@!$'()*,;~")
    return f"https://{host}{_path(parts.path)}" + (f"?{query}" if query else "")


def same_url(a: str, b: str) -> bool:
    return canonical_url(a) == canonical_url(b)


def _trim(candidate: str) -> str:
    """Drop punctuation that ends the sentence rather than the URL, and a closing bracket
    that has no opening one inside the URL (`(see https://x.example/a)`)."""
    opening = {")": "(", "]": "[", "}": "{"}
    counts = {char: candidate.count(char) for char in "()[]{}"}
    end = len(candidate)
    while end:
        last = candidate[end - 1]
        unbalanced = last in opening and counts[opening[last]] < counts[last]
        if last not in _TRAILING and not unbalanced:
            break
        if last in counts:
            counts[last] -= 1
        end -= 1
    return candidate[:end]


def _looks_like_host(token: str) -> bool:
    host = token.split("/", 1)[0].split(":", 1)[0].lower().rstrip(".")
    labels = host.split(".")
    if len(labels) < 2 or "@" in token or not _TLD.fullmatch(labels[-1]):
        return False
    return all(_LABEL.fullmatch(label) for label in labels)


def find_urls(text: str, *, bare: bool = False) -> list[FoundUrl]:
    """The http(s) URLs in `text`, in order; with `bare`, also host names written without a
    scheme (`example.com`, `www.example.com/page`), as http:// URLs."""
    found: list[FoundUrl] = []
    for match in _URL.finditer(text):
        url = _trim(match.group())
        if is_web_url(url):
            found.append(FoundUrl(match.start(), match.start() + len(url), url))
    if not bare:
        return found
    taken = [(f.start, f.end) for f in found]
    for match in _TOKEN.finditer(text):
        token = _trim(match.group())
        if "://" in token or "." not in token or not _looks_like_host(token):
            continue
        if any(start <= match.start() < end for start, end in taken):
            continue
        found.append(FoundUrl(match.start(), match.start() + len(token), "http://" + token, bare=True))
    return sorted(found, key=lambda f: f.start)
