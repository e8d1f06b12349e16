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
# Every element that starts a schema.org item, in document order (an XPath: no Python loop over the page).
_ITEMS = etree.XPath("descendant-or-self::*[@itemscope]")


def _kind(element: etree._Element) -> str:
    itemtype = element.get("itemtype") or ""
    return itemtype.rstrip("/").rsplit("/", 1)[-1]


def _owner(element: etree._Element) -> etree._Element | None:
    """The nearest enclosing item (the post a property belongs to)."""
    parent = element.getparent()
    while parent is not None and parent.get("itemscope") is None:
        parent = parent.getparent()
    return parent


def _remark(post: etree._Element) -> bool:
    """A comment on a question or an answer (a Q&A page's aside, not one of its posts)."""
    if _kind(post) != "Comment":
        return False
    owner = _owner(post)
    while owner is not None:
        if _kind(owner) in ("Question", "Answer"):
            return True
        owner = _owner(owner)
    return False


def _props(post: etree._Element, names: frozenset[str] | tuple[str, ...]) -> list[etree._Element]:
    """The post's own properties with these names (not those of items nested in it)."""
    found = []
    for element in post.iterdescendants():
        prop = element.get("itemprop")
        if prop and any(name in prop.split() for name in names) and _owner(element) is post:
            found.append(element)
    return found


def _value(element: etree._Element) -> str:
    for attribute in ("content", "datetime", "title"):
        value = element.get(attribute)
        if value:
            return " ".join(value.split())
    if element.get("itemscope") is not None:  # an author Person: its name
        names = [e for e in element.iterdescendants() if e.get("itemprop") == "name" and _owner(e) is element]
        if names:
            return _value(names[0])
    return " ".join(element.text_content().split())


def _author_line(author: str, date: str) -> str:
    day = _TIMESTAMP.fullmatch(date)
    if day:
        date = day.group(1)
    return f"**{author}**{' · ' + date if date else ''}" if author else ""


def _post_author(post: etree._Element) -> str:
    authors = _props(post, ("author",))
    dates = _props(post, _DATE_PROPS)
    return _author_line(_value(authors[0]) if authors else "", _value(dates[0]) if dates else "")


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


def thread_markdown(tree: etree._Element, title: str) -> str | None:
    """The thread as markdown (title, then each post under its author line), or None when the page is not one."""
    items = _ITEMS(tree)
    kinds = {_kind(e) for e in items}
    posts = [e for e in items if _kind(e) in _POST_TYPES and not _remark(e)][:_MAX_POSTS]
    bodies: list[tuple[etree._Element, etree._Element]] = []
    for post in posts:
        own = _props(post, _BODY_PROPS)
        if own:
            bodies.append((post, own[0]))
    if len(bodies) < _MIN_POSTS or not (kinds & _THREAD_TYPES or all(_kind(p) == "Comment" for p, _ in bodies)):
        return None
    parts = [f"# {title}"] if title else []
    if not any(_kind(p) in _THREAD_TYPES for p, _ in bodies):  # the opening post carries no microdata
        parts.append(_opening_post(tree))
    for post, body in bodies:
        parts += [_post_author(post), element_markdown(body)]
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
