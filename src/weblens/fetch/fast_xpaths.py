"""Python stand-ins for trafilatura's slowest XPath expressions: the same elements, in the
same order, in a third to a fifth of the time.

trafilatura picks and prunes a page's regions with XPath expressions that test class and id
attributes with EXSLT regular expressions (`re:test`). libxml2 calls back into Python for each
test on each candidate element, and these expressions took over half of trafilatura's fast
pass on both corpora (bench/stand_ins.py prints each one's time against its stand-in's).
A single walk over the element kinds an expression names, with the same tests written in
Python over the same regular expressions (lxml compiles `re:test` patterns with Python's `re`
too), each answer remembered per attribute value across walks (a page repeats its class names
hundreds of times, and trafilatura walks it a dozen times), returns the same list. A pattern every
match of which holds one of a few words (`cookie`, `consent`, ...) is asked only of a value holding
one: Python's `re` tries an alternation at every character, and most values hold none of the words.

Each stand-in was written against one exact expression: it replaces trafilatura's only while
that expression's source is unchanged (the first 32 bits of the SHA-256 of its text), and takes its regular
expressions from that source, so a trafilatura release that edits an expression keeps its own
XPath. `install` swaps them into trafilatura's lists in place (the modules that imported the
lists see the change); `stock` puts trafilatura's own back for a while (a benchmark's baseline).
tests/fetch/test_fast_xpaths.py checks each against its XPath on crafted and real pages.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from re import _constants as re_constants  # type: ignore[attr-defined]
from re import _parser as re_parser  # type: ignore[attr-defined]
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

__all__ = ["PORTS", "Port", "element_test", "forget", "install", "installed", "pairs", "source_digest", "stock"]

Element = Any  # an lxml element (lxml ships no types)
Selector = Callable[[Element], list[Element]]
Test = Callable[[str], bool]
Tests = list[Test]

# `re:test(@attr, 'pattern')` or `re:test(@a|@b, 'pattern', 'i')` in an expression's source, in order.
_RE_TEST = re.compile(r"re:test\(@[\w|@-]+, '([^']*)'(?:, '(\w*)')?\)")
_DISCARD_TAGS = ("div", "item", "list", "p", "section", "span")
_BODY_TAGS = ("article", "div", "main", "section")


def _tests(source: str) -> Tests:
    """For each `re:test` in `source`, in order, a yes-or-no search compiled as lxml compiles it (Python
    `re`; `i`: ignore case), each remembering its answers (`_memo`). An absent attribute is the empty
    string to XPath; none of the ported patterns matches it, so the callers test present attributes only."""
    return [_memo(_search(pattern, "i" in flags)) for pattern, flags in _RE_TEST.findall(source)]


# A pattern's search is asked first whether the value holds one of the words every match of the pattern holds,
# when there are at most this many: most class and id values hold none, and Python's `re` tries a long alternation
# at every character (a case-insensitive one at 1.6 us a value, ten times the words' test).
_MAX_WORDS = 8
_MIN_WORD_CHARS = 3


def _search(pattern: str, fold: bool) -> Callable[[str], Any]:
    """`re.compile(pattern).search` (`fold`: ignoring case), that first asks for `_required_words`: a value
    holding none of them cannot match. Ignoring case, the words are asked of an ASCII value in lower case; a
    value with other characters goes to the pattern (case folding beyond ASCII: `K` is the Kelvin sign's)."""
    search = re.compile(pattern, re.IGNORECASE if fold else 0).search
    words = _required_words(pattern)
    if words is None or len(words) > _MAX_WORDS or not all(word.isascii() for word in words):
        return search
    if fold:
        words = tuple(dict.fromkeys(word.lower() for word in words))

    def searched(value: str) -> Any:
        if fold and not value.isascii():
            return search(value)
        held = value.lower() if fold else value
        for word in words:
            if word in held:
                return search(value)
        return None

    return searched


def _required_words(pattern: str) -> tuple[str, ...] | None:
    """Words one of which every match of `pattern` holds, as written in it (None when none are found): the longest
    run of plain characters in its sequence, or each branch's words when it starts with a choice."""
    try:
        parsed = re_parser.parse(pattern)
    except (re.error, RecursionError, ValueError):
        return None
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):  # `(?i)` at its start: its words match in any case
        return None
    words = _words_of(list(parsed))
    if words is None or not all(words):
        return None
    kept = sorted(set(words), key=len)  # a word holding a shorter one adds nothing: the shorter is asked
    return tuple(word for i, word in enumerate(kept) if not any(short in word for short in kept[:i]))


_SKIPPED = (re_constants.AT, re_constants.ASSERT, re_constants.ASSERT_NOT)  # they match no characters


def _words_of(items: list[tuple[Any, Any]]) -> list[str] | None:
    runs, run = [], ""
    for op, value in items:
        if op is re_constants.LITERAL:
            run += chr(value)
            continue
        runs.append(run)
        run = ""
    runs.append(run)
    longest = max(runs, key=len)
    if len(longest) >= _MIN_WORD_CHARS:
        return [longest]
    first = next((item for item in items if item[0] not in _SKIPPED), None)
    if first is not None and first[0] is re_constants.BRANCH:
        found: list[str] = []
        for branch in first[1][1]:
            words = _words_of(list(branch))
            if words is None:
                return None
            found += words
        return found
    if first is not None and first[0] is re_constants.SUBPATTERN and not first[1][1] and not first[1][2]:
        return _words_of(list(first[1][3]))  # a group with no flags of its own
    return [longest] if longest else None


# A page repeats its class names on hundreds of elements and trafilatura walks each page a dozen times
# (both passes, their copies): answers are kept across walks and pages, a bounded number of short values
# (on both corpora a page has 175 distinct class values at the median, 1 101 at most, and 98 % of class and id
# values are at most 128 characters). At most 23 tests x 1 024 values: a few MB.
_MEMO_ENTRIES = 1024
_MEMO_VALUE_CHARS = 128


_memos: list[dict[str, bool]] = []


def _memo(search: Callable[[str], Any]) -> Test:
    """`search` as a yes or no, remembered per value (a long alternation costs more than a dictionary
    lookup); at most `_MEMO_ENTRIES` values of up to `_MEMO_VALUE_CHARS` characters are held."""
    seen: dict[str, bool] = {}
    _memos.append(seen)

    def test(value: str) -> bool:
        found = seen.get(value)
        if found is None:
            found = search(value) is not None
            if len(value) <= _MEMO_VALUE_CHARS:
                if len(seen) >= _MEMO_ENTRIES:
                    seen.clear()
                seen[value] = found
        return found

    return test


def _first_of(element: Element, one: str, other: str) -> str:
    """XPath's string value of `@one|@other`: the first of the two in the element's attribute order."""
    for key, value in element.items():
        if key in (one, other):
            return str(value)
    return ""


def _test_first(test: Callable[[str], bool], element: Element, names: tuple[str, str], values: tuple[Any, Any]) -> bool:
    """`test` on `@one|@other` (whose values are given, None when absent): the attribute order is read
    only when the two values disagree."""
    one, other = values
    if one is None or other is None:
        held = one if other is None else other
        return held is not None and test(held)
    first = test(one)
    return first if first == test(other) else test(_first_of(element, *names))


_ID_CLASS = ("id", "class")


def _overall_discard(source: str) -> Selector:
    cookie, by_id, by_class = _tests(source)

    def select(tree: Element) -> list[Element]:
        found = []
        for element in tree.iterdescendants(*_DISCARD_TAGS):
            get = element.get
            id_, class_ = get("id"), get("class")
            if (
                (id_ is not None and by_id(id_))
                or (class_ is not None and by_class(class_))
                or ((id_ is not None or class_ is not None) and _test_first(cookie, element, _ID_CLASS, (id_, class_)))
                or get("data-lp-replacement-content") is not None
                or "nav" in (get("role") or "").replace("N", "n")
                or "MostPopularStories" in (get("data-component") or "")
            ):
                found.append(element)
        return found

    return select


def _reply(value: str) -> bool:
    return value.startswith("reply-")


def _footer(value: str) -> bool:
    return "footer" in value


def _hidden_discard(source: str) -> Selector:
    hidden, by_id, by_class = _tests(source)

    def select(tree: Element) -> list[Element]:
        found = []
        for element in tree.iterdescendants(etree.Element):
            get = element.get
            id_, class_, style = get("id"), get("class"), get("style")
            if id_ is None and class_ is None and style is None:
                if get("aria-hidden") == "true":
                    found.append(element)
            elif (
                (class_ is not None and (class_ == "comments-title" or by_class(class_)))
                or (id_ is not None and by_id(id_))
                or _test_first(_reply, element, _ID_CLASS, (id_, class_))
                or _test_first(hidden, element, ("id", "style"), (id_, style))
                or (style is not None and ("display:none" in style or "display: none" in style))
                or get("aria-hidden") == "true"
            ):
                found.append(element)
        return found

    return select


def _named_twice(source: str, tags: tuple[str, ...], enough: Callable[[Element], bool]) -> Selector:
    """`.//*[tags][re:test(@id, A) or re:test(@class, B)][enough or re:test(@id, C) or re:test(@class, D)]`."""
    by_id, by_class, then_by_id, then_by_class = _tests(source)

    def select(tree: Element) -> list[Element]:
        found = []
        for element in tree.iterdescendants(*tags):
            id_, class_ = element.get("id"), element.get("class")
            if ((id_ is not None and by_id(id_)) or (class_ is not None and by_class(class_))) and (
                enough(element)
                or (id_ is not None and then_by_id(id_))
                or (class_ is not None and then_by_class(class_))
            ):
                found.append(element)
        return found

    return select


def _comments_and_lists(source: str) -> Selector:
    """Comment sections; an `ol` or `ul` only by the narrower patterns."""
    return _named_twice(
        source, ("div", "list", "section", "details", "ol", "ul"), lambda element: element.tag not in ("ol", "ul")
    )


def _appended_articles(source: str) -> Selector:
    """Infinite-scroll containers without a heading of their own; the named theme's ones always."""
    return _named_twice(
        source, ("div", "section", "aside"), lambda element: next(element.iterdescendants("h1"), None) is None
    )


def _share_buttons(source: str) -> Selector:
    def select(tree: Element) -> list[Element]:
        return [
            element
            for element in tree.iterdescendants("div", "section", "aside")
            if "elementor-share-buttons" in (element.get("class") or "")
        ]

    return select


def _article_body(source: str) -> Selector:
    """`.//*[…][1]`: per parent, its first child that matches (the caller reads the first in document order)."""
    by_id, by_class = _tests(source)

    def select(tree: Element) -> list[Element]:
        found, parents = [], set()
        for element in tree.iterdescendants(*_BODY_TAGS):
            get = element.get
            id_, class_ = get("id"), get("class")
            if (
                class_ == "post"
                or class_ == "entry"
                or get("itemprop") == "articleBody"
                or id_ == "articleContent"
                or (id_ is not None and by_id(id_))
                or (class_ is not None and by_class(class_))
            ):
                parent = element.getparent()
                if parent not in parents:
                    parents.add(parent)
                    found.append(element)
        return found

    return select


def _first(tests: Tests, matches: Callable[..., bool]) -> Selector:
    """`(.//*[self::article or self::div or self::main or self::section][…])[1]`: `matches(element, *tests)`."""

    def select(tree: Element) -> list[Element]:
        return next(([element] for element in tree.iterdescendants(*_BODY_TAGS) if matches(element, *tests)), [])

    return select


def _story_body(source: str) -> Selector:
    return _first(_tests(source), _story_matches)


def _story_matches(element: Element, by_id: Test, fulltext: Test, by_class: Test) -> bool:
    get = element.get
    id_, class_ = get("id"), get("class")
    return (
        get("role") == "article"
        or id_ in ("article", "story")
        or class_ in ("postarea", "art-postcontent", "text", "cell", "story")
        or (id_ is not None and by_id(id_))
        or (class_ is not None and (fulltext(class_) or by_class(class_)))
    )


_CM = str.maketrans("CM", "cm")
_CP = str.maketrans("CP", "cp")


def _main_content(source: str) -> Selector:
    return _first(_tests(source), _main_matches)


def _main_matches(element: Element, by_id: Test, by_class: Test) -> bool:
    id_, class_ = element.get("id"), element.get("class")
    return (id_ is not None and (id_ == "content" or by_id(id_) or "main-content" in id_.translate(_CM))) or (
        class_ is not None
        and (
            class_ == "content"
            or by_class(class_)
            or "main-content" in class_.translate(_CM)
            or "page-content" in class_.translate(_CP)
        )
    )


def _teasers(source: str) -> Selector:
    def select(tree: Element) -> list[Element]:
        return [
            element
            for element in tree.iterdescendants(*_DISCARD_TAGS)
            if "teaser" in (element.get("id") or "").replace("T", "t")
            or "teaser" in (element.get("class") or "").replace("T", "t")
        ]

    return select


def _captions(source: str) -> Selector:
    def select(tree: Element) -> list[Element]:
        return [
            element
            for element in tree.iterdescendants(*_DISCARD_TAGS)
            if "caption" in (element.get("id") or "") or "caption" in (element.get("class") or "")
        ]

    return select


_BASIC_CLEAN_TAGS = frozenset({"aside", "fencedframe", "footer", "script", "style", "svg", "template"})


class _EachElement:
    """A selector of the elements below a tree that `test` passes, one by one: an expression whose every step
    is `descendant::` with a test of the element alone. `test` answers for one element, for a walk that skips
    what the expression selects and reads the rest (fast_html2txt.py) without a second walk."""

    def __init__(self, test: Callable[[Element], bool]) -> None:
        self.test = test

    def __call__(self, tree: Element) -> list[Element]:
        test = self.test
        return [element for element in tree.iterdescendants(etree.Element) if test(element)]


def _basic_clean(source: str) -> Selector:
    by_class, by_id = _tests(source)

    def test(element: Element) -> bool:
        if element.tag in _BASIC_CLEAN_TAGS:
            return True
        id_, class_ = element.get("id"), element.get("class")
        return (id_ is not None or class_ is not None) and (
            (class_ is not None and by_class(class_))
            or (id_ is not None and by_id(id_))
            or (element.tag == "div" and _test_first(_footer, element, ("class", "id"), (class_, id_)))
        )

    return _EachElement(test)


@dataclass(frozen=True)
class Port:
    """One stand-in: where trafilatura keeps the expression (a list item, or a module attribute when
    `index` is None, rebound in each module that imported it), the digest (`source_digest`) of the
    source it was written against, and how to build it from that source."""

    module: str
    name: str
    index: int | None
    digest: str
    build: Callable[[str], Selector]
    importers: tuple[str, ...] = ()

    def current(self) -> Any:
        held = getattr(importlib.import_module(self.module), self.name)
        return held if self.index is None else held[self.index]


def _port(name: str, index: int | None, digest: str, build: Callable[[str], Selector], *importers: str) -> Port:
    module = "trafilatura.settings" if index is None else "trafilatura.xpaths"
    return Port(module, name, index, digest, build, importers)


PORTS = (
    _port("OVERALL_DISCARD_XPATH", 0, "a837e58a", _overall_discard),
    _port("OVERALL_DISCARD_XPATH", 1, "c1d5b70b", _hidden_discard),
    _port("REMOVE_COMMENTS_AND_LISTS_XPATH", 0, "9cc18d34", _comments_and_lists),
    _port("RAW_TREE_PRUNE_XPATH", 0, "01e7c660", _appended_articles),
    _port("RAW_TREE_PRUNE_XPATH", 1, "3c7afe92", _share_buttons),
    _port("BODY_XPATH", 0, "caaa561c", _article_body),
    _port("BODY_XPATH", 2, "6c9b5e1f", _story_body),
    _port("BODY_XPATH", 3, "10a7ceac", _main_content),
    _port("TEASER_DISCARD_XPATH", 0, "ebb02f06", _teasers),
    _port("DISCARD_IMAGE_ELEMENTS", 0, "cb1ab981", _captions),
    _port("BASIC_CLEAN_XPATH", None, "db6c25ac", _basic_clean, "trafilatura.baseline"),
)


def source_digest(expression: Any) -> str:
    """The first 8 hex digits of the SHA-256 of an XPath expression's source."""
    return hashlib.sha256(str(getattr(expression, "path", "")).encode()).hexdigest()[:8]


@dataclass
class _Swap:
    original: Any
    replacement: Selector
    test: Callable[[Element], bool] | None = None
    """The stand-in's test of one element, when it has one (`_EachElement`)."""


_swaps: dict[Port, _Swap] = {}


def _put(port: Port, value: Any) -> None:
    if port.index is not None:
        getattr(importlib.import_module(port.module), port.name)[port.index] = value
        return
    for module in (port.module, *port.importers):
        setattr(importlib.import_module(module), port.name, value)


def _reads_as_xpath(tree: Any) -> bool:
    """Whether the stand-ins see what the XPath sees from `tree`: an element (not a comment, an instruction
    or a whole document) whose attributes are all its own. `get` also returns the default values an XML
    document's DTD declares, which XPath's `@class` does not see; HTML parsers never apply them."""
    if not isinstance(tree, etree._Element) or not isinstance(tree.tag, str):
        return False
    document = tree.getroottree()
    if isinstance(document.parser, etree.HTMLParser):
        return True
    return document.docinfo.internalDTD is None and document.docinfo.externalDTD is None


def _on_elements(built: Selector, original: Any) -> Selector:
    """`built` where it reads as the XPath (every tree trafilatura makes from HTML), the XPath itself on
    anything else other code in the process may hand trafilatura."""

    def select(tree: Element) -> list[Element]:
        return built(tree) if _reads_as_xpath(tree) else original(tree)

    return select


def install(ports: Sequence[Port] = PORTS) -> list[Port]:
    """Swap in each of `ports` whose expression trafilatura still has (again: no change); the ports in use."""
    for port in ports:
        if port not in _swaps:
            original = port.current()
            if source_digest(original) != port.digest:
                continue
            built = port.build(str(original.path))
            test = built.test if isinstance(built, _EachElement) else None
            _swaps[port] = _Swap(original, _on_elements(built, original), test)
        _put(port, _swaps[port].replacement)
    return installed()


def element_test(expression: Any) -> Callable[[Element], bool] | None:
    """Whether `expression`, when it is an installed stand-in that tests each element alone, selects an
    element below an HTML parser's tree (`element_test(expression)(element)`); None for any other."""
    return next((swap.test for swap in _swaps.values() if swap.replacement is expression), None)


def installed() -> list[Port]:
    return [port for port, swap in _swaps.items() if port.current() is swap.replacement]


def forget() -> None:
    """Drop every remembered answer: a benchmark that reads the same page again measures the first read."""
    for seen in _memos:
        seen.clear()


@contextmanager
def stock() -> Iterator[None]:
    """trafilatura's own expressions for the duration (a benchmark's baseline); the stand-ins after."""
    active = installed()
    for port in active:
        _put(port, _swaps[port].original)
    try:
        yield
    finally:
        for port in active:
            _put(port, _swaps[port].replacement)


def pairs() -> list[tuple[Port, Any, Selector]]:
    """(port, trafilatura's expression, its stand-in) for each port built: what the tests compare."""
    return [(port, swap.original, swap.replacement) for port, swap in _swaps.items()]
