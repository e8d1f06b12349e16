"""A provider's API keys as a pool: used in turn, benched when refused or spent.

`BRAVE_API_KEY=k1,k2` (or a TOML list) gives Brave two keys. A key the provider refuses
(401/403) leaves the pool for `search.key_cooldown_s`; a key at its quota (402, Tavily's
432/433, Brave's QUOTA_LIMITED, Serper's "Not enough credits") leaves it until the reset
the provider names, else for `search.key_quota_cooldown_s`. Logs name a key only by its
fingerprint (the first 8 hex digits of its SHA-256), never by the key.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal

from weblens.errors import NotConfiguredError, RateLimitedError, WeblensError
from weblens.policy.state import PolicyState

__all__ = ["KEY_PROBLEM", "KeyPool", "KeyProblem", "fingerprint"]

KEY_PROBLEM = "key_problem"
"""The detail an error carries when it was about the key: "refused" or "quota"."""
KeyProblem = Literal["refused", "quota"]

logger = logging.getLogger("weblens.search")


def fingerprint(key: str) -> str:
    """A short stable name for a key that reveals nothing of it."""
    return hashlib.sha256(key.encode()).hexdigest()[:8]


class KeyPool:
    """The keys of one provider; the bench (who is out, until when) lives in a `PolicyState`."""

    def __init__(
        self,
        provider: str,
        keys: Sequence[str],
        state: PolicyState,
        *,
        refused_cooldown_s: float,
        quota_cooldown_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.provider = provider
        self.keys = list(keys)
        self._state = state
        self._refused_s = refused_cooldown_s
        self._quota_s = quota_cooldown_s
        self._clock = clock
        self._turn = 0

    def _slot(self, key: str) -> str:
        return f"key:{self.provider}:{fingerprint(key)}"

    async def usable(self) -> list[str]:
        """Keys not on the bench, starting with the next one in turn (spreads use over the pool)."""
        start = self._turn % len(self.keys) if self.keys else 0
        self._turn += 1
        rotated = self.keys[start:] + self.keys[:start]
        return [key for key in rotated if await self._state.benched(self._slot(key)) is None]

    async def bench(self, key: str, problem: KeyProblem, exc: WeblensError) -> None:
        """Take `key` out of the pool after the provider refused it or said it is spent."""
        quota_wait = exc.retry_after_s or self._quota_s  # the provider's own reset when it names one
        wait = self._refused_s if problem == "refused" else quota_wait
        reason = "refused" if problem == "refused" else "at its quota"
        status = exc.details.get("status")
        said = f"{reason} (HTTP {status})" if status else reason
        await self._state.bench(self._slot(key), until=self._clock() + wait, reason=said)
        logger.warning("%s key %s %s; out of the pool for %.0f s", self.provider, fingerprint(key), said, wait)

    def answered(self, key: str) -> None:
        logger.info("%s answered with key %s", self.provider, fingerprint(key))

    async def none_left(self, hint: str, last: WeblensError | None = None) -> WeblensError:
        """The error when no key may be used: none configured, or every one benched
        (`last`: the provider's answer to the key benched last, if this call benched one)."""
        if not self.keys:
            return NotConfiguredError(f"{self.provider} has no API key: {hint}")
        benches = [(key, await self._state.benched(self._slot(key))) for key in self.keys]
        out = [(key, bench) for key, bench in benches if bench is not None]
        now = self._clock()
        described = "; ".join(
            f"key {fingerprint(key)} {bench.reason}, back in {max(0.0, bench.until - now):.0f} s" for key, bench in out
        )
        waits = [bench.until - now for _, bench in out]
        count = "its only key is" if len(self.keys) == 1 else f"all {len(self.keys)} keys are"
        message = f"{self.provider}: {count} out of the pool ({described})"
        if last is not None:
            message += f"; last answer: {last.message}"
        if all("refused" in bench.reason for _, bench in out):
            return NotConfiguredError(f"{message}; {hint}", details={"benched": len(out)})
        return RateLimitedError(
            message, retryable=False, retry_after_s=max(0.0, min(waits)), details={"benched": len(out)}
        )
