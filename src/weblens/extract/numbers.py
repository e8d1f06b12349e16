"""Numbers and dates as pages write them: `1,299.00`, `1.299,00`, `1 299`, `14 March 2026`, `3/14/2026`."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

__all__ = ["NUMBER", "find_dates", "find_numbers", "parse_date", "parse_number", "readings"]

NUMBER = re.compile(
    r"(?<![\w.,])\d{1,3}(?:[,.\u00a0\u202f' ]\d{3})+(?:[.,]\d+)?(?!\d)"  # grouped: 1,299.00  1.299,00  1 299
    r"|(?<![\w.,])\d+(?:[.,]\d+)?(?!\d)"
)
_MONTHS = {m: i for i, names in enumerate(
    (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")), start=1) for m in names}  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_DMY_NAME = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})(?!\d)", re.I)
_MDY_NAME = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)", re.I)
_SLASH = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?!\d)")


def readings(token: str) -> set[Decimal]:
    """What a written number may mean: `1,299` is 1299, or 1.299 where a comma is the decimal mark."""
    main = parse_number(token)
    out = {main} if main is not None else set()
    marks = [c for c in token if c in ",."]
    if len(marks) == 1 and len(token.rsplit(marks[0], 1)[1]) == 3:
        whole, _, part = token.partition(marks[0])
        out |= {Decimal(f"{whole}.{part}"), Decimal(whole + part)}
    return out


def parse_number(text: str) -> Decimal | None:
    """The number a field value states (`$1,299.00` -> 1299.00); None when it holds none or several.

    The last of `,` and `.` is the decimal mark when both appear; a lone comma is one only
    when it is not followed by exactly three digits (`1,5` but not `1,299`).
    """
    found = NUMBER.findall(text)
    if len(found) != 1:
        return None
    token = found[0].replace("\u00a0", "").replace("\u202f", "").replace("'", "").replace(" ", "")
    if "," in token and "." in token:
        decimal = "," if token.rfind(",") > token.rfind(".") else "."
    elif token.count(",") == 1 and len(token.rsplit(",", 1)[1]) != 3:
        decimal = ","
    else:
        decimal = "." if token.count(".") == 1 else ""
    grouping = {",", "."} - {decimal}
    for mark in grouping:
        token = token.replace(mark, "")
    try:
        return Decimal(token.replace(",", "."))
    except InvalidOperation:
        return None


def find_numbers(text: str) -> Iterator[tuple[int, int, set[Decimal]]]:
    """(start, end, what it may mean) for each number written in `text`."""
    for match in NUMBER.finditer(text):
        yield match.start(), match.end(), readings(match.group())


def parse_date(value: str) -> dt.date | None:
    """A field's date: ISO (`2026-03-14`, with or without a time) or any form `find_dates` reads."""
    try:
        return dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        pass
    found = [day for _, _, days in find_dates(value) for day in days]
    return found[0] if len(found) == 1 else None


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def find_dates(text: str) -> Iterator[tuple[int, int, set[dt.date]]]:
    """(start, end, which days it may be) for each date written in `text`; `3/4/2026` may be either."""
    for match in _ISO.finditer(text):
        day = _date(int(match[1]), int(match[2]), int(match[3]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _DMY_NAME.finditer(text):
        day = _date(int(match[3]), _MONTHS[match[2].casefold()[:3] if match[2].casefold()[:4] != "sept" else "sep"],
                    int(match[1]))  # fmt: skip
        if day:
            yield match.start(), match.end(), {day}
    for match in _MDY_NAME.finditer(text):
        day = _date(int(match[3]), _MONTHS[match[1].casefold()[:3]], int(match[2]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _SLASH.finditer(text):
        a, b, year = int(match[1]), int(match[2]), int(match[3])
        days = {d for d in (_date(year, b, a), _date(year, a, b)) if d}
        if days:
            yield match.start(), match.end(), days
