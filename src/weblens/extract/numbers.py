"""Numbers and dates as pages write them: `1,299.00`, `1.299,00`, `1 299`, `1,29,999`, `1.2 million`, `15%`,
`14 March 2026`, `14. März 2026`, `3/14/2026`, `2026/03/14`, `2026年3月14日`."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

__all__ = ["NUMBER", "find_dates", "find_numbers", "parse_date", "parse_number", "readings"]

NUMBER = re.compile(
    r"(?:(?<![\w.,])[-\u2212])?"  # a minus sign, not a hyphen after a word or number (`10-15`, `X-5`)
    r"(?:(?<![\w.,])\d{1,2}(?:,\d\d)+,\d{3}(?:\.\d+)?(?!\d)"  # Indian grouping: 1,29,999
    r"|(?<![\w.,])\d{1,3}(?:[,.\u00a0\u202f' ]\d{3})+(?:[.,]\d+)?(?!\d)"  # grouped: 1,299.00  1.299,00  1 299
    r"|(?<![\w.,])\d+(?:[.,]\d+)?(?!\d))"
)
_SCALE = re.compile(  # `5m` is five metres more often than five million: only `M` scales
    r"\s?([Tt]housand|[Mm]illion|[Bb]illion|[Tt]rillion)(?![A-Za-z])|([kKMB]|bn|mn)(?![A-Za-z])|\s?(千|万|萬|亿|億)"
)
_SCALES = {"thousand": 3, "k": 3, "千": 3, "million": 6, "m": 6, "mn": 6, "万": 4, "萬": 4, "billion": 9, "b": 9,
           "bn": 9, "亿": 8, "億": 8, "trillion": 12}  # fmt: skip
_PERCENT = re.compile(r"\s?%")
_MONTH_NAMES = (
    # English (with abbreviations), German, French, Spanish, Italian, Portuguese, Dutch
    "jan january januar janvier enero gennaio janeiro januari",
    "feb february februar février fevrier febrero febbraio fevereiro februari",
    "mar march märz maerz mars marzo março maart",
    "apr april avril abril aprile",
    "may mai mayo maggio maio mei",
    "jun june juni juin junio giugno junho",
    "jul july juli juillet julio luglio julho",
    "aug august août aout agosto augustus",
    "sep sept september septembre septiembre setiembre settembre setembro",
    "oct october oktober okt octobre octubre ottobre outubro",
    "nov november novembre noviembre novembro",
    "dec december dezember dez décembre decembre diciembre dicembre dezembro",
)
_MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES, start=1) for name in names.split()}
_MONTH = "(" + "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True)) + r")\.?"
_ISO = re.compile(r"(?<!\d)(?<!\d\.)(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d|\.\d)")  # 2026-03-14, 2026/03/14
_CJK = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日号號일]?")  # 2026年3月14日, 2026년 3월 14일
_DMY_NAME = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s+(?:of\s+|de\s+)?{_MONTH},?\s+(?:de\s+|del\s+)?(\d{{4}})(?!\d)", re.I
)
_MDY_NAME = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)", re.I)
_SLASH = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?!\d)")


def _suffix(after: str) -> tuple[int, int] | None:
    """(length, power of ten) of a scale word or a percent sign right after a number: `1.2 million`, `15 %`."""
    if scale := _SCALE.match(after):
        return scale.end(), _SCALES[next(word for word in scale.groups() if word).casefold()]
    if percent := _PERCENT.match(after):
        return percent.end(), -2
    return None


def readings(token: str, power: int | None = None) -> set[Decimal]:
    """What a written number may mean: `1,299` is 1299, or 1.299 where a comma is the decimal mark; `-5` is
    -5 or (a dash) 5; followed by a scale (`power`), `1.2 million` is also 1200000 and `15%` also 0.15."""
    token = token.replace("\u2212", "-")
    main = parse_number(token)
    out = {main} if main is not None else set()
    marks = [c for c in token if c in ",."]
    if len(marks) == 1 and len(token.rsplit(marks[0], 1)[1]) == 3:
        whole, _, part = token.partition(marks[0])
        out |= {Decimal(f"{whole}.{part}"), Decimal(whole + part)}
    if token.startswith("-"):
        out |= {-value for value in out}  # `-20%` is a discount of 20 as often as minus twenty
    if power is not None:
        out |= {value.scaleb(power) for value in out}
    return out


def parse_number(text: str) -> Decimal | None:
    """The number a field value states (`$1,299.00` -> 1299.00); None when it holds none or several.

    The last of `,` and `.` is the decimal mark when both appear; a lone comma is one only
    when it is not followed by exactly three digits (`1,5` but not `1,299`).
    """
    found = NUMBER.findall(text.replace("\u2212", "-"))
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
        suffix = _suffix(text[match.end() : match.end() + 12])
        length, power = suffix or (0, None)
        yield match.start(), match.end() + length, readings(match.group(), power)


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
        day = _date(int(match[1]), int(match[3]), int(match[4]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _CJK.finditer(text):
        day = _date(int(match[1]), int(match[2]), int(match[3]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _DMY_NAME.finditer(text):
        day = _date(int(match[3]), _MONTHS[match[2].casefold()], int(match[1]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _MDY_NAME.finditer(text):
        day = _date(int(match[3]), _MONTHS[match[1].casefold()], int(match[2]))
        if day:
            yield match.start(), match.end(), {day}
    for match in _SLASH.finditer(text):
        a, b, year = int(match[1]), int(match[2]), int(match[3])
        days = {d for d in (_date(year, b, a), _date(year, a, b)) if d}
        if days:
            yield match.start(), match.end(), days
