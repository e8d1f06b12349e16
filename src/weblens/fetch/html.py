"""HTML to the main content as markdown, plus title, byline and date.

The page is parsed once, with lxml (after `bound_markup` cut any attribute flood, the
one input that makes the parser itself slow, and any script too large for it to keep the
rest of the page); title, byline and date come from that tree,
never from a regex over the source. weblens reads a page as a browser without JavaScript
would: scripts and styles are not text, `<noscript>` content is.

In order, each step measured on both benchmark corpora (bench/extraction.py):
- a bot check or consent wall raises BlockedError (`challenge.py`);
- an empty shell whose content ships as JSON is read from that JSON (`hydration.py`);
- trafilatura's fast pass (comments off, tables kept, markdown); when it keeps under a
  fifth of the visible words, its full cascade (readability and jusText as second
  opinions) runs instead, unless what that reads is mostly a box the site mounts over the
  page as a cookie notice or a pop-up and what the fast pass read is not
  (`sections.reads_boxes`); both with weblens' stand-ins for trafilatura's slowest XPath
  expressions (`fast_xpaths.py`: the same elements, a third of weblens' time gone) and for
  jusText's paragraph maker (`fast_justext.py`: the same paragraphs in a third of the time),
  without the tree copy its fast pass never reads (`fast_prepare.py`), and reading the page's
  whole text, which trafilatura measures, without copying the page (`fast_html2txt.py`), and
  testing for link density only the elements that hold a link (`fast_link_density.py`),
  escaping for markdown only the text that holds something to escape (`fast_escape.py`), and
  dropping unprintable characters without a rebuild a character at a time (`fast_printable.py`); the
  full cascade starts from the fast pass's main extraction instead of running it again
  (`fast_second_opinion.py`);
- a thread marked up with schema.org posts that holds most of that content is returned
  post by post under author lines (`posts.py`);
- when the result still holds almost nothing of the page (a grid of links), the page's
  own text minus navigation, header, footer and asides; on a page that declares itself
  neither an article nor a product (`pagekind.py`: a listing, a collection, a service
  page), already when the main-content pass keeps under 40 % of that text (90 % when the
  page shows code blocks: documentation);
- on such a page whose main-content pass keeps under 70 % of that text (on a declared
  product, under a third, when the page text holds what the pass kept), the sections the
  pass left out, merged around what it kept (`sections.py`: a service or shop page);
- on the other pages that declare no article, the blocks the pass cut out between the first
  and the last block it kept, put back in place (`sections.py`, `fill_gaps`).
trafilatura escapes every underscore and writes links, superscripts and
subscripts as inline HTML (`<u>`, `<sup>`, `<sub>`); both are undone.
"""

from __future__ import annotations

import re
from collections import Counter
from copy import copy

import trafilatura
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html
from trafilatura.settings import CUT_EMPTY_ELEMS

from weblens.errors import BlockedError
from weblens.fetch import (
    cell_words,
    fast_escape,
    fast_html2txt,
    fast_justext,
    fast_link_density,
    fast_prepare,
    fast_printable,
    fast_second_opinion,
    fast_xpaths,
    orphan_formatting,
    wild_text,
)
from weblens.fetch.challenge import challenge_kind
from weblens.fetch.hydration import hydration_text
from weblens.fetch.markup import bound_markup, flatten_markup, within_bounds
from weblens.fetch.pagekind import page_kind
from weblens.fetch.pagetext import Line, lines_markdown, main_region, page_lines, text_before
from weblens.fetch.passages import heading_words
from weblens.fetch.posts import thread_markdown, without_repeated_quotes
from weblens.fetch.responsive import screen_reader_only, small_screen_only
from weblens.fetch.sections import (
    MAX_KEPT_WORDS,
    PRODUCT_SHARE,
    SECTIONS_SHARE,
    fill_gaps,
    gaps_may_add,
    holds_kept,
    linked_items,
    merge_sections,
    mounted_box_words,
    named_box_words,
    reads_boxes,
)
from weblens.fetch.tables import add_table_headers
from weblens.fetch.wild_text import wild_reads

__all__ = [
    "SHELL_VISIBLE_CHARS",
    "HtmlExtract",
    "extract_html",
    "parse_html",
    "visible_text",
    "visible_text_length",
    "wall_error",
    "wall_kind",
    "wall_of",
    "without_title",
]

# Below this many visible characters a body is a shell (its content, if any, is built by scripts).
SHELL_VISIBLE_CHARS = 200
# A page that shows little text is read from its scripts' data when that data holds this many times the words it
# shows: a short contact or order page's own lines outweigh the site description its JSON-LD repeats on every page.
_HYDRATION_LEAD = 2
# When trafilatura's fast pass keeps less than this share of the visible words, its full cascade
# (readability and jusText as second opinions) runs too: it rescues pages the fast pass cuts short.
_SECOND_OPINION_SHARE = 0.2
# The main-content pass keeping less than this share of the page's own text leaves the page's text in charge.
_RECALL_FLOOR = 0.05
# A cookie banner in the page text: a dialog (ARIA role) holding a control that accepts or refuses. Naming by class
# (`cookie`, `consent`) also takes a docs section `#cookies`, and searching every class and id cost 4 % of the modern
# pages' time. bench/extraction.py: one page up, none down.
_CONSENT_WORDS = re.compile(r"\b(?:accept|agree|allow|reject|decline|deny|got it|ok)\b", re.I)
# A declared article of which the main-content pass kept this many words is that article, however much more the
# page shows (a news brief of 84 words in 3 000 words of menus, a post of 100 words over 2 000 of comments): the
# floor above is for a pass that kept a caption. No page of either corpus moves at 50 or 80 (bench/extraction.py).
_ARTICLE_WORDS = 50
# On a page that declares no article or product, the page's own text (minus navigation) replaces a
# main-content pass that keeps less than this share of it. Chosen on both corpora and both folds
# (bench/extraction.py): listings +0.11 F1, collections +0.07, services +0.02, articles unchanged;
# at 0.5 a 2019 article page loses.
_UNDECLARED_SHARE = 0.4
# A page that declares no article or product and shows this many code blocks is documentation: trafilatura drops
# its short headings, list items and notes, so its page text stands when the pass keeps under `_DOCS_SHARE` of
# it. bench/extraction.py: documentation +0.006 F1 (both folds up), no other page type or fold moves; any
# share from 0.7 to 0.95 does the same, at 1.0 an article fold loses.
_DOCS_CODE_BLOCKS = 2
# what makes a definition more than a line of text (`_pair_definitions`)
_BLOCKS_IN_DEFINITIONS = ("p", "div", "ul", "ol", "dl", "table", "pre", "blockquote", "section", "figure", "br",
                          "h1", "h2", "h3", "h4", "h5", "h6")  # fmt: skip
_DOCS_SHARE = 0.9
_CODE_BLOCKS = etree.XPath("count(//pre)")
# trafilatura spends up to ~0.4 ms an element on some shapes (250 000 bare <p>: minutes); the
# largest of 590 real pages measured has 11 000 elements once scripts are gone. Past this
# many, the page's text is read in one linear pass instead.
_MAX_ELEMENTS = 30_000
# A thread's posts must hold this share of the main content's words to stand for the page.
_THREAD_SHARE = 0.6
# The pages whose left-out sections are merged (sections.py), by what they declare: the share of the page
# text's words under which the main-content pass's output is a candidate for the merge.
_MERGE_SHARES = {"other": SECTIONS_SHARE, "product": PRODUCT_SHARE}
# The gaps are filled too on any page where the main-content pass found no article block and read the page's
# loose paragraphs (wild_text.py), leaving out the headings and lists between them. bench/extraction.py: modern
# pages 0.8176 -> 0.8189 F1 (folds +0.003, level), articles 0.9468 -> 0.9478, products 0.614 -> 0.623, no page
# type lower, 2019 articles unchanged (the pass finds an article block on 88 of 91); six pages up, one down (a
# sidebar's headings put back between two blocks the pass kept). "The pass kept no heading or list" as the
# sign does as well on modern pages but fires on most plain 2019 stories: 6 % slower there.
_TITLE_KEYS = ("og:title", "twitter:title")
_BYLINE_KEYS = ("author", "article:author", "byl", "dc.creator", "parsely-author", "sailthru.author")
_DATE_KEYS = (
    "article:published_time", "datepublished", "date", "dc.date", "pubdate", "publish-date", "og:updated_time",
)  # fmt: skip
# trafilatura writes underlined, superscript and subscript words as inline HTML; they are read as the page
# shows them (`H2O`, `95th`, a footnote's `[1]` after its word), as the page-text path reads them. Not `\<u>`
# (the page's own text, escaped) nor inside a code span (group 1, kept). Linear: no nested repetition. The escaped
# `_` trafilatura writes (group 2) is unescaped there too; in code it escapes nothing, so a `\_` is the page's own.
# So are its escaped brackets (group 3): a footnote's `[1]`, a quote's `[sic]` or `[…]` read `\[1\]` to the model,
# and weblens' markdown holds no links for a bracket to start. Each alternative starts with its character and looks
# behind only after it, so the search skips ahead to a backtick, `<` or `\` (2.5x faster on a page of prose).
_INLINE_TAGS = re.compile(r"(`[^`\n]*`)|<(?<!\\<)/?(?:u|sup|sub)>|\\(_)|\\(?<!\\\\)([\[\]])")
# The tags apart, where nothing is code and no backslash is escaped (`_unescaped`).
_RAISED_TAG = re.compile(r"<(?<!\\<)/?(?:u|sup|sub)>")
_TWICE_MARKED = re.compile(r"(?m)^(#{1,6}) #{1,6} ")
_BLANK_RUN = re.compile(r"\n{3,}")
# The words `without_title` compares: a heading's and the title's, case and punctuation aside.
_WORD = re.compile(r"\w+")
_INVISIBLE = ("script", "style", "template", "svg", "iframe", "object", "embed", "canvas", "video", "audio", "head")
_INVISIBLE_TAGS = frozenset(_INVISIBLE)
# Where the shown text lives: the bodies, or the top-level elements when there is none. Asked apart: one XPath
# `//body|/*[not(//body)]` searched the whole page for a body once per top-level element, and a page that goes on
# after `</html>` has one per element (20 000 stray paragraphs: 12 s).
_BODIES = etree.XPath("//body")
_TOP_LEVEL = etree.XPath("/*")
# A count of the nodes `tree.iter()` yields, in C rather than a Python loop.
_NODE_COUNT = etree.XPath("count(descendant-or-self::*|descendant::comment()|descendant::processing-instruction())")
_NOT_PAGE_TEXT = ("nav", "header", "footer", "aside", "button", "select", "label", "dialog")
# The same regions and controls marked with ARIA roles instead of tags (a `<div role="navigation">`, a
# drop-down's `role="menuitemradio"` links). bench/extraction.py: seven modern pages move, none down (listings
# fold 0 +0.020, collections fold 1 +0.003, nothing else moves).
_NOT_PAGE_TEXT_ROLES = frozenset({
    "navigation", "banner", "contentinfo", "complementary", "search",
    "menu", "menubar", "menuitem", "menuitemradio", "menuitemcheckbox", "listbox", "option",
})  # fmt: skip
_WITH_ROLE = etree.XPath("//*[@role][ancestor::body]")  # then a set lookup: 5x faster than an XPath naming each role
# (asked of each element with a role, not as `//body//*`: libxml2 merged 3 000 bodies' descendants in 56 ms)
# A pop-up (`role="dialog"`) holding a form is a sign-up, log-in or contact box the page shows over itself, not its
# text; one without a form may be content (a product's feature sheet). bench/extraction.py: one service page
# 0.25 -> 0.97 F1 (six registration pop-ups, 10 196 words for a 1 533-word page), services fold 0 +0.021, one
# product page +0.021 and one -0.009, nothing else moves.
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
# What no reader sees and no pass reads as text (scripts but JSON data, which trafilatura reads for threads),
# cut before trafilatura: it copies and searches the whole tree several times. bench/extraction.py: -3.4 %
# extraction time on the modern corpus, one page of 590 changes (a heading more).
_UNSEEN_TAGS = ("svg", "style", "template", "script")
# trafilatura deletes each empty element of these kinds (`CUT_EMPTY_ELEMS`) one at a time, appending its tail to the
# text before it: a run of k of them in a row costs it k² (29 000 empty <b> each before 20 commas, a 0.8 MB page: 9.6 s
# a pass, 19 s with the full cascade). Runs longer than `_EMPTY_RUN` are joined the same way first, in one step each,
# on a copy it alone reads (the page text reads every text node apart). The longest run on either corpus is 96; with
# every run from two elements up joined this way, all 590 pages read the same.
_EMPTY_RUN = 100
_PRUNED_TAGS = tuple(CUT_EMPTY_ELEMS)
# The bytes handed to lxml are always UTF-8 (we decoded them); a stale meta charset must not win.
_PARSER = etree.HTMLParser(
    encoding="utf-8", collect_ids=False, default_doctype=False, remove_comments=True, remove_pis=True
)
# Every element an `HtmlElement` (what trafilatura takes as a parsed page), chosen in C: lxml.html's own
# parser asks a Python method for each element object it hands out (form fields get their own classes,
# which nothing here uses), about 4 % of the extraction's time, trafilatura's included.
_PARSER.set_element_class_lookup(
    etree.ElementDefaultClassLookup(
        element=lxml_html.HtmlElement,
        comment=lxml_html.HtmlComment,
        pi=lxml_html.HtmlProcessingInstruction,
        entity=lxml_html.HtmlEntity,
    )
)

fast_xpaths.install()
fast_justext.install()
fast_prepare.install()
fast_html2txt.install()
fast_link_density.install()
wild_text.install()
orphan_formatting.install()
fast_second_opinion.install()
cell_words.install()
fast_escape.install()
fast_printable.install()

DEEP_FLATTENED_NOTE = (
    "The page nests its elements deeper than the HTML parser follows; it was read with its nesting flattened, "
    "so its layout (tables, lists) may be lost, but not its text."
)
DEEP_LOST_NOTE = (
    "The page nests its elements deeper than the HTML parser follows, even flattened: text past that depth "
    "is missing from this page."
)


class HtmlExtract:
    """What came out of a page: markdown body (maybe empty), what the head says, how much text it shows,
    and a note for the reader when the page could not be read whole."""

    __slots__ = ("byline", "content", "date", "method", "note", "title", "visible_chars")

    def __init__(
        self, content: str, title: str, byline: str | None, date: str | None, *, method: str, visible_chars: int
    ) -> None:
        self.content = content
        self.title = title
        self.byline = byline
        self.date = date
        self.method = method
        self.visible_chars = visible_chars
        self.note: str | None = None


def parse_html(html: str, encoded: bytes | None = None) -> lxml_html.HtmlElement | None:
    """The page's tree, or None when lxml finds no document in it. `encoded`: `html` as UTF-8 when the caller
    has it (the body it decoded), parsed as it is unless `bound_markup` would change the page: encoding a page
    again costs a tenth of its parse, and the bounds are checked on it in a fifth less time than on the text."""
    if encoded is not None and within_bounds(encoded):
        data = encoded
    else:
        data = bound_markup(html).encode("utf-8", "surrogatepass")
    try:
        tree = lxml_html.fromstring(data, parser=_PARSER)
    except (etree.ParserError, ValueError):
        return None
    if b"shadowroot" in data:  # searched in bytes: one emoji makes Python hold the whole text in 4 bytes a character
        _open_shadow_roots(tree)
    return tree


def _open_shadow_roots(tree: lxml_html.HtmlElement) -> None:
    """A declarative shadow root (`<template shadowrootmode="open">`, or the older `shadowroot`) is shown where it
    stands, unlike any other `<template>`: it becomes a plain element, read like the rest of the page."""
    for template in tree.iter("template"):
        if template.get("shadowrootmode") is not None or template.get("shadowroot") is not None:
            template.tag = "div"


def _too_deep() -> bool:
    """Whether the last parse stopped at libxml2's depth limit (it then drops the rest of the page)."""
    return any(entry.type_name == "ERR_RESOURCE_LIMIT" and "depth" in entry.message for entry in _PARSER.error_log)


def _parse_whole(html: str, encoded: bytes | None) -> tuple[lxml_html.HtmlElement | None, str | None]:
    """The page's tree and, when it is nested past the parser's depth, a note on how it was read."""
    tree = parse_html(html, encoded)
    if tree is None or not _too_deep():
        return tree, None
    tree = parse_html(flatten_markup(html))
    return tree, DEEP_LOST_NOTE if _too_deep() else DEEP_FLATTENED_NOTE


def _meta(tree: lxml_html.HtmlElement) -> dict[str, str]:
    found: dict[str, str] = {}
    for tag in tree.iter("meta"):
        key = (tag.get("property") or tag.get("name") or tag.get("itemprop") or "").strip().lower()
        content = tag.get("content")
        if key and content and key not in found:
            found[key] = content.strip()
    return found


def _first(meta: dict[str, str], keys: tuple[str, ...]) -> str | None:
    return next((meta[k] for k in keys if meta.get(k)), None)


def _title(tree: lxml_html.HtmlElement, meta: dict[str, str]) -> str:
    found = _first(meta, _TITLE_KEYS)
    if found:
        return found
    title = next(tree.iter("title"), None)
    return " ".join((title.text_content() if title is not None else "").split())


def _heading(tree: lxml_html.HtmlElement) -> str:
    """The page's first `<h1>`: a thread's own title, without the site name a `<title>` adds."""
    heading = next(tree.iter("h1"), None)
    return " ".join(heading.text_content().split()) if heading is not None else ""


class Layout:
    """What the walk for the visible text finds of the page's layout (responsive.py): the elements only a screen
    narrower than a desktop's shows, and those whose text only a screen reader reads."""

    def __init__(self) -> None:
        self.small_screen: list[etree._Element] = []
        self.screen_reader: list[etree._Element] = []


def _shown_parts(root: etree._Element, parts: list[str], layout: Layout | None) -> None:
    """Append the text nodes under `root` that no invisible element holds, in document order. One walk
    that steps over invisible subtrees: an XPath asking each text node for invisible ancestors costs
    several times more on a deep page. With `layout`, the elements only a screen narrower than a
    desktop's shows are stepped over too, and noted in it with those whose text is left to screen readers:
    found on this walk they cost under 1 % of extraction time, where an XPath of their own cost 5 %. What the
    classes say is told once per distinct value: a page repeats its class values, 400 elements to 175 values."""
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    told: dict[str, int] = {}  # class value -> _SHOWN, _SMALL_SCREEN or _SCREEN_READER
    for event, element in walker:
        if event == "start":
            if element.tag in _INVISIBLE_TAGS:
                walker.skip_subtree()
                continue
            if layout is not None and (classes := element.get("class")) and element is not root:
                kind = told.get(classes)
                if kind is None:
                    kind = told[classes] = _layout_kind(classes)
                if kind == _SMALL_SCREEN:
                    layout.small_screen.append(element)
                    walker.skip_subtree()
                    continue
                if kind == _SCREEN_READER:
                    layout.screen_reader.append(element)
            if element.text:
                parts.append(element.text)
        elif element.tail and element is not root:  # "end", or a comment or instruction: its tail is text
            parts.append(element.tail)


_SHOWN, _SMALL_SCREEN, _SCREEN_READER = 0, 1, 2


def _layout_kind(classes: str) -> int:
    if small_screen_only(classes):
        return _SMALL_SCREEN
    return _SCREEN_READER if screen_reader_only(classes) else _SHOWN


def visible_text(tree: lxml_html.HtmlElement, layout: Layout | None = None) -> str:
    """The text a reader without JavaScript sees, spaces collapsed (`tree` is left as it is: trafilatura
    reads a page's JSON-LD, and a thread page without it loses its posts). With `layout`, the text a
    desktop shows: what only a smaller screen shows is left out, its elements noted in `layout`."""
    parts: list[str] = []
    roots: set[etree._Element] = set()
    for root in _BODIES(tree) or _TOP_LEVEL(tree):
        if roots.isdisjoint(root.iterancestors()):  # a nested body's text is read once
            roots.add(root)
            _shown_parts(root, parts, layout)
    return " ".join(" ".join(parts).split())


def _set_apart(elements: list[etree._Element]) -> None:
    """A space after the text of each element (a screen reader's label, read aloud as a word of its own), where
    the text after it would otherwise run on: `<span class="sr-only">Warning</span>You can be fined` read
    `WarningYou can be fined`."""
    for element in elements:
        if not element.tail or not element.tail[0].isspace():
            element.tail = f" {element.tail or ''}"


def visible_text_length(html: str) -> int:
    """Characters a reader would see (scripts, styles and tags removed), spaces collapsed."""
    tree = parse_html(html)
    return 0 if tree is None else len(visible_text(tree))


def _page_text(tree: lxml_html.HtmlElement) -> tuple[list[Line], int]:
    """Everything the page shows but its navigation, header, footer, asides, form controls, pop-up forms and
    cookie banners, marked by tag or by ARIA role (only its main region when it marks one), as markdown
    lines (headings, lists, tables and code kept), and the count of words of the whole; strips `tree`."""
    with_role = _WITH_ROLE(tree)
    # a dialog asking for consent (a cookie banner), read before its buttons go with the other controls
    banners = [element for element in with_role if element.get("role") in _DIALOG_ROLES and _asks(element)]
    etree.strip_elements(tree, *_INVISIBLE, *_NOT_PAGE_TEXT, with_tail=False)
    marked = [
        element
        for element in with_role
        if (role := element.get("role")) in _NOT_PAGE_TEXT_ROLES
        or (role in _DIALOG_ROLES and next(element.iter("form"), None) is not None)
    ]
    _drop_all(marked + banners)
    body = next(tree.iter("body"), None)
    region, words = main_region(body if body is not None else tree)
    return page_lines(region)[0], words


def _asks(box: etree._Element) -> bool:
    """Whether a dialog holds a control that accepts or refuses (a cookie banner's buttons)."""
    for control in box.iter("button", "a", "input"):
        said = " ".join(control.itertext()) or control.get("value") or control.get("aria-label") or ""
        if _CONSENT_WORDS.search(said):
            return True
    return False


def _clean_markdown(text: str) -> str:
    # trafilatura escapes every `_` outside code (a word character: `snake\_case` is two words); other escapes
    # are left. Inside a fenced block or a code span, tags and backslashes are the page's own code.
    # A heading inside a `<summary>` comes back marked twice (`## ## Costs`) with blank lines to spare.
    parts = text.split("```")
    parts[::2] = [_unescaped(part) if "<" in part or "\\" in part else part for part in parts[::2]]
    parts[::2] = [_unmark_twice(part) if "# #" in part else part for part in parts[::2]]
    return "```".join(parts).strip()


def _unmark_twice(text: str) -> str:
    return _BLANK_RUN.sub("\n\n", _TWICE_MARKED.sub(r"\1 ", text))


def _unescaped(text: str) -> str:
    """`text` with `_INLINE_TAGS` undone. Without a code span or a doubled backslash no match needs to be told
    apart: the tags go in one substitution and each escape in one `str.replace`, all in C (a Python call a match
    cost a third of extraction time on a long paragraph of prose)."""
    if "`" in text or "\\\\" in text:
        return _INLINE_TAGS.sub(_code_span, text)
    if "<" in text:
        text = _RAISED_TAG.sub("", text)
    return text.replace("\\_", "_").replace("\\[", "[").replace("\\]", "]")


def _code_span(found: re.Match[str]) -> str:
    return found.group(1) or found.group(2) or found.group(3) or ""


# The elements whose markup is set right before trafilatura reads the page, found in one walk (a walk per kind
# cost 0.7 % of extraction time each).
_PREPARED = ("pre", "br", "sup", "time", "dd", "code")
# Formatting trafilatura writes as emphasis (its `hi`), which code cannot hold in markdown (`_plain_code`).
_CODE_FORMATTING = ("em", "i", "b", "strong", "u", "kbd", "samp", "tt", "var")


def _prepare_markup(tree: lxml_html.HtmlElement) -> None:
    """What trafilatura would misread, written as the page shows it (each function below says what)."""
    found: dict[str, list[etree._Element]] = {tag: [] for tag in _PREPARED}
    for element in tree.iter(*_PREPARED):
        found[element.tag].append(element)
    _fence_one_line_code(found["pre"])
    _break_after_formatting(found["br"])
    _mark_superscripts(found["sup"])
    _keep_times(found["time"])
    _pair_definitions(found["dd"])
    _plain_code(found["code"])


def _plain_code(codes: list[etree._Element]) -> None:
    """Inline code without the emphasis inside it (`<code><i>size</i></code>`, a placeholder's italics): trafilatura's
    markdown wrote `*size*` and lost the rest of the paragraph after it, where its text output keeps it."""
    for code in codes:
        if len(code):
            etree.strip_tags(code, *_CODE_FORMATTING)


def _fence_one_line_code(pres: list[etree._Element]) -> None:
    """End each one-line `<pre>` with a line break: trafilatura writes code without one as inline
    code, so a command on its own line would read as part of the paragraph around it."""
    for pre in pres:
        text = pre.text_content()
        if "\n" in text or not text.strip():
            continue
        inner = pre[0] if len(pre) == 1 and not (pre.text or "").strip() and not (pre[0].tail or "").strip() else pre
        if len(inner):
            inner[-1].tail = (inner[-1].tail or "") + "\n"
        else:
            inner.text = (inner.text or "") + "\n"


# Inline formatting trafilatura writes as markdown emphasis or code (its `hi` element) or as a tag.
_NOTE_MARK_CHARS = 4  # `1`, `12`, `a`, `*`, `iv`: a footnote's mark, not a superscript word
# What a raised exponent holds: a number (signed, decimal, or a charge like `2−`) or a signed variable (`-kt`); a
# raised word of letters (`95th`, `Mme`, `TM`) reads onto its word.
_EXPONENT = re.compile(r"[-+\u2212]?\d{1,4}(?:[.,]\d{1,4})?[-+\u2212]?|[-+\u2212][^\W\d_]{1,3}")
# Where a superscript number is an exponent: after a number or a bracket (`10^6`, `(a+b)^2`) or a symbol or unit
# of up to three letters (`mc^2`, `km^2`). After a longer word it is taken for an unlinked footnote and reads
# onto the word as before.
_EXPONENT_BASE = re.compile(r"(?:[\d)\]]|(?<![^\W\d_])[^\W\d_]{1,3})$")
_FORMATTING = frozenset({"b", "strong", "i", "em", "u", "code", "sup", "sub", "kbd", "samp", "tt", "var"})


def _break_after_formatting(breaks: list[etree._Element]) -> None:
    """Move the one line break that ends a formatted run (`<b>Step one.<br></b>Do this.`) to just after it, where a
    browser shows it too: trafilatura's markdown drops it and glues the next line on (`**Step one.**Do this.`).
    bench/extraction.py: 8 pages of 590 change, no word lost or added, F1 as it was."""
    for br in breaks:
        parent = br.getparent()
        while (
            parent is not None
            and parent.tag in _FORMATTING
            and br.getnext() is None
            and not (br.tail or "").strip()
            and next(parent.iter("br")) is br  # its only break: lines of emphasis read as lines as they are
            and parent.getparent() is not None
        ):
            br.tail, parent.tail = parent.tail, None
            parent.addnext(br)
            parent = br.getparent()


def _pair_definitions(definitions: list[etree._Element]) -> None:
    """A term and its definition read as one line (`Aft: Towards the back of the boat.`): trafilatura writes a
    `<dt>` and the `<dd>` after it as two list items, and a glossary or a table of facts (`Joined` / `Nov 4,
    2011`) lost which went with which. Only a pair of inline text, one definition to its term: a definition
    holding paragraphs or a list, and a term's several senses, stay items of their own. bench/extraction.py: 7
    modern pages change (glossaries, stat cards, member profiles), F1 level (one documentation page -0.001),
    2019 articles unchanged."""
    for definition in definitions:
        term = definition.getprevious()
        if term is None or term.tag != "dt" or (term.tail or "").strip() or not _inline_text(term):
            continue
        after = definition.getnext()
        if not _inline_text(definition) or (after is not None and after.tag == "dd"):
            continue
        last = term[-1] if len(term) else None
        said = (definition.text or "").lstrip()
        if last is None:
            term.text = f"{(term.text or '').rstrip()}: {said}"
        else:
            last.tail = f"{(last.tail or '').rstrip()}: {said}"
        term.extend(list(definition))
        term.tail = definition.tail
        definition.getparent().remove(definition)


def _inline_text(element: etree._Element) -> bool:
    """Whether `element` holds text and no block (a paragraph, a list, a table...)."""
    return (
        bool("".join(element.itertext()).strip())
        and next(element.iterdescendants(*_BLOCKS_IN_DEFINITIONS), None) is None
    )


def _keep_times(times: list[etree._Element]) -> None:
    """A `<time>` reads as the text it shows: trafilatura deletes every one, with its text, so a live blog lost its
    entries' times and an event page its dates (`Date and time: –`). bench/extraction.py: modern pages 0.8193 ->
    0.8194 (both folds up), listings +0.001, collections +0.0005, articles level (six pages -0.001 to -0.003: a
    byline's date), 2019 articles unchanged."""
    for element in times:
        element.tag = "span"


def _mark_superscripts(sups: list[etree._Element]) -> None:
    """Superscripts read onto their word (`95th`), so two kinds are marked first: a footnote's mark (`<sup><a
    href="#fn:1">1</a></sup>`, as Hugo, Jekyll, Pandoc and MediaWiki write them) reads `[1]`, and an exponent
    reads `10^6`, `10^0.1`, `mc^2`, `e^-kt`: unmarked, `founded in 1998` with its note read `19981`, 10⁶ read `106`
    and 10^0.1 read `100.1`."""
    for sup in sups:
        link = next(sup.iter("a"), None)
        holder = link if link is not None and link.text and link.text.strip() else sup
        mark = (holder.text or "").strip()
        if len(holder) or not mark:
            continue
        if link is not None:
            if (link.get("href") or "").startswith("#") and len(mark) <= _NOTE_MARK_CHARS and mark[0] != "[":
                holder.text = f"[{mark}]"
        elif _EXPONENT.fullmatch(mark) and _EXPONENT_BASE.search(text_before(sup)):
            sup.text = f"^{mark}"


def _separate_fences(text: str) -> str:
    """A blank line before and after each fenced block: trafilatura glues the next block (a
    table, a paragraph) to a closing fence, and a table without a blank line above is not one."""
    out: list[str] = []
    fence = ""
    closed = False
    for line in text.split("\n"):
        marker = line.strip()
        if closed and marker:
            out.append("")
        closed = False
        if not fence and marker.startswith("```"):
            if out and out[-1].strip():
                out.append("")
            fence = marker[: len(marker) - len(marker.lstrip("`"))]
        elif fence and marker.startswith(fence) and not marker.strip("`"):
            fence, closed = "", True
        out.append(line)
    return "\n".join(out)


def _words(text: str) -> int:
    return len(text.split())


def _empty_runs(tree: lxml_html.HtmlElement) -> list[list[lxml_html.HtmlElement]]:
    """The runs of more than `_EMPTY_RUN` empty elements trafilatura deletes, each a row of siblings."""
    runs: list[list[lxml_html.HtmlElement]] = []
    run: list[lxml_html.HtmlElement] = []
    for element in tree.iterdescendants(*_PRUNED_TAGS):  # lxml matches the tags in C: half an XPath's time
        if len(element) or element.text is not None:
            continue  # not empty (the parser drops comments and instructions: no other node)
        if not run or element.getprevious() is not run[-1]:
            if len(run) > _EMPTY_RUN:
                runs.append(run)
            run = []
        run.append(element)
    if len(run) > _EMPTY_RUN:
        runs.append(run)
    return runs


def _unseen(tree: lxml_html.HtmlElement) -> list[etree._Element]:
    """The SVG, styles, templates and scripts but JSON data in the whole document, in document order. A page that
    goes on after `</html>` with a second `<html>` is two top-level elements: both are searched."""
    root = tree.getroottree().getroot()
    tops = [*reversed(list(root.itersiblings(etree.Element, preceding=True))), root, *root.itersiblings(etree.Element)]
    return [
        element
        for top in tops
        for element in top.iter(*_UNSEEN_TAGS)
        if element.tag != "script" or "json" not in (element.get("type") or "")
    ]


def _drop_all(elements: list[etree._Element]) -> None:
    """`drop_tree` each of `elements`, their tails kept in place, in linear time: `drop_tree` joins an element's
    tail to the text before it, copying that text each time, so n dropped siblings with tails cost n^2 (a page of
    50 000 phone-only spans took 7 s)."""
    by_parent: dict[etree._Element, set[etree._Element]] = {}
    for element in elements:
        parent = element.getparent()
        if parent is not None:
            by_parent.setdefault(parent, set()).add(element)
    for parent, dropped in by_parent.items():
        before: etree._Element | None = None  # the kept node the tails join (None: the parent's text)
        tails: list[str] = []
        for child in list(parent):
            if child in dropped:
                tails.append(child.tail or "")
                parent.remove(child)  # its tail goes with it: kept above
                continue
            _join_tails(parent, before, tails)
            before, tails = child, []
        _join_tails(parent, before, tails)


def _join_tails(parent: etree._Element, before: etree._Element | None, tails: list[str]) -> None:
    if not any(tails):
        return
    if before is None:
        parent.text = (parent.text or "") + "".join(tails)
    else:
        before.tail = (before.tail or "") + "".join(tails)


def _trafilatura_tree(tree: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    """`tree`, or a copy of it with its long runs of empty elements deleted and their tails joined to the text
    before them, as trafilatura would (in linear time)."""
    if not _empty_runs(tree):
        return tree
    tree = copy(tree)
    _drop_all([element for run in _empty_runs(tree) for element in run])
    return tree


def _markdown(page: lxml_html.HtmlElement, url: str | None, *, fast: bool = True) -> str:
    body = trafilatura.extract(
        page, url=url, fast=fast, include_comments=False, include_tables=True, output_format="markdown"
    )
    return add_table_headers(_separate_fences(_clean_markdown(body or "")))


def _read(page: lxml_html.HtmlElement, url: str | None, *, fast: bool = True) -> tuple[str, bool]:
    """`_markdown`, and whether trafilatura found no article block and read the page's loose paragraphs."""
    before = wild_reads()
    try:
        return _markdown(page, url, fast=fast), wild_reads() > before
    finally:
        orphan_formatting.forget()


def without_title(content: str, title: str) -> str:
    """`content` without a first line that is a heading repeating the page's title (its words start the title's,
    which may go on with the site's name), as Mozilla's Readability drops a header that duplicates the title. The
    main-content pass keeps an article's `<h1>`, and every reader of the result is given the title beside the
    text: shown twice, it costs tokens and reads as the page's first section. bench/extraction.py: 2019 articles
    +0.003 F1 (both folds up), every modern page type up or level."""
    head, _, rest = content.lstrip().partition("\n")
    heading = heading_words(head.rstrip())
    if heading is None or not rest.strip():
        return content
    words = _WORD.findall(heading.lower())
    return rest.lstrip("\n") if words and _WORD.findall(title.lower())[: len(words)] == words else content


def _covers(posts: str, content: str) -> bool:
    """Whether the posts hold most of what the main-content pass found (else: an article with comments)."""
    found = Counter(content.lower().split())
    if not found:
        return bool(posts)
    held = found & Counter(posts.lower().split())
    return sum(held.values()) >= _THREAD_SHARE * sum(found.values())


def wall_kind(html: str) -> str | None:
    """'bot_challenge' or 'consent_wall' when an (error) page is one, else None."""
    tree = parse_html(html)
    return None if tree is None else wall_of(tree, visible_text(tree))


def wall_of(tree: lxml_html.HtmlElement, shown: str) -> str | None:
    """`wall_kind` of a page already parsed, whose visible text is `shown`."""
    return challenge_kind(tree, _title(tree, _meta(tree)), shown)


def wall_error(kind: str, url: str | None) -> BlockedError:
    """What a caller is told when a site answers with a wall of `kind` instead of the page."""
    where = f" ({url})" if url else ""
    what = "a bot check" if kind == "bot_challenge" else "a consent page"
    return BlockedError(
        f"the site answered with {what} instead of the page{where}; weblens cannot pass it", details={"reason": kind}
    )


def extract_html(html: str, url: str | None = None, encoded: bytes | None = None) -> HtmlExtract:
    """Main content as markdown; an empty `content` means the page shows no text (`encoded`: as in `parse_html`).

    Raises BlockedError when the page is a bot check or consent wall instead of the page.
    """
    tree, note = _parse_whole(html, encoded)
    if tree is None:
        return HtmlExtract("", "", None, None, method="empty", visible_chars=0)
    found = _extract_tree(tree, url)
    found.content = without_title(found.content, found.title)
    found.note = note
    return found


def _extract_tree(tree: lxml_html.HtmlElement, url: str | None) -> HtmlExtract:
    meta = _meta(tree)
    title = _title(tree, meta)
    layout = Layout()
    shown = visible_text(tree, layout)
    if layout.small_screen and len(shown) < SHELL_VISIBLE_CHARS:  # a page laid out for phones alone is read as it is
        shown = visible_text(tree)
    else:
        _drop_all(layout.small_screen)  # the page as a desktop shows it: one copy of a section laid out twice
    _set_apart(layout.screen_reader)
    # read while the scripts are there: a thread's first post may be only in its JSON-LD
    thread = thread_markdown(tree, _heading(tree) or title, len(shown))
    kind = challenge_kind(tree, title, shown)
    if kind is not None:
        wall = wall_error(kind, url)
        wall.details["title"] = title
        raise wall
    byline, date = _first(meta, _BYLINE_KEYS), _first(meta, _DATE_KEYS)
    visible_chars = len(shown)
    shown_words = shown.count(" ") + 1 if shown else 0  # its words are one space apart: counted in C, in place
    if visible_chars < SHELL_VISIBLE_CHARS:
        hydrated = hydration_text(tree)
        if _words(hydrated) > _HYDRATION_LEAD * shown_words:
            return HtmlExtract(hydrated, title, byline, date, method="hydration", visible_chars=visible_chars)
    if _NODE_COUNT(tree) > _MAX_ELEMENTS:
        page = lines_markdown(_page_text(tree)[0])
        return HtmlExtract(page, title, byline, date, method="page-text", visible_chars=visible_chars)
    declared = page_kind(tree, meta.get("og:type"), url)
    _prepare_markup(tree)
    _drop_all(_unseen(tree))
    source = _trafilatura_tree(tree)
    with fast_second_opinion.remembered() as first:
        (content, wild), method = _read(source, url), "trafilatura"
    kept = _words(content)
    # a thread whose posts hold what the fast pass kept is read post by post: no second opinion needed
    covered = thread is not None and _covers(thread, content)
    if not covered and kept < _SECOND_OPINION_SHARE * shown_words:
        with fast_second_opinion.reused(first):
            second, second_wild = _read(source, url, fast=False)
        if not _reads_a_box_instead(second, content, tree):
            content, kept, wild = second, _words(second), second_wild
            covered = thread is not None and _covers(thread, content)
    if thread is not None and covered:
        content, method = without_repeated_quotes(thread), "thread"
        kept = _words(content)
    # the visible text bounds the page text: skip building it when it cannot win
    share = _UNDECLARED_SHARE if declared == "other" and method != "thread" else _RECALL_FLOOR
    if declared == "article" and kept >= _ARTICLE_WORDS:
        share = 0.0  # a short story is no failed pass: its page's menus and comments do not replace it
    if declared == "other" and method == "trafilatura" and _CODE_BLOCKS(tree) >= _DOCS_CODE_BLOCKS:
        share = _DOCS_SHARE
    # a page of sections (sections.py) may keep more of the page text than the main-content pass
    sections = method == "trafilatura" and _sectioned(declared, kept, shown_words)
    gaps = method == "trafilatura" and (declared in _MERGE_SHARES or wild) and gaps_may_add(content, kept, shown_words)
    if sections or gaps or kept < share * shown_words:
        lines, words = _page_text(tree)
        page = lines_markdown(lines)
        if kept < share * words:
            return HtmlExtract(page, title, byline, date, method="page-text", visible_chars=visible_chars)
        if sections and kept < _MERGE_SHARES[declared] * words and _merge_holds(declared, page, content):
            merged = merge_sections(page, content, lambda: named_box_words(tree), lambda: linked_items(tree))
            if merged is not None:
                return HtmlExtract(merged, title, byline, date, method="sections", visible_chars=visible_chars)
        filled = fill_gaps(lines, content) if gaps else None
        if filled is not None:
            return HtmlExtract(filled, title, byline, date, method="gaps", visible_chars=visible_chars)
    return HtmlExtract(content, title, byline, date, method=method, visible_chars=visible_chars)


def _reads_a_box_instead(second: str, first: str, tree: lxml_html.HtmlElement) -> bool:
    """Whether the second opinion read a box the site mounts over the page as a cookie notice or pop-up (a consent
    centre's prose is the longest text on some pages) where the fast pass read something else: the first stands."""
    boxes = mounted_box_words(tree)
    return reads_boxes(second, boxes) and not reads_boxes(first, boxes)


def _sectioned(declared: str, kept: int, shown: int) -> bool:
    """Whether the main-content pass (`kept` words) may have kept one section of a page of sections (sections.py);
    the words shown bound the page text's, so most pages are ruled out before the page text is built."""
    share = _MERGE_SHARES.get(declared)
    return share is not None and kept <= MAX_KEPT_WORDS and kept < share * shown


def _merge_holds(declared: str, page: str, content: str) -> bool:
    """On a product page, whether the page text is the region the main-content pass read (sections.py)."""
    return declared != "product" or holds_kept(page, content)
