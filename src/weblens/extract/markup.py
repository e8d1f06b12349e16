"""What a page says about itself in markup: JSON-LD, microdata, RDFa, OpenGraph, key/value tables.

Read with lxml from the HTML weblens already fetched (no request of its own). `extruct` was
not used: it pulls eleven packages (rdflib, pyrdfa3, html5lib, beautifulsoup4, requests...)
and pyRdfa can fetch vocabulary documents with urllib, outside the guarded client.
Every value becomes a `Candidate`: its source, the path of property names leading to it
(`("Product", "offers", "price")`) and the value as written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from lxml import html as lxml_html  # type: ignore[import-untyped]

from weblens.extract.visible import INVISIBLE, visible_text
from weblens.fetch.html import parse_html, wall_of

__all__ = ["Candidate", "MarkupSource", "page_text", "read_html", "read_markup"]

MarkupSource = Literal["json-ld", "microdata", "rdfa", "opengraph", "table"]
MAX_CANDIDATES = 5_000
"""A hostile page may declare millions of values; the first few thousand are plenty."""
MAX_DEPTH = 12
MAX_SCRIPT_CHARS = 1_000_000
MAX_VALUE_CHARS = 5_000
_OG_PREFIXES = ("og:", "product:", "article:", "book:", "profile:", "music:", "video:", "twitter:")
_URL_ATTRS = {"a": "href", "link": "href", "area": "href", "img": "src", "audio": "src", "video": "src",
              "source": "src", "embed": "src", "iframe": "src", "object": "data"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Candidate:
    """One value the markup declares, under the names that lead to it."""

    source: MarkupSource
    path: tuple[str, ...]
    value: str | int | float | bool


def _bare(name: str) -> str:
    """`schema:price` or `https://schema.org/price` -> `price`."""
    return name.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].rsplit("#", 1)[-1]


def _clip(text: str) -> str:
    return " ".join(text.translate(INVISIBLE).split())[:MAX_VALUE_CHARS]


def _json_ld(tree: lxml_html.HtmlElement) -> Iterator[Candidate]:
    for script in tree.iter("script"):
        if (script.get("type") or "").split(";")[0].strip().lower() != "application/ld+json":
            continue
        text = (script.text or "")[:MAX_SCRIPT_CHARS]
        try:
            data = json.loads(text, strict=False, parse_constant=lambda _: None)  # NaN, Infinity: no value
        except (ValueError, RecursionError):
            continue  # a broken (or absurdly nested) block is the page's problem; the rest still counts
        yield from _walk_json(data, (), 0)


def _walk_json(node: Any, path: tuple[str, ...], depth: int) -> Iterator[Candidate]:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, list):
        for item in node:
            yield from _walk_json(item, path, depth + 1)
    elif isinstance(node, dict):
        kind = node.get("@type")
        here = path or ((_bare(kind[0] if isinstance(kind, list) and kind else str(kind)),) if kind else ())
        for key, value in node.items():
            if key == "@graph":
                yield from _walk_json(value, (), depth + 1)
            elif key == "@value":
                yield from _walk_json(value, here, depth + 1)
            elif not key.startswith("@"):
                yield from _walk_json(value, (*here, _bare(key)), depth + 1)
    elif isinstance(node, bool | int | float) and path:
        yield Candidate("json-ld", path, node)
    elif isinstance(node, str) and path and node.strip():
        yield Candidate("json-ld", path, _clip(node))


def _element_value(element: lxml_html.HtmlElement) -> str:
    tag = element.tag if isinstance(element.tag, str) else ""
    for attr in ("content", "datetime", "value"):
        if element.get(attr) is not None and (attr != "value" or tag in ("data", "meter")):
            return _clip(element.get(attr) or "")
    if tag in _URL_ATTRS and element.get(_URL_ATTRS[tag]):
        return _clip(element.get(_URL_ATTRS[tag]) or "")
    return _clip(element.text_content())


def _scoped(element: lxml_html.HtmlElement, prop: str, scope: str) -> tuple[str, ...]:
    """The names of the items `element` sits in (outermost first), then its own property."""
    names = [_bare(prop)]
    parent = element.getparent()
    while parent is not None and len(names) < MAX_DEPTH:
        if parent.get(scope) is not None:
            names.append(_bare(parent.get("itemprop") or parent.get("property") or parent.get("typeof") or
                               parent.get("itemtype") or "item"))  # fmt: skip
        parent = parent.getparent()
    return tuple(reversed(names))


def _microdata(tree: lxml_html.HtmlElement) -> Iterator[Candidate]:
    for element in tree.iter():
        prop = element.get("itemprop") if isinstance(element.tag, str) else None
        if prop and element.get("itemscope") is None:
            for name in prop.split():
                yield Candidate("microdata", _scoped(element, name, "itemscope"), _element_value(element))


def _rdfa_and_opengraph(tree: lxml_html.HtmlElement) -> Iterator[Candidate]:
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        prop = element.get("property") or (element.get("name") if element.tag == "meta" else None)
        if not prop:
            continue
        for name in prop.split():
            if name.lower().startswith(_OG_PREFIXES):
                if element.get("content"):
                    yield Candidate("opengraph", tuple(name.lower().split(":")), _clip(element.get("content") or ""))
            elif element.get("property") and element.get("typeof") is None:
                yield Candidate("rdfa", _scoped(element, name, "typeof"), _element_value(element))


def _tables(tree: lxml_html.HtmlElement) -> Iterator[Candidate]:
    """Two-cell rows (`Price | 1,299`), a header row over one data row, and `<dl>` terms."""
    for table in tree.iter("table"):
        rows = [[_clip(cell.text_content()) for cell in row if cell.tag in ("th", "td")] for row in table.iter("tr")]
        rows = [row for row in rows if row]
        if len(rows) == 2 and len(rows[0]) == len(rows[1]) > 2:
            for key, value in zip(rows[0], rows[1], strict=True):
                if key and value:
                    yield Candidate("table", (key,), value)
            continue
        for row in rows:
            if len(row) == 2 and row[0] and row[1]:
                yield Candidate("table", (row[0].rstrip(":"),), row[1])
    for listing in tree.iter("dl"):
        term = ""
        for child in listing.iter("dt", "dd"):
            if child.tag == "dt":
                term = _clip(child.text_content()).rstrip(":")
            elif term:
                yield Candidate("table", (term,), _clip(child.text_content()))


def read_html(html: str) -> tuple[list[Candidate], str, str | None]:
    """(every value the page declares, the text it shows, `bot_challenge`/`consent_wall` when the page is a
    wall a site serves instead of the page, as `web_fetch` reads it); CPU work, run in a worker."""
    tree = parse_html(html)
    if tree is None:
        return [], "", None
    text = visible_text(tree)
    wall = wall_of(tree, text)  # before the markup is read from the same tree
    return read_markup(tree), text, wall


def page_text(html: str) -> str:
    """The visible text evidence offsets point into: `page_text(html)[e.start:e.end] == e.quote`."""
    return read_html(html)[1]


def read_markup(tree: lxml_html.HtmlElement) -> list[Candidate]:
    """Every value the page declares, best-kept sources first (JSON-LD, microdata, RDFa, OpenGraph, tables)."""
    found: list[Candidate] = []
    for reader in (_json_ld, _microdata, _rdfa_and_opengraph, _tables):
        for candidate in reader(tree):
            if len(found) >= MAX_CANDIDATES:
                break
            if candidate.value != "":
                found.append(candidate)
    order = {"json-ld": 0, "microdata": 1, "rdfa": 2, "opengraph": 3, "table": 4}
    return sorted(found, key=lambda c: order[c.source])
