"""Cut a long text into pages a model can read, on paragraph boundaries where possible."""

from __future__ import annotations

__all__ = ["page_bounds"]

# A cut is moved back to a boundary only if that keeps at least this share of the page.
_MIN_SHARE = 0.5
_BOUNDARIES = ("\n\n", "\n", ". ", " ")


def page_bounds(text: str, start_index: int, max_length: int) -> tuple[int, int | None]:
    """(end, next_start) for the page of `text` starting at `start_index`; next_start is None at the end."""
    if max_length <= 0:
        raise ValueError("max_length must be positive")
    start = min(max(0, start_index), len(text))
    hard_end = start + max_length
    if hard_end >= len(text):
        return len(text), None
    floor = start + int(max_length * _MIN_SHARE)
    for boundary in _BOUNDARIES:
        cut = text.rfind(boundary, floor, hard_end)
        if cut != -1:
            end = cut + len(boundary)
            return end, end
    return hard_end, hard_end
