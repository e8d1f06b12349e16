"""Tool arguments as a model or a client sends them: decoded and checked before pydantic sees them.

Arguments can be hostile: nesting deep enough to exhaust the stack, integers past Python's
4 300-digit conversion limit, bytes that are not UTF-8, lone surrogates no encoder can
write, keys that are not strings. Each is a `ToolValidationError` naming the problem here,
rather than an `internal_error` (or a crash) deeper down. The walk is iterative, so no
input can make the check itself recurse.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from weblens.errors import ToolValidationError

__all__ = ["MAX_DEPTH", "check_arguments", "first_problem", "parse_arguments"]

MAX_DEPTH = 64
"""Deepest nesting of objects and lists a tool call may have; real calls use a handful."""
_INT_DIGITS = sys.get_int_max_str_digits() or 4300
_SAFE_INT_BITS = int(_INT_DIGITS * 3.3)
"""Integers up to this many bits are below the digit limit whatever their value (log2(10) > 3.3)."""


def _text_problem(text: str) -> str | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"contains a lone surrogate at character {exc.start} (not valid Unicode)"
    return None


def _int_problem(number: int) -> str | None:
    if number.bit_length() <= _SAFE_INT_BITS:
        return None
    try:
        str(number)
    except ValueError:
        return f"an integer with more than {_INT_DIGITS} digits"
    return None


def first_problem(value: Any) -> tuple[str, str, str] | None:
    """(field, message, issue type) of the first thing in `value` no tool can take, or None.

    Fields are dotted paths (`items.0.text`); "(arguments)" is the whole value."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        field = path or "(arguments)"
        if isinstance(item, str):
            message = _text_problem(item)
            if message:
                return (field, message, "string_unicode")
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            message = _int_problem(item)
            if message:
                return (field, message, "int_too_large")
        elif isinstance(item, Mapping | list | tuple):
            if depth >= MAX_DEPTH:
                return (field, f"nested more than {MAX_DEPTH} levels deep", "too_deep")
            if isinstance(item, Mapping):
                for key, inner in item.items():
                    if not isinstance(key, str):
                        return (field, f"a key that is not a string ({type(key).__name__})", "dict_keys")
                    message = _text_problem(key)
                    if message:
                        return (field, f"a key that {message}", "string_unicode")
                    stack.append((inner, f"{path}.{key}" if path else key, depth + 1))
            else:
                stack.extend((inner, f"{path}.{i}" if path else str(i), depth + 1) for i, inner in enumerate(item))
    return None


def _invalid(tool: str, field: str, message: str, kind: str) -> ToolValidationError:
    return ToolValidationError(
        f"Invalid arguments for {tool}: {field}: {message}", [{"field": field, "message": message, "type": kind}]
    )


def check_arguments(value: Any, tool: str) -> None:
    """Raise `ToolValidationError` naming the first thing in `value` no tool can take."""
    found = first_problem(value)
    if found is not None:
        raise _invalid(tool, *found)


def parse_arguments(raw: str | bytes, tool: str) -> Any:
    """JSON arguments from text or bytes; `ToolValidationError` says what is wrong with them."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolValidationError(
                f"Arguments for {tool} are not valid UTF-8 (byte {exc.start})",
                [{"field": "(arguments)", "message": "not valid UTF-8", "type": "utf8_invalid"}],
            ) from None
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolValidationError(
            f"Arguments for {tool} are not valid JSON: {exc.msg} at position {exc.pos}",
            [{"field": "(arguments)", "message": "not valid JSON", "type": "json_invalid"}],
        ) from None
    except RecursionError:
        raise _invalid(tool, "(arguments)", f"nested more than {MAX_DEPTH} levels deep", "too_deep") from None
    except ValueError:  # the only other failure of json.loads on text: an integer past the digit limit
        message = f"an integer with more than {_INT_DIGITS} digits"
        raise _invalid(tool, "(arguments)", message, "int_too_large") from None
    check_arguments(parsed, tool)
    return parsed
