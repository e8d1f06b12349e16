"""Where a markdown renderer would make a link or load something from, found by parsing.

A text scan for `://` misses what renderers still turn into links: `https:/x`, `https:x`,
`https&#58;//x`, `//x`, reference definitions, `<https:/x>` autolinks, raw `<a href>` and
`<img src>`. `destinations` parses text as CommonMark with GFM's tables and strikethrough
and raw HTML on (markdown-it-py), finds the bare URLs GFM renderers link (`https://…`,
`www.…` whatever the top-level domain, e-mail addresses) in the text the parser leaves as
text, and reports every link, image, autolink, bare URL, reference definition and
URL-bearing HTML attribute: the
destination after unescaping (what a renderer puts in `href`/`src`; the browser then
resolves it per WHATWG, see `links.link_key`) and where in the text it was written, so a
caller can rewrite exactly that.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from weblens.urls import find_urls

__all__ = ["Destination", "MarkdownLinks"]

Kind = Literal["link", "image", "autolink", "linkify", "definition", "html"]

URL_ATTRIBUTES = frozenset(
    {"href", "src", "srcset", "action", "formaction", "poster", "background", "data", "cite", "longdesc", "ping",
     "xlink:href", "lowsrc", "dynsrc", "manifest", "codebase", "archive", "usemap", "icon", "imagesrcset"}
)  # fmt: skip
"""HTML attributes a browser follows or loads (`style` is checked for `url(` separately)."""


@dataclass(frozen=True)
class Destination:
    """One place a renderer would link to or load from."""

    kind: Kind
    url: str
    """The destination as the renderer would use it (escapes and entities undone)."""
    start: int
    end: int
    """Where the construct that makes it is written in the text; (-1, -1) when it cannot be told."""
    words: str = ""
    """The link text or image alt (plain text)."""


class _Parser(MarkdownIt):
    """markdown-it that keeps every destination as written (no scheme filter, no re-encoding):
    what is safe is decided afterwards by resolving it as a browser would."""

    def validateLink(self, url: str) -> bool:
        return True

    def normalizeLink(self, url: str) -> str:
        return url


_OPENING = ("link_open", "image", "html_inline")
_EMAIL = re.compile(r"[A-Za-z0-9._+-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")


def _bare_urls(text: str) -> list[tuple[str, str]]:
    """(as written, as linked) for each URL a GFM renderer links in plain text: scheme URLs,
    `www.` names, e-mail addresses (not `example.com` alone: GFM leaves it text)."""
    found = [
        (text[f.start : f.end], f.url)
        for f in find_urls(text, bare=True)
        if not f.bare or text[f.start : f.end].lower().startswith("www.")
    ]
    taken = [text.find(written) for written, _ in found]
    for match in _EMAIL.finditer(text):
        address = match.group().rstrip("._-")
        if not any(start <= match.start() < start + len(w) for start, (w, _) in zip(taken, found, strict=True)):
            found.append((address, "mailto:" + address))
    return found


def _mark_bare_urls(state: StateCore) -> None:
    """A core rule run where markdown-it's own linkify would run (escapes and entities are still
    separate tokens, so `https:\\/\\/x` is not taken for a URL): notes bare URLs on text tokens
    outside links."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        depth = 0
        for token in block.children:
            if token.type == "link_open":
                depth += 1
            elif token.type == "link_close":
                depth -= 1
            elif token.type == "html_inline":
                lowered = token.content.lower()
                if lowered.startswith(("<a ", "<a>", "<a\n")):
                    depth += 1
                elif lowered.startswith("</a"):
                    depth -= 1
            elif token.type == "text" and depth <= 0 and (urls := _bare_urls(token.content)):
                token.meta = {**(token.meta or {}), "bare": urls}


def _recording(rule: Any) -> Any:
    """An inline rule that also notes, on the token it opens, the source text it consumed."""

    def recorded(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        matched = bool(rule(state, silent))
        if matched and not silent:  # the first token is pending text flushed by the rule's push
            token = next((t for t in state.tokens[count:] if t.type in _OPENING), None)
            if token is not None:
                token.meta = {**(token.meta or {}), "source": state.src[start : state.pos]}
        return matched

    return recorded


class _Attributes(HTMLParser):
    """The URL-bearing attribute values (and CSS `url(`) in a piece of raw HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name.endswith("srcset"):  # `a.png 1x, b.png 2x`: each candidate's address
                self.urls.extend(part.split()[0] for part in value.split(",") if part.split())
            elif (
                name in URL_ATTRIBUTES
                or (name == "style" and ("url(" in value.lower() or "@import" in value.lower()))
                or (name == "content" and tag == "meta")
            ):
                self.urls.append(value)
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        if self._in_style and ("url(" in data.lower() or "@import" in data.lower()):
            self.urls.append(data)


def html_urls(html: str) -> list[str]:
    """The addresses raw HTML would make a browser follow or load. A tag left open at the end is
    reported whole: a browser reads on into whatever the renderer writes next, so its attributes
    cannot be known here."""
    parser = _Attributes()
    parser.feed(html)
    unfinished = parser.rawdata  # what HTMLParser holds back: a tag with no `>` yet
    parser.close()
    if re.match(r"<[A-Za-z]", unfinished):
        parser.urls.append(unfinished.strip())
    return parser.urls


def _plain(children: Sequence[Token], start: int) -> tuple[str, int]:
    """The text of a link or image's children from `start` to its close, and where that is."""
    depth, words, at = 0, [], start
    for at in range(start, len(children)):
        token = children[at]
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            if depth == 0:
                break
            depth -= 1
        elif token.type in ("text", "code_inline", "text_special"):
            words.append(token.content)
    return "".join(words), at


class MarkdownLinks:
    """A CommonMark (+GFM) parser configured to report destinations; one per answer."""

    def __init__(self) -> None:
        parser = _Parser("gfm-like", {"html": True, "inline_definitions": True, "linkify": False})
        parser.core.ruler.after("inline", "weblens_bare_urls", _mark_bare_urls)
        for name in ("link", "image", "autolink", "html_inline"):
            ruler = parser.inline.ruler
            ruler.at(name, _recording(ruler.__rules__[ruler.__find__(name)].fn))
        self._parser = parser
        self.last_block_start = 0
        """Where the last top-level block of the text last parsed begins (a line start)."""

    def destinations(self, text: str) -> list[Destination]:
        """Every destination in `text`, in the order written."""
        line_starts = [0]
        for line in text.split("\n")[:-1]:
            line_starts.append(line_starts[-1] + len(line) + 1)

        def span(lines: list[int] | None) -> tuple[int, int]:
            if not lines:
                return 0, len(text)
            first, last = lines
            return line_starts[min(first, len(line_starts) - 1)], (
                line_starts[last] - 1 if last < len(line_starts) else len(text)
            )

        found: list[Destination] = []
        tokens = self._parser.parse(text)
        starts = [token.map[0] for token in tokens if token.level == 0 and token.map and token.nesting >= 0]
        self.last_block_start = span([max(starts), max(starts)])[0] if starts else 0
        for token in tokens:
            block_start, block_end = span(token.map)
            if token.type == "definition":
                url = str((token.meta or {}).get("url", ""))
                found.append(Destination("definition", url, block_start, block_end))
            elif token.type == "html_block":
                found.extend(Destination("html", url, block_start, block_end) for url in html_urls(token.content))
            elif token.type == "inline" and token.children:
                found.extend(self._inline(text, token.children, block_start, block_end))
        return found

    def _inline(self, text: str, children: list[Token], block_start: int, block_end: int) -> Iterator[Destination]:
        cursor = block_start
        for at, token in enumerate(children):
            kind: Kind | None = None
            url, words, source = "", "", ""
            if token.type == "link_open":
                url = str(token.attrGet("href") or "")
                words, _ = _plain(children, at + 1)
                kind = "autolink" if token.markup == "autolink" else "link"
                source = str((token.meta or {}).get("source", ""))
            elif token.type == "image":
                url = str(token.attrGet("src") or "")
                words, _ = _plain(token.children or [], 0)
                kind, source = "image", str((token.meta or {}).get("source", ""))
            elif token.type == "text" and token.meta and "bare" in token.meta:
                for written, linked in token.meta["bare"]:
                    start = text.find(written, cursor, block_end)
                    if start >= 0:
                        cursor = start + len(written)
                    yield Destination("linkify", linked, start, start + len(written) if start >= 0 else -1, written)
                continue
            elif token.type == "html_inline":
                source = str((token.meta or {}).get("source", token.content))
                for html_url in html_urls(token.content):
                    start = text.find(source, cursor, block_end) if source else -1
                    yield Destination("html", html_url, start, start + len(source) if start >= 0 else -1)
                continue
            if kind is None:
                continue
            start = text.find(source, cursor, block_end) if source else -1
            if start >= 0:
                cursor = start + 1  # an image inside a link's text is found after the link's start
                yield Destination(kind, url, start, start + len(source), words)
            else:
                yield Destination(kind, url, -1, -1, words)
