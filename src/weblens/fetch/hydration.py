"""Text from the data a page ships for its scripts: Next.js `__NEXT_DATA__`, JSON-LD, other JSON.

A JavaScript application often sends an empty body and the whole content as JSON for the
browser to render. When the body is such a shell, the prose in that JSON is the page:
strings that read as sentences (several words, mostly letters), HTML fragments turned
into text, in the order the data lists them, each once. Keys, ids, URLs, class names and
other machine strings are left out by their shape, not by any site's field names.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import repeat
from typing import Any

from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.fetch.markdown import element_markdown
from weblens.fetch.markup import bound_markup

__all__ = ["hydration_text"]

_JSON_TYPES = frozenset({"application/json", "application/ld+json"})
_MAX_JSON_CHARS = 5 * 1024 * 1024
_MAX_DEPTH = 64
_MIN_WORDS = 4
_MIN_CHARS = 2 * _MIN_WORDS - 1  # the shortest string of that many words
# Prose is mostly letters and spaces; ids, hashes, CSS and code are not.
_MIN_LETTER_SHARE = 0.7
_HEADLINE_KEYS = frozenset({"headline", "title", "name"})
_CONTAINERS = (dict, list)


def _prose(value: str) -> str | None:
    """The text of a string that reads as prose (HTML fragments converted), else None."""
    if len(value) < _MIN_CHARS:  # most strings of a payload are ids, flags and names: told without a split
        return None
    text = value.strip()
    if not text or text.startswith(("http://", "https://", "/", "{", "[")):
        return None
    if "<" in text and ">" in text:
        try:
            text = element_markdown(lxml_html.fragment_fromstring(bound_markup(text), create_parent="div"))
        except (etree.ParserError, ValueError):
            return None
    if len(text.split(maxsplit=_MIN_WORDS)) < _MIN_WORDS:
        return None
    # letters and spaces, counted in C (a generator over the characters was a third of a shell page's time)
    letters = sum(map(str.isalpha, text)) + sum(map(str.isspace, text))
    return text if letters >= _MIN_LETTER_SHARE * len(text) else None


def _children(data: dict[str, Any] | list[Any]) -> Iterator[tuple[str, Any]]:
    return iter(data.items()) if type(data) is dict else zip(repeat(""), data)  # JSON keys are strings


def _strings(data: Any) -> Iterator[tuple[str, str]]:
    """(key, string) pairs in document order, depth-bounded (hostile JSON nests deep). An explicit stack: nested
    generators passed each string up through every level (64 levels made a 4 MB payload 4x slower). The values
    are what `json.loads` makes, so their exact type tells a container."""
    stack = [_children(data)] if type(data) in _CONTAINERS else []
    while stack:
        for key, value in stack[-1]:
            if type(value) is str:
                yield key, value
            elif type(value) in _CONTAINERS and len(stack) <= _MAX_DEPTH:
                stack.append(_children(value))
                break
        else:
            stack.pop()


def _payloads(tree: etree._Element) -> Iterator[Any]:
    for script in tree.iter("script"):
        kind = (script.get("type") or "").strip().lower()
        if kind not in _JSON_TYPES and script.get("id") != "__NEXT_DATA__":
            continue
        text = script.text or ""
        if not text.strip() or len(text) > _MAX_JSON_CHARS:
            continue
        try:
            yield json.loads(text)
        except (ValueError, RecursionError):
            continue


def hydration_text(tree: etree._Element) -> str:
    """The prose of the page's JSON payloads as paragraphs (empty when there is none)."""
    seen: set[str] = set()
    paragraphs: list[str] = []
    for payload in _payloads(tree):
        for key, value in _strings(payload):
            text = _prose(value)
            if text is None or text in seen:
                continue
            seen.add(text)
            paragraphs.append(f"# {text}" if key in _HEADLINE_KEYS and not paragraphs else text)
    return "\n\n".join(paragraphs)
