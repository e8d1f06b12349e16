"""A circuit breaker per provider: after N failures in a row, skip it for a cool-down.

A provider that is down or refusing our key would otherwise cost every search its
full timeout before the fallback answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CircuitBreaker"]


@dataclass
class _State:
    failures: int = 0
    open_until: float = 0.0
    last_code: str = ""
    last_message: str = ""


class CircuitBreaker:
    """Closed → open after `failures` in a row → one trial after `cooldown_s` (half-open)."""

    def __init__(self, failures: int, cooldown_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = failures
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._states: dict[str, _State] = {}

    def open_for(self, name: str) -> float:
        """Seconds left in `name`'s cool-down; 0 when it may be tried."""
        state = self._states.get(name)
        return max(0.0, state.open_until - self._clock()) if state else 0.0

    def last_failure(self, name: str) -> tuple[str, str]:
        state = self._states.get(name) or _State()
        return state.last_code, state.last_message

    def succeeded(self, name: str) -> None:
        self._states.pop(name, None)

    def failed(self, name: str, code: str, message: str) -> None:
        state = self._states.setdefault(name, _State())
        state.failures += 1
        state.last_code, state.last_message = code, message
        if state.failures >= self.threshold:
            state.open_until = self._clock() + self.cooldown_s
