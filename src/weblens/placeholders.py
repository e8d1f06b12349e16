"""Values copied from documentation instead of a real key: `...`, `<your key>`, `sk-...`,
`YOUR_API_KEY`, `changeme`. Sent upstream they fail as "invalid key" far from their cause,
so settings treat them as unset and say which setting holds one."""

from __future__ import annotations

import re

__all__ = ["is_placeholder"]

_FILLER = re.compile(r"…+|[.…*x#_\-\s]{2,}", re.IGNORECASE)
"""Only dots, ellipses, stars, x's: `...`, `…`, `xxx`, `****`."""
_BRACKETED = re.compile(r"<[^<>]*>|\{\{[^{}]*\}\}|\$\{[^{}]*\}|\[[^\[\]]*\]")
"""`<your key>`, `{{API_KEY}}`, `${BRAVE_API_KEY}`, `[key]`."""
_PREFIX_FILLER = re.compile(r"[a-z]{1,8}[-_](?:…+|[.…*x]{3,}|your[-_ ]?.*)", re.IGNORECASE)
"""A vendor prefix with filler after it: `sk-...`, `tvly-xxxx`, `fc-…`, `sk-your-key`."""
_WORDS = re.compile(
    r"(?:your|my|insert|paste|put|enter)[-_ ]?(?:[a-z]+[-_ ]?)?(?:api[-_ ]?)?(?:key|token|secret)(?:[-_ ]?here)?"
    r"|(?:[a-z]+[-_])?api[-_]?key(?:[-_ ]?here)?|change[-_ ]?me|replace[-_ ]?me|placeholder|todo|tbd|dummy|none|null",
    re.IGNORECASE,
)
"""`YOUR_API_KEY`, `BRAVE_API_KEY`, `your-key-here`, `api_key`, `changeme`, `placeholder`."""


def is_placeholder(value: str) -> bool:
    """Whether `value` is documentation filler rather than a credential."""
    text = value.strip().strip("\"'")
    return any(pattern.fullmatch(text) for pattern in (_FILLER, _BRACKETED, _PREFIX_FILLER, _WORDS))
