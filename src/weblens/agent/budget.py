"""What one answer may spend on tools: calls per tool per run, and calls per model step.

A model that loops (5 000 `think` calls in one step, 1 000 fetches) must not run up
cost or load; what is over a limit is not run, and the model reads why as the call's
result (`max_uses_exceeded`), so it can answer with what it has.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from weblens.result import ToolResult

__all__ = ["DEFAULT_MAX_CALLS_PER_STEP", "RunBudget"]

DEFAULT_MAX_CALLS_PER_STEP = 8


class RunBudget:
    """Counts one run's tool calls against `max_uses` (per tool) and the per-step cap."""

    def __init__(
        self, max_uses: Mapping[str, int] | None = None, *, max_calls_per_step: int = DEFAULT_MAX_CALLS_PER_STEP
    ) -> None:
        if max_calls_per_step < 1:
            raise ValueError("max_calls_per_step must be at least 1")
        self.max_uses = dict(max_uses or {})
        self.max_calls_per_step = max_calls_per_step
        self.used: Counter[str] = Counter()

    def over_step_cap(self, position: int) -> ToolResult | None:
        """The result for the `position`-th (0-based) call of a step that would run, when past the cap."""
        if position < self.max_calls_per_step:
            return None
        cap = self.max_calls_per_step
        return ToolResult.failure(
            "max_uses_exceeded",
            f"not run: at most {cap} tool calls run per step and this step asked for more. "
            f"Ask for at most {cap} calls at a time, and only the ones you need.",
            details={"limit": cap, "scope": "step"},
        )

    def spend(self, tool: str) -> ToolResult | None:
        """Count one call of `tool`; the refusal to return instead when its budget is spent."""
        limit = self.max_uses.get(tool)
        if limit is not None and self.used[tool] >= limit:
            return ToolResult.failure(
                "max_uses_exceeded",
                f"not run: {tool} may be called at most {limit} times per answer and that budget is spent. "
                "Answer with what you have, and say what you could not check.",
                details={"limit": limit, "scope": "run", "tool": tool},
            )
        self.used[tool] += 1
        return None
