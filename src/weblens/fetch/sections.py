"""The sections a main-content pass left out of a page built of many sections (a service page).

trafilatura looks for the one block that holds an article. A service or landing page has none:
it is a run of sections (what we do, why us, how it works, questions), and the pass keeps one
of them. On such a page (it declares no article, product or thread, and the pass keeps under
`SECTIONS_SHARE` of the words it shows) the page text, walked in document order, is merged
with what the pass kept: every block the pass kept, every heading, and every block of prose
of at least `_PROSE_WORDS` words is read, once; short lines and list items the pass left out
(buttons, menus, tickers of other pages) stay out. The merge stands only when it adds at least
`_GAIN` to what the pass kept. Blocks of boxes that a site names as a cookie notice, a pop-up,
a newsletter sign-up or a consent form are left out: they hold sentences too.

Measured on both corpora and both folds (bench/extraction.py): service pages +0.02 F1,
products +0.002, collections +0.02, no page type or fold lower, 2019 articles unchanged.
On declared products (`PRODUCT_SHARE`): products +0.017, both folds up.

On a page that declares no article, when the merge does not apply, and on any page where the
pass found no article block (wild_text.py), the gaps are filled (`fill_gaps`): the blocks of the
page text that lie between the first and the last block the pass kept, and that the pass left
out of its cut (a list, a heading, a table, a short paragraph between two it kept), are put back
in place.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Iterator
from itertools import chain, pairwise, repeat

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.pagetext import Line, lines_markdown

__all__ = [
    "MAX_KEPT_WORDS", "PRODUCT_SHARE", "SECTIONS_SHARE", "fill_gaps", "gaps_may_add", "holds_kept",
    "linked_items", "merge_sections", "mounted_box_words", "named_box_words", "reads_boxes",
]  # fmt: skip

# The main-content pass keeping under this share of the words a page shows (on a page that declares no
# article, product or thread) makes the page a candidate for the merge. Any share from 0.6 to 0.8 gives the
# same picture on both folds; 0.9 costs 2019 articles.
SECTIONS_SHARE = 0.7
# A page that declares a product is merged only when the pass keeps under this share of its page text's words
# (shop pages: the pass keeps the spec table or the reviews, the page text holds the description too) and the
# page text holds at least `_HELD` of what the pass kept (else the page text is another region than the
# product's: the pass's text stands). bench/extraction.py: products 0.576 -> 0.593 (fold 0 +0.021, fold 1
# +0.011), 6 pages change (5 up, one -0.003), nothing else moves. Any share from 0.3 to 0.36 does as well;
# from 0.38 two pages whose pass kept the right block lose, and without the `_HELD` check one page loses its text.
PRODUCT_SHARE = 1 / 3
_HELD = 0.5
# A list whose items hold this many words on average is a list of sentences (documents to bring, steps): kept
# whole but for the items that are links alone (a ticker of other pages' headlines has long items too), where
# the items of any other list are kept only when the pass kept them. bench/extraction.py: modern pages
# 0.8191 -> 0.8193 (both folds up), services 0.7782 -> 0.7787, products and collections +0.0006, 2019 articles
# unchanged; five pages up, two down (a collection -0.016). Counted toward what the merge adds, such lists made
# a 2019 news story a merge (its comment rules and headlines): 2019 articles 0.9706 -> 0.9683.
_LIST_ITEM_WORDS = 5
# A block of this many words is prose worth keeping; shorter ones the pass left out are buttons and labels.
_PROSE_WORDS = 10
# Past this many words the pass kept more than one section: the merge is not tried (and its cost not paid).
MAX_KEPT_WORDS = 3000
# The merge must add this share to the pass's words: a few stray lines are not a missed section
# (0.25 to 0.35 give the same figures; at 0.15 thin merges cost a forum fold and articles).
_GAIN = 0.3
# Gaps: a block of the page text is one the pass kept when at least `_GAP_HELD` of its runs of three words occur
# in the pass's output (inline markup splits words differently: `H<sub>2</sub>O`), and one it left out when at
# most `_GAP_NEW` do (between the two, it is not put back: it would repeat what the pass kept). Between the
# first and the last block it kept, a left-out block of a kind in `_GAP_WORDS` and at least that many words goes
# back, after the part of the pass's output that holds the block before it, when all of them add `_GAP_GAIN` to
# the pass's words. bench/extraction.py: modern pages +0.005 F1 (folds +0.003 / +0.006), products +0.009 /
# +0.036, services +0.007 / +0.015, documentation +0.005 / 0, listings, collections, articles and forums up or
# level on both folds, 2019 articles unchanged. Every gain from 0.05 to 0.3, held share 0.5 to 0.8, or prose
# from 10 words does as well (lower or higher); prose of 1 word costs collections fold 0.
_KEPT_WORDS = 3
# The lines of the pass's markdown that run on from the line before: a table's row, a list's item, an indented line.
_STRUCTURED = re.compile(r"\s*(?:\||[-*+] |\d+[.)] )|\s{2,}\S")
_GAP_WORDS = {"h": 1, "li": 1, "row": 1, "p": 5}
_GAP_GAIN = 0.15
_GAP_HELD = 0.5
_GAP_NEW = 0.2
# Past this many characters of output, `gaps_may_add` counts its words between spaces (`\w+` costs 60 ms a MB)
_COUNTED_CHARS = 100_000
# How far past the last block placed a short heading the pass kept is looked for (a bound: a page of thousands of
# one-word headings the pass kept elsewhere would cost a search of the whole output for each).
_HEADING_REACH = 16
_WORD = re.compile(r"\w+")
_NAMED = re.compile("cookie|consent|gdpr|modal|popup|newsletter|subscribe", re.IGNORECASE)
_NAMED_ATTRIBUTES = etree.XPath("//@class|//@id")
_NOT_BOXES = frozenset({"html", "body", "main", "article"})
_MOUNTED = etree.XPath("|".join(f"//body/{'*/' * depth}*[@class or @id]" for depth in range(3)))
_ID_CLASS = ("class", "id")
# An extractor's output is a reading of the named boxes when at least this share (most) of its runs of three words
# are theirs. bench/extraction.py, on trafilatura's second opinion against the boxes mounted over the page, where the
# fast pass did not read them too: two modern pages up (a forum thread 0 -> 0.97 F1, whose cascade read a cookie
# centre; a product page 0.35 -> 0.40), none down; 0.7 does the same, 0.2 and 0.3 put a third product page up too.
# (The fast pass is checked too: one 2019 article's site names the box holding its whole page `modal`.)
_BOXED_SHARE = 0.5


def linked_items(tree: etree._Element) -> set[str]:
    """The words of each list item under `tree` whose text is all link text (a menu, a ticker of headlines)."""
    found: set[str] = set()
    for item in tree.iter("li"):
        words = _words(" ".join(item.itertext()))
        if words and _words(" ".join(text for link in item.iter("a") for text in link.itertext())) == words:
            found.add(words)
    return found


def named_box_words(tree: etree._Element) -> str:
    """The words of the boxes a site names as a cookie notice, pop-up, consent form or newsletter sign-up."""
    return _box_words({value.getparent() for value in _NAMED_ATTRIBUTES(tree) if _NAMED.search(value)})


def mounted_box_words(tree: etree._Element) -> str:
    """`named_box_words` of the boxes a site mounts over its page (a consent manager, a pop-up, a sign-up form):
    those among the body's children down to its great-grandchildren, where such boxes are put. A page's deeper
    elements are not read: a tenth of the cost on the pages it is asked of."""
    return _box_words({box for box in _MOUNTED(tree) if any(_NAMED.search(box.get(name) or "") for name in _ID_CLASS)})


def _box_words(boxes: set[etree._Element]) -> str:
    outer = [box for box in boxes if box.tag not in _NOT_BOXES and not any(up in boxes for up in box.iterancestors())]
    # each text node apart: `text_content` glued a box's heading to its next paragraph in minified HTML
    return " ".join(_words(" ".join(box.itertext())) for box in outer)


def reads_boxes(text: str, boxes: str) -> bool:
    """Whether most of `text` (its runs of three words) is in `boxes` (`named_box_words`, `mounted_box_words`: the
    words of the boxes a site names as a cookie notice, pop-up, consent form or newsletter sign-up): an extractor's
    reading of those boxes."""
    runs = set(_runs(_WORD.findall(text.lower())))
    boxed = runs.intersection(_runs(boxes.split())) if runs else runs
    return len(boxed) >= _BOXED_SHARE * len(runs) > 0


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def holds_kept(page: str, kept: str) -> bool:
    """Whether `page` holds at least `_HELD` of the words of `kept` (counted with repeats)."""
    wanted = Counter(_WORD.findall(kept.lower()))
    held = wanted & Counter(_WORD.findall(page.lower()))
    return sum(held.values()) >= _HELD * sum(wanted.values())


def _count(text: str) -> int:
    return len(_WORD.findall(text))


def _occurring(keys: set[str], text: str) -> set[str]:
    """The keys (words joined by single spaces) that `text` holds as whole words in a row (`f" {key} " in
    f" {text} "`), found in one pass over `text` (Aho-Corasick over words): a search per key costs the length of
    `text` for each, minutes on a page of many blocks under one named box that holds the whole page."""
    goto: list[dict[str, int]] = [{}]  # the trie of the keys' words
    ends: list[str | None] = [None]  # the key that ends at each node
    for key in keys:
        node = 0
        for word in key.split(" "):
            step = goto[node].get(word)
            if step is None:
                step = len(goto)
                goto[node][word] = step
                goto.append({})
                ends.append(None)
            node = step
        ends[node] = key
    fail = [0] * len(goto)  # the longest proper suffix of a node's words that is a node too
    report = [0] * len(goto)  # the nearest node down that chain that ends a key (0: none)
    queue = deque(goto[0].values())
    while queue:
        node = queue.popleft()
        for word, child in goto[node].items():
            queue.append(child)
            back = fail[node]
            while back and word not in goto[back]:
                back = fail[back]
            fail[child] = goto[back].get(word, 0)
            report[child] = fail[child] if ends[fail[child]] is not None else report[fail[child]]
    found: set[str] = set()
    reported = [False] * len(goto)
    node = 0
    for word in text.split(" "):  # an empty word (two spaces) matches nothing, as in the substring test
        while node and word not in goto[node]:
            node = fail[node]
        node = goto[node].get(word, 0)
        hit = node if ends[node] is not None else report[node]
        while hit and not reported[hit]:  # a reported node's chain was reported with it
            reported[hit] = True
            found.add(ends[hit] or "")
            hit = report[hit]
    return found


def merge_sections(page: str, kept: str, boxes: Callable[[], str], linked: Callable[[], set[str]] = set) -> str | None:
    """`page` (the page text as markdown, blocks split by blank lines) cut to what `kept` (the pass's output)
    holds, its headings and its prose, leaving out the words `boxes()` returns (`named_box_words`: looked for
    only when the merge would stand without it); None when that adds too little to `kept` to be worth it.
    The items of a list of sentences are kept too but for those `linked()` holds (`linked_items`); they do not
    count toward what the merge adds: a page's comment rules or headlines would make an article a merge."""
    known = f" {_words(kept)} "
    seen: set[str] = set()
    out: list[tuple[str, str]] = []  # each block, and its words when the pass may have left it out
    extra: list[str] = []  # the items of lists of sentences the pass left out
    links: set[str] | None = None
    for block in page.split("\n\n"):
        key = _words(block)
        if not key:
            continue
        if block.startswith("- "):  # a list: the items the pass kept (and of a list of sentences, the rest)
            lines = block.split("\n")
            if len(key.split()) >= _LIST_ITEM_WORDS * len(lines):  # a list of sentences
                links = linked() if links is None else links
                items = [line for line in lines if f" {_words(line)} " in known or _words(line) not in links]
            else:
                items = [line for line in lines if f" {_words(line)} " in known]
            extra += [line for line in items if f" {_words(line)} " not in known]
            if items:
                out.append(("\n".join(items), ""))
            continue
        long = len(key.split()) >= _PROSE_WORDS
        if long and key in seen:
            continue  # a block shown twice (a mobile and a desktop copy) is read once
        seen.add(key)
        if long or block.startswith("#"):
            out.append((block, key))  # kept either way, unless a named box holds it (checked below)
        elif f" {key} " in known:
            out.append((block, ""))
    least = (1 + _GAIN) * _count(kept) + _count("\n".join(extra))
    if _count("\n".join(block for block, _ in out)) < least:
        return None
    boxed = _occurring({key for _, key in out if key}, boxes())
    out = [(block, key) for block, key in out if not key or key not in boxed or f" {key} " in known]
    merged = "\n\n".join(block for block, _ in out)
    return merged if _count(merged) >= least else None


def _blocks(lines: list[Line]) -> list[tuple[str, list[Line]]]:
    """The page text's blocks: a table's rows together, every other line alone."""
    blocks: list[tuple[str, list[Line]]] = []
    for line in lines:
        if line[0] == "row" and blocks and blocks[-1][0] == "row":
            blocks[-1][1].append(line)
        else:
            blocks.append((line[0], [line]))
    return blocks


def _runs(words: list[str]) -> Iterator[tuple[str, ...]]:
    """The word runs a block is matched by: every `_KEPT_WORDS` words in a row (a linear test, where a substring
    search per block costs the output's length for each), or the whole block when it is shorter."""
    if len(words) < _KEPT_WORDS:
        return iter([tuple(words)] if words else [])
    return zip(words, words[1:], words[2:], strict=False)


def _chunks(markdown: str) -> tuple[list[str], list[str]]:
    """The pass's markdown in the parts a left-out block can go between, and the separator before each part: one
    part per line but for a code block's lines and the rows of a table or a list, which stay together.
    trafilatura writes blocks of the page one line apart too; a heading put back after such a run of lines landed
    after all of it, below the paragraph it heads."""
    chunks: list[str] = []
    separators: list[str] = []  # the one before each part: a blank line or a line break
    current: list[str] = []
    blank = True
    fenced = False
    for line in markdown.split("\n"):
        fence = line.lstrip().startswith("```")
        if fenced:
            current.append(line)
            fenced = not fence
            continue
        if not line.strip():
            blank = True
            continue
        joins = (
            current
            and not blank
            and not fence
            and not current[0].lstrip().startswith("```")
            and _STRUCTURED.match(line) is not None
            and _STRUCTURED.match(current[-1]) is not None
        )
        if not joins:
            if current:
                chunks.append("\n".join(current))
            separators.append("\n\n" if blank else "\n")
            current = []
        current.append(line)
        fenced, blank = fence, False
    if current:
        chunks.append("\n".join(current))
    return chunks, separators


def _held_share(key: list[str], where: dict[tuple[str, ...], int], shorter: set[tuple[str, ...]]) -> float:
    """The share of a page block's runs (its words `key`) that the output holds (1.0 for a block without words)."""
    if len(key) >= _KEPT_WORDS:  # its runs are triples, which `shorter` never holds: counted in C
        return sum(map(where.__contains__, _runs(key))) / (len(key) - _KEPT_WORDS + 1)
    run = tuple(key)
    return float(run in where or run in shorter) if key else 1.0


def _next_holding(chunk_words: list[list[str]], at: int, key: tuple[str, ...]) -> int:
    """The first of the next `_HEADING_REACH` chunks after `at` that is the words `key` alone (the heading as the
    pass wrote it, not the same words in a sentence), else `at`."""
    wanted = list(key)
    for index in range(at + 1, min(at + 1 + _HEADING_REACH, len(chunk_words))):
        if chunk_words[index] == wanted:
            return index
    return at


def gaps_may_add(kept: str, kept_words: int, shown: int) -> bool:
    """Whether a page that shows `shown` words holds enough besides the pass's output `kept` (`kept_words` words
    between spaces) for `fill_gaps` to add `_GAP_GAIN` of its words (what goes back is shown text the pass left
    out): a page the pass read almost whole is not built as page text and searched for nothing (a page of 16 000
    words took 1.6x trafilatura's time). The output's words are counted as `fill_gaps` counts them (markdown's
    marks are none) up to `_COUNTED_CHARS`; past it, the words between spaces stand in (the count took a third of
    trafilatura's time on a book of 1.5 MB; no output on either corpus is that long)."""
    words = _count(kept) if len(kept) <= _COUNTED_CHARS else kept_words
    return shown >= (1 + _GAP_GAIN) * words


def fill_gaps(lines: list[Line], kept: str) -> str | None:
    """`kept` (the pass's markdown) with the page text's blocks it left out between the first and the last
    block it holds put back in place, when their kind and size say content (`_GAP_WORDS`); None when there is
    no such span or what goes back adds too little to `kept`."""
    blocks = _blocks(lines)
    if len(blocks) < 2:
        return None  # no two blocks to hold (and a page of one long paragraph is not read twice)
    keys = [_WORD.findall(" ".join(text for _, text in block).lower()) for _, block in blocks]
    if sum(len(key) >= _KEPT_WORDS for key in keys) < 2:
        return None  # no two blocks can be held: no span (and the output is not indexed, its costliest part)
    chunks, separators = _chunks(kept)
    chunk_words = [_WORD.findall(chunk.lower()) for chunk in chunks]
    # each run of the output: the first chunk holding it (filled backwards, so the first chunk writes last; in
    # C, not a Python loop per word: on a 5 MB page this index cost more than trafilatura's whole pass)
    where: dict[tuple[str, ...], int] = {}
    for index in range(len(chunks) - 1, -1, -1):
        where.update(dict.fromkeys(_runs(chunk_words[index]), index))
    # a block of one or two words is held when the output has them as a word or a pair anywhere
    short = {tuple(key) for key in keys if 0 < len(key) < _KEPT_WORDS}
    shorter = (
        short.intersection(chain.from_iterable(chain(zip(w), pairwise(w)) for w in chunk_words)) if short else short
    )
    found = [_held_share(key, where, shorter) for key in keys]
    held = [len(key) >= _KEPT_WORDS and share >= _GAP_HELD for key, share in zip(keys, found, strict=True)]
    if held.count(True) < 2:
        return None
    first, last = held.index(True), len(held) - held[::-1].index(True)
    after: dict[int, list[Line]] = {}  # the blocks that go back, by the chunk they follow
    back: set[tuple[str, ...]] = set()  # their words: a block the page repeats (one per card) goes back once
    at = 0
    added = 0
    for index in range(first, last):
        kind, block = blocks[index]
        key = tuple(keys[index])
        if held[index]:
            at = max(at, max(map(where.get, _runs(keys[index]), repeat(-1))))  # in C: -1 for a run not there
        elif kind == "h" and 0 < len(key) < _KEPT_WORDS and found[index] == 1.0:
            at = _next_holding(chunk_words, at, key)  # a short heading the pass kept: what follows goes under it
        elif found[index] <= _GAP_NEW and len(key) >= _GAP_WORDS.get(kind, len(key) + 1) and key not in back:
            back.add(key)
            after.setdefault(at, []).extend(block)
            added += len(key)
    if added < _GAP_GAIN * _count(kept):
        return None
    out: list[str] = []
    for index, chunk in enumerate(chunks):
        out += ("\n\n" if index - 1 in after else separators[index] if index else "", chunk)
        if index in after:
            out += ("\n\n", lines_markdown(after[index]))
    return "".join(out)
