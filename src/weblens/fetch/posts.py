"""A discussion thread as its posts, each under its author line: read from schema.org microdata.

Forum and Q&A software (Discourse, XenForo, phpBB, NodeBB, Stack Exchange, ...) marks each
post up as a schema.org `DiscussionForumPosting`, `Question`, `Answer` or `Comment` with
its `author`, `datePublished` and `text` — the markup search engines read. Main-content
extraction keeps the words of such a thread but drops who said them; this rebuilds the
thread from that markup as markdown (author line, then the post with its code and tables).
An opening post that only the page's JSON-LD describes is taken from there. A reply's long
quote of what the thread already shows (forum software quotes whole posts) is left out: it
repeats text the reader has just read; a short quote, which says what the reply answers, stays.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.markdown import element_markdown

__all__ = ["ld_objects", "thread_markdown", "without_repeated_quotes"]

_THREAD_TYPES = frozenset({"DiscussionForumPosting", "Question", "QAPage"})
_POST_TYPES = frozenset({"DiscussionForumPosting", "Question", "Answer", "Comment", "SocialMediaPosting"})
_BODY_PROPS = frozenset({"text", "articleBody"})
_DATE_PROPS = ("datePublished", "dateCreated")
# A thread has at least this many posts with a body of their own; past the cap the rest are left out.
_MIN_POSTS = 2
_MAX_POSTS = 500
_MAX_LD_DEPTH = 8
# A quote of at least this many words, this share of them already shown above, repeats the thread.
# bench/extraction.py, forum pages: F1 0.699 -> 0.705 (fold 0 +0.003, fold 1 +0.009), no other type changes.
_LONG_QUOTE_WORDS = 25
_REPEATED_SHARE = 0.8
# A machine timestamp (ISO 8601 date and time, as in `datetime` / `content` attributes) is shown as its
# day: the reader needs when a post was written, the seconds and zone offset are noise between posts.
# bench/extraction.py, forum pages: fold 0 0.717 -> 0.722, fold 1 0.688 -> 0.694, no other type changes.
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d)[T ]\d\d:\d\d\S*")
# Every element that starts a schema.org item, and every property, in document order (XPath: no Python loop over
# the page).
_ITEMS = etree.XPath("descendant-or-self::*[@itemscope]")
_PROPS = etree.XPath("descendant-or-self::*[@itemprop]")
# Posts hold the page's words once: past this many times the characters the page shows (and `_MIN_ROOM`), posts
# are nested in other posts' bodies, each repeating all below it (a hostile page: output of the nesting depth
# times the page), and no more are read.
_MAX_SHOWN_TIMES = 4
_MIN_ROOM = 10_000


def _kind(element: etree._Element) -> str:
    itemtype = element.get("itemtype") or ""
    return itemtype.rstrip("/").rsplit("/", 1)[-1]


class _Items:
    """The page's schema.org items: the item each element belongs to, and each item's own properties. Found in one
    pass over the properties, each element on the way to its item asked once (asking every post for its
    descendants, and every property for its item, cost the nesting depth times the page: seconds on a page of
    posts nested in posts)."""

    def __init__(self, tree: etree._Element) -> None:
        self._owners: dict[etree._Element, etree._Element | None] = {}
        self._qa: dict[etree._Element, bool] = {}
        self.props: dict[etree._Element, list[etree._Element]] = {}
        for element in _PROPS(tree):
            owner = self.owner(element)
            if owner is not None:
                self.props.setdefault(owner, []).append(element)

    def owner(self, element: etree._Element) -> etree._Element | None:
        """The nearest enclosing item (the post a property belongs to)."""
        path: list[etree._Element] = []
        parent = element.getparent()
        found: etree._Element | None = None
        while parent is not None:
            if parent in self._owners:
                found = self._owners[parent]
                break
            if parent.get("itemscope") is not None:
                found = parent
                break
            path.append(parent)
            parent = parent.getparent()
        self._owners.update(dict.fromkeys(path, found))
        return found

    def _in_qa(self, item: etree._Element) -> bool:
        """Whether an item sits, at any depth, inside a question or an answer."""
        path: list[etree._Element] = []
        owner = self.owner(item)
        found = False
        while owner is not None:
            if _kind(owner) in ("Question", "Answer"):
                found = True
                break
            if owner in self._qa:  # known: whether one above it is
                found = self._qa[owner]
                break
            path.append(owner)
            owner = self.owner(owner)
        self._qa[item] = found
        self._qa.update(dict.fromkeys(path, found))
        return found

    def remark(self, post: etree._Element) -> bool:
        """A comment on a question or an answer (a Q&A page's aside, not one of its posts)."""
        return _kind(post) == "Comment" and self._in_qa(post)

    def own(self, item: etree._Element, names: frozenset[str] | tuple[str, ...]) -> list[etree._Element]:
        """The item's own properties with these names (not those of items nested in it), in document order."""
        return [e for e in self.props.get(item, ()) if any(name in e.get("itemprop").split() for name in names)]


def _value(element: etree._Element, items: _Items) -> str:
    for attribute in ("content", "datetime", "title"):
        value = element.get(attribute)
        if value:
            return " ".join(value.split())
    if element.get("itemscope") is not None:  # an author Person: its name
        names = [e for e in items.props.get(element, ()) if e.get("itemprop") == "name"]
        if names:
            return _value(names[0], items)
    return " ".join(element.text_content().split())


def _author_line(author: str, date: str) -> str:
    day = _TIMESTAMP.fullmatch(date)
    if day:
        date = day.group(1)
    return f"**{author}**{' · ' + date if date else ''}" if author else ""


def _post_author(post: etree._Element, items: _Items) -> str:
    authors = items.own(post, ("author",))
    dates = items.own(post, _DATE_PROPS)
    return _author_line(_value(authors[0], items) if authors else "", _value(dates[0], items) if dates else "")


def ld_objects(data: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every object of a JSON-LD payload, its `@graph` and its `mainEntity` (depth-bounded)."""
    if depth > _MAX_LD_DEPTH:
        return
    if isinstance(data, list):
        for item in data:
            yield from ld_objects(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        for key in ("@graph", "mainEntity"):
            if key in data:
                yield from ld_objects(data[key], depth + 1)


def _ld_name(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("name", "")
    return " ".join(str(value).split())


def _opening_post(tree: etree._Element) -> str:
    """The thread's first post from its JSON-LD, where forum software often puts only that one."""
    for script in tree.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except (ValueError, RecursionError):
            continue
        for item in ld_objects(data):
            kinds = item.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            text = item.get("text") or item.get("articleBody")
            if not (set(map(str, kinds)) & _THREAD_TYPES and isinstance(text, str) and text.strip()):
                continue
            date = str(item.get("datePublished") or item.get("dateCreated") or "")
            paragraphs = [" ".join(p.split()) for p in text.split("\n") if p.strip()]
            return "\n\n".join([_author_line(_ld_name(item.get("author")), date), *paragraphs]).strip()
    return ""


def thread_markdown(tree: etree._Element, title: str, shown_chars: int) -> str | None:
    """The thread as markdown (title, then each post under its author line), or None when the page is not one.
    `shown_chars`, the length of the text the page shows, bounds the posts read (`_MAX_SHOWN_TIMES`)."""
    found = _ITEMS(tree)
    kinds = {_kind(e) for e in found}
    if not kinds & _POST_TYPES:
        return None
    items = _Items(tree)
    posts = [e for e in found if _kind(e) in _POST_TYPES and not items.remark(e)][:_MAX_POSTS]
    bodies: list[tuple[etree._Element, etree._Element]] = []
    for post in posts:
        own = items.own(post, _BODY_PROPS)
        if own:
            bodies.append((post, own[0]))
    if len(bodies) < _MIN_POSTS or not (kinds & _THREAD_TYPES or all(_kind(p) == "Comment" for p, _ in bodies)):
        return None
    parts = [f"# {title}"] if title else []
    if not any(_kind(p) in _THREAD_TYPES for p, _ in bodies):  # the opening post carries no microdata
        parts.append(_opening_post(tree))
    room = _MAX_SHOWN_TIMES * shown_chars + _MIN_ROOM
    for post, body in bodies:
        if room < 0:
            break
        post_parts = [_post_author(post, items), element_markdown(body)]
        parts += post_parts
        room -= sum(map(len, post_parts))
    return "\n\n".join(part for part in parts if part)


def without_repeated_quotes(markdown: str) -> str:
    """A thread's markdown without the long quotes of text it already showed above them (code left alone)."""
    shown: Counter[str] = Counter()
    lines = markdown.split("\n")
    kept: list[str] = []
    fenced = False
    start = 0
    while start < len(lines):
        end = start
        while not fenced and end < len(lines) and lines[end].startswith(">"):
            end += 1
        if end == start:  # not a quote
            line = lines[start]
            fenced ^= line.lstrip().startswith("```")
            kept.append(line)
            shown.update(line.lower().split())
            start += 1
            continue
        quoted = Counter(" ".join(line.lstrip("> ") for line in lines[start:end]).lower().split())
        words = quoted.total()
        if words >= _LONG_QUOTE_WORDS and (quoted & shown).total() >= _REPEATED_SHARE * words:
            if kept and not kept[-1] and end < len(lines) and not lines[end]:
                end += 1  # one blank line where the quote was
        else:
            kept += lines[start:end]
        start = end
    return "\n".join(kept).strip("\n")
