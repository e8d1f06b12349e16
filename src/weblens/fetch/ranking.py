"""Score a page's passages for a query: BM25 over the passages of one page, plus its headings.

Ranking one page is small work (tens to hundreds of passages), so it is plain Python: on
bench/reading.py this is faster than building a sparse index with bm25s for every page,
and needs no numpy. Words are lower-cased, English stop words dropped and plurals folded
(a conservative S-stemmer); runs of Chinese or Japanese characters, written without
spaces, become overlapping character pairs. On top of BM25, what measured better there:
query words in a passage's heading path count too, and a passage matching more of the
query's distinct words outranks one repeating a single word.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["MAX_QUERY_TERMS", "query_terms", "score_passages", "terms"]

_K1 = 1.2
_B = 0.75
MAX_QUERY_TERMS = 32
"""A question has fewer content words; the cap bounds the cost of matching a hostile one."""
_HEADING_WEIGHT = 0.5
"""A query word in the heading path counts this share of its weight in the passage."""
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STOP_WORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as",
        "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
        "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
        "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his",
        "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my",
        "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
        "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
        "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
        "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
        "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves", "s", "t", "don"
    ]
)  # fmt: skip


def _stem(word: str) -> str:
    """Harman's S-stemmer: fold plurals only, so nothing unrelated is merged."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The words of `text` that carry meaning, normalised for matching."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in _STOP_WORDS:
            continue
        if _CJK.search(word):
            for run in _CJK.findall(word):
                out.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
            rest = _CJK.sub(" ", word).split()
            out.extend(rest)
            continue
        out.append(_stem(word))
    return out


def query_terms(query: str) -> list[str]:
    """The query's distinct words, in order (at most `MAX_QUERY_TERMS`); all of them when
    every word is a stop word."""
    found = list(dict.fromkeys(terms(query))) or list(dict.fromkeys(_WORD.findall(query.lower())))
    return found[:MAX_QUERY_TERMS]


def _surface_forms(stems: list[str]) -> dict[str, str]:
    """Every word form the S-stemmer maps onto one of `stems` (so the document is never stemmed)."""
    forms: dict[str, str] = {}
    for stem in stems:
        candidates = [stem, stem + "s", stem + "es"]
        if stem.endswith("y"):
            candidates.append(stem[:-1] + "ies")
        forms.update((form, stem) for form in candidates if _stem(form) == stem)
    return forms


def _matcher(forms: dict[str, str]) -> re.Pattern[str]:
    """Finds the query's word forms as whole words: cheaper than splitting every word of a page."""
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def _counts(text: str, matcher: re.Pattern[str], forms: dict[str, str], wanted: set[str]) -> Counter[str]:
    """How often each query word occurs in one passage."""
    lowered = text.lower()
    if _CJK.search(lowered):  # rare: the general path, with character pairs
        return Counter(word for word in terms(lowered) if word in wanted)
    return Counter(forms[form] for form in matcher.findall(lowered))


def score_passages(texts: Sequence[str], headings: Sequence[str], query: str) -> list[float]:
    """A score per passage (0 when it shares no word with the query); higher is better."""
    wanted = query_terms(query)
    if not wanted or not texts:
        return [0.0] * len(texts)
    wanted_set = set(wanted)
    forms = _surface_forms(wanted)
    matcher = _matcher(forms)
    bags: list[Counter[str]] = []
    lengths: list[int] = []  # in characters: BM25 only compares them, and counting words costs more
    heading_bags: list[set[str]] = []
    seen_headings: dict[str, set[str]] = {}  # passages under one heading share its path
    for text, heading in zip(texts, headings, strict=True):
        bags.append(_counts(text, matcher, forms, wanted_set))
        lengths.append(len(text))
        if heading not in seen_headings:
            seen_headings[heading] = wanted_set.intersection(terms(heading))
        heading_bags.append(seen_headings[heading])
    count = len(texts)
    average = sum(lengths) / count or 1.0
    frequency = Counter(word for bag, head in zip(bags, heading_bags, strict=True) for word in set(bag) | head)
    idf = {word: math.log(1.0 + (count - frequency[word] + 0.5) / (frequency[word] + 0.5)) for word in wanted}
    total_idf = sum(idf.values()) or 1.0
    scores = []
    for bag, head, length in zip(bags, heading_bags, lengths, strict=True):
        norm = _K1 * (1.0 - _B + _B * length / average)
        body = sum(idf[word] * tf * (_K1 + 1.0) / (tf + norm) for word, tf in bag.items())
        title = _HEADING_WEIGHT * sum(idf[word] for word in head)
        covered = sum(idf[word] for word in set(bag) | head) / total_idf
        scores.append((body + title) * covered)
    return scores
