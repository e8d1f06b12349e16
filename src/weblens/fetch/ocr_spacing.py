"""Word spaces the OCR model drops, put back from the picture itself.

rapidocr's recognition models (PP-OCR, trained mostly on Chinese) read Latin letters well but
often run words together ("VesselAlbatross4200tons"), more so in small print: at 20 px most
lines came back as one word. The letters' positions are known (rapidocr's letter boxes: one box
a character), and so is where the line's picture is blank: a column with no ink. Within a line,
the blank runs between letters are narrow and those between words wide; the cut between the two
is found per line (the split of the run widths that best separates two groups, as Otsu's method
does for grey levels), so it follows the font and size of each line. A space is added where a
wide blank run falls between two letters the model joined; never between wide (CJK) characters,
which are written without spaces, and between two digits only at twice the cut (a narrow "1"
leaves wide margins). Measured in `bench/documents.py` and the note of this change.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Any

__all__ = ["spaced_line"]

_MIN_WORD_GAP = 0.1
"""A word gap is at least this share of the line's height..."""
_FALLBACK_WORD_GAP = 0.25
"""...and, when the runs do not fall into two groups, at least this share."""
_MIN_CONTRAST = 40


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _blank_runs(gray: Any, box: Any) -> list[tuple[int, int]]:
    """(start, end) x of the blank column runs between the first and last inked column of the box."""
    import numpy

    x0, y0 = (int(value) for value in box.min(axis=0))
    x1, y1 = (int(value) for value in box.max(axis=0))
    crop = gray[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)].astype(numpy.int16)
    if crop.size == 0:
        return []
    background = numpy.median(crop)
    spread = int(crop.max()) - int(crop.min())
    inked = (numpy.abs(crop - background) > max(_MIN_CONTRAST, 0.35 * spread)).any(axis=0)
    columns: list[int] = numpy.flatnonzero(inked).tolist()
    return [(left + 1 + x0, right + x0) for left, right in itertools.pairwise(columns) if right - left > 1]


def _word_gap(widths: list[int], height: float) -> float | None:
    """The narrowest blank run that separates words on this line, or None when none does."""
    import numpy

    if not widths:
        return None
    ordered = numpy.sort(numpy.asarray(widths, dtype=numpy.float64))
    fallback = _FALLBACK_WORD_GAP * height
    sums = numpy.cumsum(ordered)
    count = len(ordered)
    best, cut, means = -1.0, None, (0.0, 0.0)
    for i in range(1, count):
        if ordered[i] == ordered[i - 1]:
            continue
        low_mean = sums[i - 1] / i
        high_mean = (sums[-1] - sums[i - 1]) / (count - i)
        spread = i * (count - i) * (high_mean - low_mean) ** 2
        if spread > best:
            best, cut, means = spread, float(ordered[i]), (low_mean, high_mean)
    if cut is None or cut < _MIN_WORD_GAP * height or means[1] < 2 * means[0]:
        return fallback if ordered[-1] >= fallback else None
    return cut


def spaced_line(gray: Any, box: Any, text: str, letters: Any) -> str:
    """One line of rapidocr's result with the word spaces its model dropped: `box` the line's, `letters`
    its (character, score, box) without the spaces the model did write. The text as read when the line
    is tilted, vertical, or its boxes do not match its letters."""
    import numpy

    chars = [str(letter[0]) for letter in letters]
    if not chars or chars != [char for char in text if not char.isspace()]:
        return text
    box = numpy.asarray(box, dtype=numpy.float64)
    height = float(box[:, 1].max() - box[:, 1].min())
    width = float(box[:, 0].max() - box[:, 0].min())
    if height <= 0 or height > width or abs(box[1][1] - box[0][1]) > 0.2 * height:  # vertical or tilted
        return text
    runs = _blank_runs(gray, box)
    gap = _word_gap([end - start for start, end in runs], height)
    if gap is None:
        return text
    wide_runs = [((start + end) / 2, end - start) for start, end in runs if end - start >= gap]
    centres = [float(numpy.mean([point[0] for point in letter[2]])) for letter in letters]
    out, letter = [], 0
    for i, char in enumerate(text):
        out.append(char)
        if char.isspace():
            continue
        after = text[i + 1] if i + 1 < len(text) else " "
        letter += 1
        if after.isspace() or _wide(char) or _wide(after):
            continue
        need = 2 * gap if char.isdigit() and after.isdigit() else gap
        if any(centres[letter - 1] < middle < centres[letter] and run >= need for middle, run in wide_runs):
            out.append(" ")
    return "".join(out)
