"""Keep secrets out of logs, error messages, tool output and storage.

Three nets: argument keys that look secret are masked; every secret value weblens has
loaded (API keys, tokens, passwords inside URL settings) is replaced wherever it appears,
in messages and in results, so an upstream that echoes a key back cannot leak it; and in
what weblens itself says (errors, logs, settings) the userinfo of any URL
(`https://user:password@host`) and the values of its secret-looking query parameters
(`?api-key=…`, `&token=…`, see `secret_param`) are masked.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import unquote, unquote_plus

__all__ = [
    "MASK",
    "RedactingFormatter",
    "forget_secrets",
    "map_strings",
    "mask_url",
    "redact",
    "redact_secrets",
    "redact_text",
    "redact_values",
    "register_secret",
    "register_url_secrets",
    "secret_param",
    "valid_unicode",
]

MASK = "***"
# "token" but not "tokens"/"tokenizer": counts like max_tokens are not secrets
_SECRET_KEY = re.compile(r"(api[_-]?key|token(?!s|izer)|secret|password|passwd|authorization|cookie)", re.I)
_MIN_SECRET_LEN = 4
_MIN_URL_PASSWORD_LEN = 8
"""A URL password shorter than this is masked inside URLs only: registered as a secret value,
a short one ("pass") would also mask ordinary words ("passport") in every search result."""
# The authority after "://" up to the path, query, fragment, whitespace or a quote. A literal
# start and a single greedy class: linear on any input (no backtracking, matches do not overlap).
_AUTHORITY = re.compile(r"://([^\s/?#\"'<>\\]*)")
# A query (or fragment: `#access_token=`) parameter: a name right after "?", "&", ";" or "#"
# and its value up to the next separator, whitespace or quote. Bounded name, one greedy value
# class: linear.
_PARAM = re.compile(r"(?<=[?&;#])([\w.\-\[\]]{1,64})=([^&;#\s\"'<>]*)")
_PARAM_NAME_MARKS = re.compile(r"[-_.\[\]]")
SECRET_PARAM_SUFFIXES = (
    "key", "token", "secret", "password", "passwd", "pwd", "pass", "sig", "signature", "auth",
    "authorization", "credential", "credentials", "session", "sessionid", "jwt", "cookie",
)  # fmt: skip
"""A query parameter is secret when its name, case folded and without `-_.[]`, ends with one of
these: `key`, `api_key`, `api-key`, `apiKey`, `subscription-key`, `access_token`, `X-Amz-Signature`,
`X-Amz-Credential`, `client_secret`, `sig`, `auth`, `session_id`, ... (`max_tokens` is not).
Erring on the secret side costs only a masked value in what weblens prints."""

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


def secret_param(name: str) -> bool:
    """Whether a URL query parameter called `name` carries a secret (see `SECRET_PARAM_SUFFIXES`)."""
    return _PARAM_NAME_MARKS.sub("", name.casefold()).endswith(SECRET_PARAM_SUFFIXES)


def _secret_params(url: str) -> Iterator[str]:
    """The values of `url`'s secret-looking query parameters, as written."""
    if "=" not in url:
        return
    for match in _PARAM.finditer(url):
        if match.group(2) and secret_param(match.group(1)):
            yield match.group(2)


def register_url_secrets(url: str | None) -> None:
    """Remember the password in `url`'s userinfo and the values of its secret-looking query
    parameters (as written and percent-decoded), so they are masked even where they appear
    outside the URL (an HTTP client's message, a decoded header, a provider's echo). Values
    shorter than `_MIN_URL_PASSWORD_LEN` are masked inside URLs only."""
    if not url:
        return
    for value in _secret_params(url):
        if len(value) >= _MIN_URL_PASSWORD_LEN:
            for spelling in {value, unquote(value), unquote_plus(value)}:
                register_secret(spelling)
    if "@" not in url:
        return
    for match in _AUTHORITY.finditer(url):
        userinfo, at, _ = match.group(1).rpartition("@")
        _, colon, password = userinfo.partition(":")
        if not at or not colon or len(password) < _MIN_URL_PASSWORD_LEN:
            continue
        register_secret(password)
        register_secret(unquote(password))


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


def _masked_authority(match: re.Match[str]) -> str:
    authority = match.group(1)
    userinfo, at, host = authority.rpartition("@")
    if not at:
        return match.group(0)
    user, colon, _ = userinfo.partition(":")
    # user:password keeps the user name; a lone user name may itself be a token (https://TOKEN@host)
    return f"://{user}:{MASK}@{host}" if colon else f"://{MASK}@{host}"


def _masked_param(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2)
    return f"{name}={MASK}" if value and secret_param(name) else match.group(0)


def mask_url(url: str) -> str:
    """`url` (or text holding URLs) with userinfo and secret query values masked:
    `https://user:***@host/...`, `https://***@host/...`, `https://host/v1?api-key=***&a=1`."""
    if "@" in url:
        url = _AUTHORITY.sub(_masked_authority, url)
    if "=" in url:
        url = _PARAM.sub(_masked_param, url)
    return url


def redact_secrets(text: str) -> str:
    """`text` with every registered secret value masked, and nothing else changed: for content
    (a page that shows `http://user:pass@proxy` as an example keeps it)."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(MASK, text)


def redact_text(text: str) -> str:
    """`text` with every registered secret value, the userinfo of every URL and its secret query
    values masked: for what weblens itself says (errors, logs, settings), where a URL is one of its own."""
    if not text:
        return text
    text = redact_secrets(text)
    return mask_url(text) if "://" in text else text


class RedactingFormatter(logging.Formatter):
    """A log formatter that masks secrets and URL passwords in whole lines, tracebacks included:
    libraries log URLs as they are (httpx: "HTTP Request: GET https://user:password@...")."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


def valid_unicode(text: str) -> str:
    """`text` with lone surrogates (from a JSON `\\ud800` escape) replaced by "?": they cannot be
    encoded, so one would break every later serialisation (SSE, MCP, the cache)."""
    if text.isascii():
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of `value` (JSON-like) with `change` applied to every string in it, keys included;
    iterative, so any depth of nesting is safe."""
    if isinstance(value, str):
        return change(value)
    if not isinstance(value, dict | list | tuple):
        return value
    root: list[Any] = [value]
    # each entry: (container to fill, key or index in it, original value)
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, slot, item = stack.pop()
        if isinstance(item, str):
            parent[slot] = change(item)
        elif isinstance(item, dict):
            copied: dict[Any, Any] = {}
            for key, inner in item.items():
                new_key = change(key) if isinstance(key, str) else key
                copied[new_key] = inner
                stack.append((copied, new_key, inner))
            parent[slot] = copied
        elif isinstance(item, list | tuple):
            listed = list(item)
            stack.extend((listed, index, inner) for index, inner in enumerate(listed))
            parent[slot] = listed
    return root[0]


def _clean(text: str) -> str:
    return redact_secrets(valid_unicode(text))


def redact_values(value: Any) -> Any:
    """A copy of `value` (JSON-like) with known secrets masked and lone surrogates replaced in
    every string. Unlike `redact`, no key is masked for its name: this is for results (a page's
    "cookie policy" is not a secret)."""
    return map_strings(value, _clean)


def redact(value: Any, *, key: str | None = None) -> Any:
    """A copy of `value` (JSON-like) with secret-looking keys and known secrets masked."""
    if key is not None and _SECRET_KEY.search(key) and value not in (None, ""):
        return MASK
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {k: redact(v, key=str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
