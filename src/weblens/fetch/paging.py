"""Cut a long text into pages a model can read, on paragraph boundaries where possible."""

from __future__ import annotations

from weblens.fetch.tokens import MAX_CHARS_PER_TOKEN, TokenCounter

__all__ = ["page_bounds", "token_page_bounds"]

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


def token_page_bounds(
    text: str, start_index: int, max_tokens: int, counter: TokenCounter, max_length: int | None = None
) -> tuple[int, int | None]:
    """Like `page_bounds`, for a page of at most `max_tokens` tokens (and `max_length` characters)."""
    if max_tokens <= 0:
        raise ValueError("max_tokens must be positive")
    start = min(max(0, start_index), len(text))
    fits = counter.prefix_length(text[start : start + (max_tokens + 1) * MAX_CHARS_PER_TOKEN], max_tokens)
    if start + fits >= len(text) and (max_length is None or fits <= max_length):
        return len(text), None
    end, next_start = page_bounds(text, start, max(1, min(fits, max_length or fits)))
    if counter.count(text[start:end]) > max_tokens:  # a prefix rarely tokenizes longer; then cut hard
        end = start + counter.prefix_length(text[start:end], max_tokens)
        next_start = end
    return end, next_start
