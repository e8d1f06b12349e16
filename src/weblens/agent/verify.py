"""Citation checks after the answer: is each `[n]` a real source, and is what it carries in it?

For every marker: source n must exist in the run's ledger (else `unknown_source`). Text the
sentence quotes next to the marker ("…", '…', ‘…’, “…”, „…“, ‹…›, «…», 「…」, 『…』,
fullwidth quotes, prose in backticks, `> blockquote` lines) must occur in the text read
from source n, compared word by word after normalising case, whitespace, quote marks,
dashes and markdown — else `quote_not_found`. The match may forgive a typo inside a long
word of a long quote, never a missing, added or changed word: no negation, no digit, no
word dropped; a quote that starts right after a negation in the source ("not safe" quoted
as "safe") is not found; the parts of an elided quote ("a … b") must appear in order
within one passage of the source, and what the ellipsis leaves out may not hold a negation.
A marker whose sentence quotes nothing is `cited` when the passage of source n sharing most
of its words holds at least `SUPPORT_MIN_SCORE` of them, else `unsupported`: only a quote
is `verified`. The thresholds are measured by `bench/citations.py`.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from weblens.agent.citations import SourceBook
from weblens.agent.events import CitationCheck, CitationStatus

__all__ = ["NEGATIONS", "QUOTE_MIN_CHARS", "SUPPORT_MIN_SCORE", "check_citations", "normalise"]

QUOTE_MIN_CHARS = 24
"""Shorter quotes (and parts of elided ones) must match word for word: in a few words a typo
is as likely a different word. Lengths count a CJK character as three."""
TYPO_MIN_LETTERS = 6
"""In a longer quote, a word of at least this many letters may differ from the source's by one
edit (a typo: "recieved"); shorter words, numbers and negations never."""
SUPPORT_MIN_SCORE = 0.5
"""An unquoted claim is `cited` when the best passage of its source holds this share of the
sentence's content words, else `unsupported` (measured by `bench/citations.py`)."""
PASSAGE_CHARS = 600
MAX_QUOTES = 16
"""Quotes checked per marker: an answer stuffed with thousands costs no more than this each."""

_NEGATION_WORDS = (
    "not no never nor neither none nobody nothing nowhere without cannot nicht kein keine keinen pas jamais "
    "nunca 不 没 沒 未 无 無 非 别 別 勿 莫"
)
NEGATIONS = frozenset(_NEGATION_WORDS.split())
"""Words whose loss or gain turns a claim around; a word ending in n't is one too."""

_MARKER = re.compile(r"\[(\d{1,4}(?:\s*[,，、]\s*\d{1,4})*)\]")
# Quote marks, each pair on one line. A straight or curly single quote opens only after a
# non-word character and closes only before one, so the apostrophes of "don't" and "it's" are
# text, not quote marks. Backtick spans are kept apart (`_BACKTICK`): most are code.
_QUOTES = re.compile(
    r'"([^"\n]{1,2000})"|“([^”\n]{1,2000})”|„([^“”\n]{1,2000})[“”]|«([^»\n]{1,2000})»|‹([^›\n]{1,2000})›'
    r"|「([^」\n]{1,2000})」|『([^』\n]{1,2000})』|＂([^＂\n]{1,2000})＂|｢([^｣\n]{1,2000})｣"
    r"|(?<![\w'])'(?=[^\s'])((?:[^'\n]|(?<=\w)'(?=\w)){1,2000}?)(?<=\S)'(?!\w)"
    r"|(?<![\w‘’])‘(?=[^\s’])((?:[^’\n]|(?<=\w)’(?=\w)){1,2000}?)(?<=\S)’(?!\w)"
    r"|(?<![\w＇])＇([^＇\n]{1,2000})＇"
    r"|(?<!`)`([^`\n]{1,2000})`(?!`)"
)
_BACKTICK_GROUP = 13
_CODE_CHARS = re.compile(r"[(){}\[\]<>=;$\\/|_@#~^*+]|^[-.]|\s[-.]|://")
PROSE_MIN_WORDS = 4
"""A backtick span is read as a quote only when it reads as prose: this many words or more and
no character code is made of (`pip install x`, `f(x) = 1`, `--flag` stay code)."""
_BLOCKQUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?(.*)$", re.M)
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|\n")
_CLAUSE_END = re.compile(r"[.!?;:。！？；：]")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*")
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_MD_MARKS = re.compile(r"[*`#>|]+|(?<!\w)_+|_+(?!\w)")
_SPACE = re.compile(r"\s+")
_NO_SPACE_BEFORE = re.compile(r"\s+([.,;:!?。，])")
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\w+(?:'\w+)*")
_DIGIT = re.compile(r"\d")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_CJK_SPLIT = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])")
_TRANSLATE = str.maketrans(
    {"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "‚": "'", "–": "-", "—": "-", "−": "-",
     "\u00a0": " ", "\u200b": ""}
)  # fmt: skip
_STOP_WORDS = (
    "a an the and or but of to in on at by for with from as is are was were be been being it its this that these "
    "those there here he she they them his her their we you i not no so if than then also has have had do does did "
    "will would can could may might should which who whom what when where how about into over after before said says"
)
_STOP = frozenset(_STOP_WORDS.split())


def normalise(text: str) -> str:
    """Text as compared: markdown links as their words, no emphasis marks, one kind of quote and
    dash, whitespace collapsed, case folded."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_MARKS.sub("", text)
    return _SPACE.sub(" ", text).strip().casefold()


def _length(text: str) -> int:
    """Length for the quote thresholds: a CJK character carries about a word, so it counts three."""
    return len(text) + 2 * len(_CJK.findall(text))


def _terms(text: str) -> set[str]:
    """Content words; CJK text (no spaces) as character pairs."""
    terms: set[str] = set()
    for word in _WORD.findall(text.casefold()):
        if _CJK.search(word):
            chars = [c for c in word if _CJK.match(c)]
            terms.update(a + b for a, b in itertools.pairwise(chars))
            terms.update(w for w in _CJK.split(word) if len(w) > 1 and w not in _STOP)
        elif len(word) > 1 and word not in _STOP:
            terms.add(word)
    return terms


@dataclass
class _Token:
    word: str
    start: int
    end: int


def _tokens(flat: str) -> list[_Token]:
    """The words of normalised text, with where they are; a CJK character is a word of its own."""
    out: list[_Token] = []
    for match in _TOKEN.finditer(flat):
        word, at = match.group(), match.start()
        if not _CJK.search(word):
            out.append(_Token(word, at, match.end()))
            continue
        for piece in _CJK_SPLIT.split(word):
            if piece:
                out.append(_Token(piece, at, at + len(piece)))
            at += len(piece)
    return out


def _negation(word: str) -> bool:
    return word in NEGATIONS or word.endswith("n't")


def _same(quoted: str, source: str, typos: bool) -> bool:
    """Whether a quoted word is the source's word: equal, or (in a long quote) one edit off in a
    long word that is neither a number nor a negation."""
    if quoted == source:
        return True
    if not typos or min(len(quoted), len(source)) < TYPO_MIN_LETTERS:
        return False
    if _DIGIT.search(quoted) or _DIGIT.search(source) or _negation(quoted) or _negation(source):
        return False
    return OSA.distance(quoted, source, score_cutoff=1) <= 1


@dataclass
class _Passage:
    text: str
    terms: set[str]
    flat: str = ""
    tokens: list[_Token] = field(default_factory=list)


def _passages(text: str) -> list[_Passage]:
    """The source in passages of about `PASSAGE_CHARS`: paragraphs, long ones cut at sentence ends."""
    out: list[_Passage] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        while paragraph:
            if len(paragraph) <= PASSAGE_CHARS:
                piece, paragraph = paragraph, ""
            else:
                cut = max(paragraph.rfind(". ", 0, PASSAGE_CHARS), paragraph.rfind("。", 0, PASSAGE_CHARS))
                cut = cut + 1 if cut > PASSAGE_CHARS // 3 else PASSAGE_CHARS
                piece, paragraph = paragraph[:cut].strip(), paragraph[cut:].strip()
            if piece:
                flat = normalise(piece)
                out.append(_Passage(piece, _terms(piece), flat, _tokens(flat)))
    return out


@dataclass
class _Source:
    """A source's text as the checks read it: its passages and all their words in order."""

    text: str
    flat: str
    passages: list[_Passage]
    words: list[str] = field(default_factory=list)
    where: list[tuple[int, int]] = field(default_factory=list)
    """(passage, token index in it) of each word."""
    index: dict[str, list[int]] = field(default_factory=dict)
    """Where each word stands, in order: a quote is looked for only where one of its words is."""

    def __post_init__(self) -> None:
        for number, passage in enumerate(self.passages):
            self.words += [t.word for t in passage.tokens]
            self.where += [(number, i) for i in range(len(passage.tokens))]
        for at, word in enumerate(self.words):
            self.index.setdefault(word, []).append(at)


def _best_passage(sentence: str, passages: list[_Passage]) -> tuple[str, float]:
    wanted = _terms(sentence)
    if not wanted or not passages:
        return "", 0.0
    best = max(passages, key=lambda p: len(wanted & p.terms))
    return best.text, round(len(wanted & best.terms) / len(wanted), 3)


def _exact_only(word: str) -> bool:
    """Whether `word` may differ from the source's by no typo at all."""
    return len(word) < TYPO_MIN_LETTERS or bool(_DIGIT.search(word)) or _negation(word)


def _matches(part: list[str], source: _Source, lo: int, hi: int, typos: bool) -> Iterator[int]:
    """Where in the source's words `lo:hi` the words of `part` stand one for one, in order.
    Candidates come from the index of a word that must match exactly, when the part has one."""
    words, size = source.words, len(part)
    anchor = next((j for j, w in enumerate(part) if not typos or _exact_only(w)), None)
    if anchor is None:
        candidates: Iterator[int] | range = range(lo, hi - size + 1)
    else:
        positions = source.index.get(part[anchor], [])
        candidates = (p - anchor for p in positions[bisect_left(positions, lo + anchor) :])
    for at in candidates:
        if at > hi - size:
            return
        if all(_same(q, w, typos) for q, w in zip(part, words[at : at + size], strict=True)):
            yield at


def _after_negation(source: _Source, at: int) -> bool:
    """Whether the word before `at` negates it: the quote starts where the source says "not"."""
    if at == 0:
        return False
    (p, i), (q, j) = source.where[at - 1], source.where[at]
    if p != q or not _negation(source.words[at - 1]):
        return False
    tokens = source.passages[p].tokens
    return not _CLAUSE_END.search(source.passages[p].flat[tokens[i].end : tokens[j].start])


def _find_quote(quote: str, source: _Source) -> tuple[bool, float, int]:
    """Whether `quote` (normalised) is in `source`: found, a score 0–100 (how close it came),
    and the passage holding it (-1 when not found); see the module docstring."""
    parts = [p for p in _ELLIPSIS.split(quote) if p.strip()]
    words = [[t.word for t in _tokens(part)] for part in parts]
    typos = [_length(part) >= QUOTE_MIN_CHARS for part in parts]
    words, typos = [w for w in words if w], [t for w, t in zip(words, typos, strict=True) if w]
    if not words:
        return True, 100.0, -1
    everything = source.words
    if len(words) == 1:
        for at in _matches(words[0], source, 0, len(everything), typos[0]):
            if not _after_negation(source, at):
                return True, _score(words[0], everything[at : at + len(words[0])]), source.where[at][0]
        return False, _closeness(quote, source), -1
    start = 0
    for index, passage in enumerate(source.passages):  # an elided quote stays within one passage
        lo, hi = start, start + len(passage.tokens)
        start = hi
        for at in _matches(words[0], source, lo, hi, typos[0]):
            follows = _rest_follows(words, typos, source, at + len(words[0]), hi)
            if follows is None:  # a later part is missing after here: no later start finds it
                break
            if follows and not _after_negation(source, at):
                return True, 100.0, index
    return False, _closeness(quote, source), -1


def _rest_follows(parts: list[list[str]], typos: list[bool], source: _Source, at: int, hi: int) -> bool | None:
    """Whether parts 2… follow in order from `at` before `hi` with no ellipsis leaving out a
    negation; None when one of them does not follow at all. Each part is placed at its nearest
    match: what a farther one leaves out includes what the nearest leaves out."""
    for part, typo in zip(parts[1:], typos[1:], strict=True):
        found = next(_matches(part, source, at, hi, typo), None)
        if found is None:
            return None
        if any(_negation(w) for w in source.words[at:found]):
            return False
        at = found + len(part)
    return True


def _score(quoted: list[str], found: list[str]) -> float:
    return round(fuzz.ratio(" ".join(quoted), " ".join(found)), 1)


def _closeness(quote: str, source: _Source) -> float:
    """How close a quote that was not found came (partial_ratio over the source, 0–100): for the reader."""
    return round(max((fuzz.partial_ratio(part, source.flat) for part in _ELLIPSIS.split(quote) if part.strip()),
                     default=0.0), 1)  # fmt: skip


@dataclass
class _Marker:
    numbers: list[int]
    start: int
    end: int


def _groups(answer: str) -> list[_Marker]:
    """Markers in order; adjacent ones (`[1][2]`, `[1], [3]`) form one group sharing its text."""
    groups: list[_Marker] = []
    for match in _MARKER.finditer(answer):
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        if groups and not answer[groups[-1].end : match.start()].strip(" ,;，、"):
            groups[-1].numbers += numbers
            groups[-1].end = match.end()
        else:
            groups.append(_Marker(numbers, match.start(), match.end()))
    return groups


_STOPS = ".!?。！？\n"


class _Sentences:
    """Where the answer's sentences end, found once: each marker's sentence is then a bisect away."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.ends = [m.start() for m in _SENTENCE_END.finditer(answer)]

    def _last_end(self, before: int) -> int:
        """Where the sentence running at `before` starts: after the last stop before it (a stop
        right before `before` counts whatever follows it)."""
        if before and self.answer[before - 1] in _STOPS:
            return before
        index = bisect_left(self.ends, before - 1)
        return self.ends[index - 1] + 1 if index else 0

    def bounds(self, marker: _Marker) -> tuple[int, int]:
        """The sentence a marker belongs to; a marker after the full stop (`... today. [1]`) cites
        the sentence before it."""
        answer = self.answer
        start = self._last_end(marker.start)
        if start and not _MARKER.sub("", answer[start : marker.start]).strip():  # only markers since the stop
            before = len(answer[:start].rstrip())
            return (self._last_end(before - 1) if before > 1 else 0), marker.end
        index = bisect_left(self.ends, marker.end)
        return start, self.ends[index] + 1 if index < len(self.ends) else len(answer)


def _prose(span: str) -> bool:
    """Whether a backtick span reads as quoted prose rather than code (see `PROSE_MIN_WORDS`)."""
    return len(span.split()) >= PROSE_MIN_WORDS and not _CODE_CHARS.search(span)


def _quotes(text: str) -> list[str]:
    found = []
    for match in _QUOTES.finditer(text):
        quote = next(g for g in match.groups() if g is not None).strip()
        if match.group(_BACKTICK_GROUP) is not None and not _prose(quote):
            continue
        if quote:
            found.append(quote)
    return found


def _quoted_near(answer: str, groups: list[_Marker], index: int, start: int, stop: int) -> list[str]:
    """Quotes that belong to marker group `index`: between the marker before it (in its sentence)
    and itself; if none, from it to the next marker (`According to [2], "…"`)."""
    marker = groups[index]
    left = max(start, groups[index - 1].end) if index else start
    quotes = _quotes(answer[left : marker.start])
    if quotes:
        return quotes
    following = groups[index + 1].start if index + 1 < len(groups) and groups[index + 1].start < stop else stop
    return _quotes(answer[marker.end : following])


@dataclass
class _Block:
    """A `> blockquote`: where it is in the answer, and where its lines' text (without `>`) is."""

    start: int
    end: int
    lines: list[tuple[int, int]]
    firsts: list[int]
    """Where each line's text starts (for bisect)."""

    def text(self, answer: str, start: int, end: int) -> str:
        """The block's text between `start` and `end` of the answer, markers left out."""
        first = max(0, bisect_right(self.firsts, start) - 1)
        pieces = []
        for a, b in (self.lines[i] for i in range(first, len(self.lines))):
            if a >= end:
                break
            if b > start:
                pieces.append(answer[max(a, start) : min(b, end)])
        return _SPACE.sub(" ", _MARKER.sub(" ", " ".join(pieces))).strip()


def _blocks(answer: str) -> list[_Block]:
    blocks: list[_Block] = []
    for match in _BLOCKQUOTE.finditer(answer):
        if blocks and answer[blocks[-1].end : match.start()] == "\n":
            blocks[-1].end = match.end()
            blocks[-1].lines.append(match.span(1))
            blocks[-1].firsts.append(match.start(1))
        else:
            blocks.append(_Block(match.start(), match.end(), [match.span(1)], [match.start(1)]))
    return blocks


def _blockquoted(answer: str, groups: list[_Marker]) -> dict[int, list[str]]:
    """What `> blockquotes` quote, by marker group: for a marker inside a block, the block's text
    before it (after the block's previous marker); for markers on the line just before a block
    (`As [1] puts it:`) or just after it, the whole block, when it carries no marker of its own."""
    quoted: dict[int, list[str]] = {}
    starts = [g.start for g in groups]
    for block in _blocks(answer) if ">" in answer else []:
        lo, hi = bisect_left(starts, block.start), bisect_left(starts, block.end)
        if lo < hi:
            left = block.start
            for index in range(lo, hi):
                text = block.text(answer, left, groups[index].start)
                if text:
                    quoted[index] = [text]
                left = groups[index].end
            continue
        line_before = answer.rfind("\n", 0, max(0, block.start - 1)) + 1
        line_after = answer.find("\n", block.end + 1)
        near = [*range(bisect_left(starts, line_before), lo)]
        near += range(hi, bisect_right(starts, len(answer) if line_after < 0 else line_after))
        whole = block.text(answer, block.start, block.end)
        for index in near:
            quoted.setdefault(index, []).append(whole)
    return quoted


def _clean_sentence(text: str) -> str:
    return _NO_SPACE_BEFORE.sub(r"\1", _SPACE.sub(" ", _MARKER.sub("", text))).strip()


def check_citations(answer: str, book: SourceBook) -> list[CitationCheck]:
    """One check per `[n]` of `answer`, in order (see the module docstring)."""
    groups = _groups(answer)
    sentences = _Sentences(answer)
    blockquoted = _blockquoted(answer, groups)
    checks: list[CitationCheck] = []
    read: dict[int, _Source] = {}
    supported: dict[tuple[int, str], tuple[str, float]] = {}
    found_in: dict[tuple[int, str], tuple[bool, float, int]] = {}
    said: dict[tuple[int, int], str] = {}
    for index, group in enumerate(groups):
        start, stop = sentences.bounds(group)
        if (start, stop) not in said:  # many markers in one sentence: cleaned once
            said[start, stop] = _clean_sentence(answer[start:stop])
        sentence = said[start, stop]
        quotes = (_quoted_near(answer, groups, index, start, stop) + blockquoted.get(index, []))[:MAX_QUOTES]
        for number in group.numbers:
            source = book.get(number)
            if source is None:
                checks.append(CitationCheck(number=number, status="unknown_source", sentence=sentence))
                continue
            if number not in read:
                text = book.text(number)
                read[number] = _Source(text, normalise(text), _passages(text))
            if (number, sentence) not in supported:
                supported[number, sentence] = _best_passage(sentence, read[number].passages)
            passage, score = supported[number, sentence]
            status: CitationStatus = "verified" if quotes else "cited" if score >= SUPPORT_MIN_SCORE else "unsupported"
            quote_score: float | None = None
            shown_quote: str | None = None
            for quote in quotes:
                key = (number, normalise(quote))
                if key not in found_in:
                    found_in[key] = _find_quote(key[1], read[number])
                found, quote_score, at = found_in[key]
                shown_quote = quote
                if not found:
                    status = "quote_not_found"
                    break
                if at >= 0:
                    passage = read[number].passages[at].text
            checks.append(
                CitationCheck(
                    number=number,
                    status=status,
                    sentence=sentence,
                    quote=shown_quote,
                    quote_score=quote_score,
                    passage=passage,
                    score=score,
                    url=source.url,
                )
            )
    return checks
