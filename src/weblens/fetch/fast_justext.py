"""A faster jusText paragraph maker for trafilatura's second opinion: the same paragraphs, classified
the same, in well under half the time.

weblens asks trafilatura for a second opinion (its full cascade) on pages where the fast pass keeps
little of the text, and trafilatura runs jusText there, once or twice a page. jusText reads a tree
through SAX events, one Python call per element and text, builds two path strings for every
paragraph it opens (most hold no text and are dropped), and recomputes a paragraph's text on each
of the half-dozen reads its classifier makes. The stand-in does the same work in a third of the time,
which takes 4 to 6 % off weblens' extraction time on both corpora (bench/stand_ins.py).

`make_paragraphs` walks the tree once with `iterwalk`, keeps a paragraph's path as a link to its
parent's (the strings are made only for paragraphs kept, when first read), and sets each kept
paragraph's text once. `classify` hands jusText's classifier the stop list as a set: trafilatura
passes a tuple of 150 000 words, which jusText's cache hashes word by word on every call.

Like `fast_xpaths`, this stands in only while the code it was written against is unchanged: the first
32 bits of the SHA-256 of jusText's paragraph maker, paragraph and whitespace sources (`swap.GuardedSwap`).
`install` swaps it into trafilatura's module; `stock` puts jusText's own back for a while (a benchmark's baseline).
tests/fetch/test_fast_justext.py checks it against jusText on crafted and real pages.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "FastParagraphMaker", "classify", "install", "installed", "normalized", "source_digest", "stock"]

DIGEST = "099d15d6"
_SPACES = re.compile(r"[^\S\n\r]+")
# after `_SPACES`, a run of spaces holding a line break starts with at most one space: no match is retried
_BREAKS = re.compile(r" ?[\n\r][ \n\r]*+")

Element = Any  # an lxml element (lxml ships no types)
Node = tuple[str, int, Any]  # (tag, its place among its parent's children of that tag, the parent's node)


def normalized(text: str) -> str:
    """jusText's `normalize_whitespace`: each run of white space to one line break when it holds one
    (`\\n` or `\\r`), else to one space. In two passes of C instead of a Python call per run."""
    spaced = _SPACES.sub(" ", text)
    return _BREAKS.sub("\n", spaced) if "\n" in spaced or "\r" in spaced else spaced


def _sources() -> list[Any]:
    """What the stand-in was written against: jusText's paragraph maker, paragraph and whitespace code."""
    core, paragraph, utils = (importlib.import_module(f"justext.{name}") for name in ("core", "paragraph", "utils"))
    return [core.ParagraphMaker, core.PathInfo, paragraph.Paragraph, utils.normalize_whitespace,
            utils._replace_whitespace, utils.is_blank, " ".join(sorted(core.PARAGRAPH_TAGS)),
            utils.MULTIPLE_WHITESPACE_PATTERN.pattern]  # fmt: skip


def _paragraph_type() -> type:
    from justext.paragraph import Paragraph  # type: ignore[import-untyped]

    class FastParagraph(Paragraph):  # type: ignore[misc]
        """jusText's paragraph with its text set once, when it is complete, and its paths made when read."""

        text = ""  # a plain attribute (jusText's is a property that joins and normalizes on every read)

        def __init__(self, node: Node | None) -> None:
            self.node = node
            self.text_nodes: list[str] = []
            self.chars_count_in_links = 0
            self.tags_count = 0
            self.class_type = ""

        def close(self) -> None:
            self.text = normalized("".join(self.text_nodes).strip())
            self.words = self.text.split()

        def _steps(self) -> list[Node]:
            steps, node = [], self.node
            while node is not None:
                steps.append(node)
                node = node[2]
            return steps[::-1]

        def __getattr__(self, name: str) -> str:  # only for attributes not yet set: the two paths
            if name == "dom_path":
                self.dom_path = ".".join(step[0] for step in self._steps())
                return self.dom_path
            if name == "xpath":
                self.xpath = "/" + "/".join(f"{tag}[{order}]" for tag, order, _ in self._steps())
                return self.xpath
            raise AttributeError(name)

        @property
        def words_count(self) -> int:
            return len(self.words)

        def stopwords_count(self, stopwords: frozenset[str]) -> int:
            return sum(word.lower() in stopwords for word in self.words)

    return FastParagraph


class FastParagraphMaker:
    """jusText's `ParagraphMaker.make_paragraphs`, the only part of it trafilatura calls."""

    paragraph: type | None = None

    @classmethod
    def make_paragraphs(cls, root: Element) -> list[Any]:
        if not isinstance(root, etree._Element) or _next_to_instruction(root):
            return _justext_paragraphs(root)  # jusText reads a tree's instructions: leave it to it
        from justext.core import PARAGRAPH_TAGS  # type: ignore[import-untyped]

        if cls.paragraph is None:
            cls.paragraph = _paragraph_type()
        new = cls.paragraph
        paragraphs: list[Any] = []
        node: Node | None = None
        seen: list[dict[str, int]] = [{}]  # per open element, how many children of each tag it has had
        paragraph, has_text, link, br = new(None), False, False, False

        def characters(content: str) -> None:
            nonlocal has_text, br
            if content.isspace():
                return
            text = normalized(content)
            paragraph.text_nodes.append(text)
            has_text, br = True, False
            if link:
                paragraph.chars_count_in_links += len(text)

        def start_new(at: Node | None) -> None:
            nonlocal paragraph, has_text
            if has_text:  # jusText keeps a paragraph whose text is not blank: only `characters` adds such
                paragraph.close()
                paragraphs.append(paragraph)
            paragraph, has_text = new(at), False

        for event, element in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
            if event == "start":
                tag = element.tag
                if not isinstance(tag, str):  # an entity: jusText fails on it, and trafilatura takes that
                    return _justext_paragraphs(root)
                name = tag.rpartition("}")[2]
                siblings = seen[-1]
                siblings[name] = order = siblings.get(name, 0) + 1
                node = (name, order, node)
                seen.append({})
                if name in PARAGRAPH_TAGS or (name == "br" and br):
                    if name == "br":  # <br><br> separates paragraphs and is no tag of either
                        paragraph.tags_count -= 1
                    start_new(node)
                else:
                    br = name == "br"
                    if br:
                        paragraph.text_nodes.append(" ")
                    elif name == "a":
                        link = True
                    paragraph.tags_count += 1
                if element.text:
                    characters(element.text)
                continue
            if event == "end":
                assert node is not None
                name, node = node[0], node[2]
                seen.pop()
                if name in PARAGRAPH_TAGS:
                    start_new(node)
                if name == "a":
                    link = False
            if element.tail:  # after an element's end, a comment or an instruction: its tail
                characters(element.tail)
        start_new(node)
        return paragraphs


def _next_to_instruction(root: Element) -> bool:
    beside = (root.getprevious(), root.getnext())
    return any(getattr(node, "tag", None) is etree.ProcessingInstruction for node in beside)


def _justext_paragraphs(root: Element) -> list[Any]:
    """jusText's own maker's paragraphs (or its failure) for `root`."""
    from justext.core import ParagraphMaker

    paragraphs: list[Any] = ParagraphMaker.make_paragraphs(root)
    return paragraphs


_stop_set: list[Any] = [None, frozenset()]  # the last stop list given as a tuple, and it as a set


def classify(paragraphs: list[Any], stoplist: Any, *args: Any, **kwargs: Any) -> None:
    """jusText's `classify_paragraphs`, given its stop list as a set (the same words, hashed once)."""
    from justext.core import classify_paragraphs

    if isinstance(stoplist, tuple):
        if _stop_set[0] is not stoplist:
            _stop_set[:] = [stoplist, frozenset(stoplist)]
        stoplist = _stop_set[1]
    classify_paragraphs(paragraphs, stoplist, *args, **kwargs)


_SWAP = GuardedSwap(
    "trafilatura.external",
    {"ParagraphMaker": lambda: FastParagraphMaker, "classify_paragraphs": lambda: classify},
    _sources,
    DIGEST,
)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
