"""Keep secrets out of logs, error messages and tool output.

Two nets: argument keys that look secret are masked, and every secret value weblens
has loaded (API keys, tokens) is replaced wherever it appears in text, so an upstream
that echoes a key back in an error message cannot leak it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any

__all__ = ["MASK", "forget_secrets", "redact", "redact_text", "register_secret"]

MASK = "***"
# "token" but not "tokens"/"tokenizer": counts like max_tokens are not secrets
_SECRET_KEY = re.compile(r"(api[_-]?key|token(?!s|izer)|secret|password|passwd|authorization|cookie)", re.I)
_MIN_SECRET_LEN = 4

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register_secret(value: str | None) -> None:
    """Remember a secret value so `redact_text` masks it anywhere it shows up."""
    global _pattern
    if not value or len(value) < _MIN_SECRET_LEN:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered))


def forget_secrets(values: Iterable[str] | None = None) -> None:
    """Drop remembered secrets (all of them when `values` is None); for tests."""
    global _pattern
    with _lock:
        if values is None:
            _secrets.clear()
        else:
            _secrets.difference_update(values)
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered)) if ordered else None


def redact_text(text: str) -> str:
    """`text` with every registered secret value replaced by the mask."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(MASK, text)


def redact(value: Any, *, key: str | None = None) -> Any:
    """A copy of `value` (JSON-like) with secret-looking keys and known secrets masked."""
    if key is not None and _SECRET_KEY.search(key) and value not in (None, ""):
        return MASK
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v, key=str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
