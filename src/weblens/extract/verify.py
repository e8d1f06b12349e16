"""Is a value on the page? Found in the page's visible text, with the quote and its offsets.

Strings match word for word after case and punctuation are set aside; a long string (eight
words or more) may have a few other words between its own, but every one of its words must
be there, in order. Numbers match whatever their formatting; dates in any common form;
enums and booleans only where a sentence carries the value's (or the field's) words.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import itertools
import re
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from weblens.extract.fields import MAX_DEPTH, FieldSpec, words_of
from weblens.extract.numbers import find_dates, find_numbers, parse_date
from weblens.extract.visible import INVISIBLE

__all__ = ["Evidence", "PageText", "find_evidence"]

LONG_STRING_WORDS = 8
PHRASE_STEPS = 200_000
_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"[^.!?\n|]+")
_NAME_TOKEN = re.compile(r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)+|[A-Za-z]+(?:_[A-Za-z]+)+")  # InStock, in_stock
_DOLLAR = ("$",)
_CURRENCY_SIGNS: dict[str, tuple[str, ...]] = {
    "USD": ("US$", *_DOLLAR), "CAD": ("C$", "CA$", *_DOLLAR), "AUD": ("A$", "AU$", *_DOLLAR),
    "NZD": ("NZ$", *_DOLLAR), "SGD": ("S$", *_DOLLAR), "HKD": ("HK$", *_DOLLAR), "MXN": ("MX$", *_DOLLAR),
    "EUR": ("€",), "GBP": ("£",), "JPY": ("¥", "円"), "CNY": ("¥", "元"), "INR": ("₹",), "KRW": ("₩",),
    "RUB": ("₽",), "TRY": ("₺",), "ILS": ("₪",), "UAH": ("₴",), "VND": ("₫",), "PHP": ("₱",), "NGN": ("₦",),
    "THB": ("฿",), "BRL": ("R$",), "PLN": ("zł",),
}  # fmt: skip
"""A currency code a page shows as its sign; `$` stands for any dollar, so it confirms less than the code."""
_NEGATION = {"not", "no", "out", "unavailable", "sold", "without", "none", "never"}


class Evidence(BaseModel):
    """The passage of the page's visible text that shows the value: `text[start:end] == quote`."""

    quote: str
    start: int
    end: int


class PageText:
    """The visible text, split into words once for every field's check."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = [(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]
        self.at: dict[str, list[int]] = defaultdict(list)
        for index, (word, _, _) in enumerate(self.words):
            self.at[word].append(index)
        self._joined = " " + " ".join(word for word, _, _ in self.words) + " "
        """The words, each between spaces: a phrase is found by `str.find` (a regex with lookarounds
        loses the engine's fast literal search: 40 times slower on a long page)."""
        self._starts = list(itertools.accumulate((len(word) + 1 for word, _, _ in self.words[:-1]), initial=0))
        """Where each word starts in `_joined`, less its leading space."""

    def evidence(self, start: int, end: int) -> Evidence:
        return Evidence(quote=self.text[start:end], start=start, end=end)

    def phrase(self, words: Sequence[str]) -> Evidence | None:
        """Where `words` appear, consecutively (or, for a long phrase, in order within a little slack).

        The consecutive words are looked for in one pass over the page's words; the loose match stops
        after `PHRASE_STEPS` comparisons, as a page repeating a long value's words would take minutes."""
        if not words:
            return None
        exact = self._joined.find(f" {' '.join(words)} ")
        if exact >= 0:
            first = bisect.bisect_left(self._starts, exact)
            return self.evidence(self.words[first][1], self.words[first + len(words) - 1][2])
        if len(words) < LONG_STRING_WORDS:
            return None
        slack, steps = len(words) // 2 + 2, 0
        for first in self.at.get(words[0], ()):
            position = first
            for word in words[1:]:
                window = range(position + 1, min(position + 2 + slack, len(self.words)))
                steps += len(window)
                position = next((i for i in window if self.words[i][0] == word), -1)
                if position < 0:
                    break
            else:
                return self.evidence(self.words[first][1], self.words[position][2])
            if steps > PHRASE_STEPS:
                return None
        return None

    def sign(self, signs: Sequence[str]) -> Evidence | None:
        for sign in signs:
            at = self.text.find(sign)
            if at >= 0:
                return self.evidence(at, at + len(sign))
        return None

    @functools.cached_property
    def _numbers(self) -> dict[Decimal, tuple[int, int]]:
        """Each number the page writes, what it may mean -> where it is first written: read once, not per value."""
        found: dict[Decimal, tuple[int, int]] = {}
        for start, end, meanings in find_numbers(self.text):
            for meaning in meanings:
                found.setdefault(meaning, (start, end))
        return found

    @functools.cached_property
    def _dates(self) -> dict[dt.date, tuple[int, int]]:
        found: dict[dt.date, tuple[int, int]] = {}
        for start, end, days in find_dates(self.text):
            for day in days:
                found.setdefault(day, (start, end))
        return found

    def number(self, value: Decimal) -> Evidence | None:
        where = self._numbers.get(value)
        return None if where is None else self.evidence(*where)

    def date(self, value: dt.date) -> Evidence | None:
        where = self._dates.get(value)
        return None if where is None else self.evidence(*where)

    def sentence_with(self, words: Sequence[str]) -> tuple[Evidence, bool] | None:
        """The first sentence holding all of `words`, and whether it negates them."""
        wanted = set(words)
        for match in _SENTENCE.finditer(self.text):
            found = {w.casefold() for w in _WORD.findall(match.group())}
            if wanted and wanted <= found:
                start = match.start() + len(match.group()) - len(match.group().lstrip())
                return self.evidence(start, match.end()), bool(found & _NEGATION)
        return None


def _scalar_evidence(page: PageText, field: FieldSpec, value: Any) -> Evidence | None:
    if isinstance(value, bool):
        sentence = page.sentence_with(words_of(field.name))
        if sentence is None:
            return None
        evidence, negated = sentence
        return evidence if negated != value else None
    if isinstance(value, int | float):
        return page.number(Decimal(str(value)))
    if not isinstance(value, str):
        return None
    if field.format in ("date", "date-time") or re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", value.strip()):
        day = parse_date(value)
        if day is not None:
            return page.date(day)
    found = page.phrase([w.casefold() for w in _WORD.findall(value.translate(INVISIBLE))])
    if found is None and _NAME_TOKEN.fullmatch(value):
        found = page.phrase(words_of(value))  # `InStock` and `in_stock` are shown as "in stock"
    if found is None and value in _CURRENCY_SIGNS:
        found = page.sign(_CURRENCY_SIGNS[value])  # `USD` is shown as "$"
    return found


def find_evidence(page: PageText, field: FieldSpec, value: Any, depth: int = 0) -> list[Evidence] | None:
    """The evidence for each of the value's parts (one for a scalar; every item of a list and every stated
    property of an object, named for itself), or None when any is not on the page."""
    if isinstance(value, dict):
        parts = [(FieldSpec(name=key, schema={}, types=()), part) for key, part in value.items() if part is not None]
    elif isinstance(value, list):
        parts = [(field, part) for part in value]
    else:
        scalar = _scalar_evidence(page, field, value)
        return None if scalar is None else [scalar]
    if depth >= MAX_DEPTH or (isinstance(value, dict) and not parts):
        return None
    found: list[Evidence] = []
    for spec, part in parts:
        evidence = find_evidence(page, spec, part, depth + 1)
        if evidence is None:
            return None
        found.extend(evidence)
    return found
