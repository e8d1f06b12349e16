"""Which URLs belong to a site walk: same site, path filters, and the shapes of crawler traps.

Path filters are shell-style globs (`fnmatch`: `*` also crosses `/`), matched against the URL's
path; never regexes, so a filter a model writes cannot backtrack for ever.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Sequence
from urllib.parse import urlsplit

from weblens.errors import ToolValidationError
from weblens.urls import is_web_url

__all__ = ["MAX_URL_CHARS", "NOT_PAGES", "Scope", "trap", "variant_of"]

MAX_URL_CHARS = 1_000
"""Longer URLs are almost always generated (session ids, calendars, facets), not pages."""
MAX_SEGMENT_REPEATS = 2
"""`/a/b/a/b/a/b`: a path that names the same segment a third time is a relative-link loop."""
MAX_QUERY_PARAMS = 4
MAX_FILTERS = 50
MAX_FILTER_CHARS = 300
NOT_PAGES = frozenset(
    {
        "mp3", "wav", "ogg", "oga", "opus", "flac", "m4a", "aac", "wma", "mid", "midi",  # audio
        "mp4", "m4v", "webm", "mov", "avi", "mkv", "wmv", "flv", "mpg", "mpeg", "3gp", "ogv",  # video
        "zip", "tar", "gz", "tgz", "bz2", "xz", "txz", "7z", "rar", "zst", "lz", "lzma", "cab",  # archives
        "exe", "msi", "dmg", "pkg", "deb", "rpm", "apk", "ipa", "iso", "img", "bin", "jar", "whl",  # programs
        "woff", "woff2", "ttf", "otf", "eot",  # fonts
    }
)  # fmt: skip
"""Extensions of files no reader of weblens reads: a crawl that followed a downloads page's links
fetched each (up to `fetch.max_bytes`) only to list it as `unsupported_content`, spending its
download budget; they are skipped as `not_a_page` before any request."""


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def _checked(patterns: Sequence[str], name: str) -> tuple[str, ...]:
    if len(patterns) > MAX_FILTERS:
        raise ToolValidationError(f"{name}: at most {MAX_FILTERS} patterns")
    for pattern in patterns:
        if not pattern or len(pattern) > MAX_FILTER_CHARS:
            raise ToolValidationError(f"{name}: each glob must have 1 to {MAX_FILTER_CHARS} characters")
    return tuple(patterns)


class Scope:
    """The start URL's site (its host, or with `subdomains` any host under it) and the filters."""

    def __init__(
        self,
        start_url: str,
        *,
        subdomains: bool = False,
        include_paths: Sequence[str] = (),
        exclude_paths: Sequence[str] = (),
    ) -> None:
        if not is_web_url(start_url):
            raise ToolValidationError(f"not an http(s) URL: {start_url[:200]}")
        self.host = _host(start_url)
        self.subdomains = subdomains
        self.include = _checked(include_paths, "include_paths")
        self.exclude = _checked(exclude_paths, "exclude_paths")

    def moved_to(self, url: str) -> Scope:
        """The same walk on the site a start URL redirected to (`old.example` -> `new.example`): the
        site moved, and what the caller asked for is where it now is."""
        return Scope(url, subdomains=self.subdomains, include_paths=self.include, exclude_paths=self.exclude)

    def on_site(self, url: str) -> bool:
        if not is_web_url(url):
            return False
        host = _host(url)
        return host == self.host or (self.subdomains and host.endswith("." + self.host))

    def wanted(self, url: str) -> bool:
        """On the site and through the path filters."""
        if not self.on_site(url):
            return False
        path = urlsplit(url).path or "/"
        if self.include and not any(fnmatch.fnmatchcase(path, p) for p in self.include):
            return False
        return not any(fnmatch.fnmatchcase(path, p) for p in self.exclude)

    def refusal(self, url: str) -> str | None:
        """Why a link found on a page is not followed (off_site, filtered, not_a_page, trap), or None."""
        if not self.on_site(url):
            return "off_site"
        if not self.wanted(url):
            return "filtered"
        if _extension(url) in NOT_PAGES:
            return "not_a_page"
        return "trap" if trap(url) is not None else None


def _extension(url: str) -> str:
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def variant_of(key: str) -> str | None:
    """The host and path a canonical URL with a query is a variant of (None without a query):
    a walk reads at most a few variants of one path (a calendar's ?month=, a shop's facets)."""
    parts = urlsplit(key)
    return f"{parts.netloc}{parts.path}" if parts.query else None


def trap(url: str) -> str | None:
    """Why `url` looks like a crawler trap, or None."""
    if len(url) > MAX_URL_CHARS:
        return f"URL longer than {MAX_URL_CHARS} characters"
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if segments and max(Counter(segments).values()) > MAX_SEGMENT_REPEATS:
        return "a path segment repeats"
    if parts.query.count("&") + 1 > MAX_QUERY_PARAMS and parts.query:
        return f"more than {MAX_QUERY_PARAMS} query parameters"
    return None
