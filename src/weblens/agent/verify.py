"""Citation checks after the answer: is each `[n]` a real source, and is what it carries in it?

For every marker: source n must exist in the run's ledger (else `unknown_source`); text
the sentence quotes next to the marker must occur in the text read from source n —
compared after normalising case, whitespace, quote marks, dashes and markdown, exactly,
or for quotes of at least `QUOTE_MIN_CHARS` by a fuzzy match scoring `QUOTE_MIN_SCORE`
(rapidfuzz `partial_ratio`, 0–100) that holds every word of the quote — else
`quote_not_found`; and the sentence is matched
to the passage of the source that shares most of its words (the `score`, 0–1).
The thresholds are measured by `bench/citations.py`.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz

from weblens.agent.citations import SourceBook
from weblens.agent.events import CitationCheck

__all__ = ["QUOTE_MIN_CHARS", "QUOTE_MIN_SCORE", "check_citations", "normalise"]

QUOTE_MIN_CHARS = 24
"""Shorter quotes must occur exactly (after normalising): a fuzzy match of a few words proves little.
Lengths count a CJK character as three."""
QUOTE_MIN_SCORE = 90.0
"""partial_ratio a longer quote needs (and all its words must be there): marks and spacing may differ."""
QUOTE_SHORTEST = 8
"""Quoted text shorter than this ("AI", a name) is emphasis, not a quotation, and is not checked."""
PASSAGE_CHARS = 600

_MARKER = re.compile(r"\[(\d{1,4}(?:\s*[,，、]\s*\d{1,4})*)\]")
_QUOTES = re.compile(
    r'"([^"\n]{1,2000})"|“([^”\n]{1,2000})”|„([^“”\n]{1,2000})[“”]|«([^»\n]{1,2000})»|「([^」\n]{1,2000})」'
)
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|\n")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*")
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_MD_MARKS = re.compile(r"[*`#>|]+|(?<!\w)_+|_+(?!\w)")
_SPACE = re.compile(r"\s+")
_NO_SPACE_BEFORE = re.compile(r"\s+([.,;:!?。，])")
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
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
class _Passage:
    text: str
    terms: set[str]


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
                out.append(_Passage(piece, _terms(piece)))
    return out


def _best_passage(sentence: str, passages: list[_Passage]) -> tuple[str, float]:
    wanted = _terms(sentence)
    if not wanted or not passages:
        return "", 0.0
    best = max(passages, key=lambda p: len(wanted & p.terms))
    return best.text, round(len(wanted & best.terms) / len(wanted), 3)


def _find_quote(quote: str, source: str) -> tuple[bool, float, int]:
    """Whether `quote` (normalised) is in `source` (normalised): found, score 0–100, where.

    Not found verbatim, a quote of `QUOTE_MIN_CHARS` or more still counts when its best fuzzy
    alignment scores `QUOTE_MIN_SCORE` and holds every word of the quote: punctuation and
    spacing may differ, a word or a number may not (that is how quotes get falsified)."""
    parts = [p for p in _ELLIPSIS.split(quote) if p.strip()]  # "a … b": each part in turn
    worst, first = 100.0, -1
    for part in parts or [quote]:
        at = source.find(part)
        if at >= 0:
            first = at if first < 0 else first
            continue
        if _length(part) < QUOTE_MIN_CHARS:
            return False, 0.0, first
        match = fuzz.partial_ratio_alignment(part, source)
        score = match.score if match is not None else 0.0
        worst = min(worst, score)
        if match is None or score < QUOTE_MIN_SCORE:
            return False, round(worst, 1), first
        window = source[max(0, match.dest_start - 16) : match.dest_end + 16]
        if not set(_WORD.findall(part)) <= set(_WORD.findall(window)):
            return False, round(worst, 1), first
        first = match.dest_start if first < 0 else first
    return True, round(worst, 1), first


def _around(original: str, normalised_source: str, at: int, passages: list[_Passage]) -> str:
    """The passage of the source holding the match found at `at` of its normalised text."""
    if at < 0:
        return ""
    snippet = normalised_source[at : at + 60]
    for passage in passages:
        if snippet[:30] in normalise(passage.text):
            return passage.text
    return original[:PASSAGE_CHARS]


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


def _sentence_bounds(answer: str, marker: _Marker) -> tuple[int, int]:
    """The sentence a marker belongs to; a marker after the full stop (`... today. [1]`) cites
    the sentence before it."""
    start = 0
    for end in _SENTENCE_END.finditer(answer, 0, marker.start):
        start = end.end()
    if start and not _MARKER.sub("", answer[start : marker.start]).strip():  # only markers since the stop
        before = answer[:start].rstrip()
        prev = 0
        for end in _SENTENCE_END.finditer(before, 0, max(0, len(before) - 1)):
            prev = end.end()
        return prev, marker.end
    stop = _SENTENCE_END.search(answer, marker.end)
    return start, stop.end() if stop else len(answer)


def _quotes(text: str) -> list[str]:
    found = []
    for match in _QUOTES.finditer(text):
        quote = next(g for g in match.groups() if g is not None).strip()
        if _length(quote) >= QUOTE_SHORTEST:
            found.append(quote)
    return found


def _quoted_near(answer: str, groups: list[_Marker], index: int, start: int, stop: int) -> list[str]:
    """Quotes that belong to marker group `index`: between the marker before it (in its sentence)
    and itself; if none, from it to the next marker (`According to [2], "…"`)."""
    marker = groups[index]
    left = max([start] + [g.end for g in groups[:index] if g.end <= marker.start and g.end > start])
    quotes = _quotes(answer[left : marker.start])
    if quotes:
        return quotes
    following = [g.start for g in groups[index + 1 :] if g.start < stop]
    return _quotes(answer[marker.end : following[0] if following else stop])


def _clean_sentence(text: str) -> str:
    return _NO_SPACE_BEFORE.sub(r"\1", _SPACE.sub(" ", _MARKER.sub("", text))).strip()


def check_citations(answer: str, book: SourceBook) -> list[CitationCheck]:
    """One check per `[n]` of `answer`, in order (see the module docstring)."""
    groups = _groups(answer)
    checks: list[CitationCheck] = []
    cache: dict[int, tuple[str, str, list[_Passage]]] = {}
    for index, group in enumerate(groups):
        start, stop = _sentence_bounds(answer, group)
        sentence = _clean_sentence(answer[start:stop])
        quotes = _quoted_near(answer, groups, index, start, stop)
        for number in group.numbers:
            source = book.get(number)
            if source is None:
                checks.append(CitationCheck(number=number, status="unknown_source", sentence=sentence))
                continue
            if number not in cache:
                text = book.text(number)
                cache[number] = (text, normalise(text), _passages(text))
            text, flat, passages = cache[number]
            passage, score = _best_passage(sentence, passages)
            status = "verified"
            quote_score: float | None = None
            shown_quote: str | None = None
            for quote in quotes:
                found, quote_score, at = _find_quote(normalise(quote), flat)
                shown_quote = quote
                if found:
                    passage = _around(text, flat, at, passages) or passage
                else:
                    status = "quote_not_found"
                    break
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
