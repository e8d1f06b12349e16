"""Sources the tools returned, numbered once per answer, and which of them the answer used.

Every URL the answer lists comes from a tool result: the model sees the sources as
[1], [2], ... in tool results, cites those numbers, and the footer lists the cited ones.
An answer that cites none but was built on tool results lists them all.
"""

from __future__ import annotations

import re

from weblens.agent.events import CitedSource
from weblens.result import ToolResult

__all__ = ["SourceBook"]

_CITATION = re.compile(r"\[(\d+(?:\s*[,，、]\s*\d+)*)\]")
_WEB_SCHEMES = ("http://", "https://")
FOOTER_HEADING = "Sources:"


def _one_line(text: str) -> str:
    return " ".join(text.split())


class SourceBook:
    """Numbers each distinct web URL the tools return, in the order they first appear."""

    def __init__(self) -> None:
        self._by_url: dict[str, CitedSource] = {}

    def __len__(self) -> int:
        return len(self._by_url)

    def add(self, title: str, url: str) -> CitedSource | None:
        if not url.lower().startswith(_WEB_SCHEMES):
            return None
        known = self._by_url.get(url)
        if known is None:
            number = len(self._by_url) + 1
            known = self._by_url[url] = CitedSource(title=_one_line(title) or url, url=url, number=number)
        return known

    def render(self, result: ToolResult) -> str:
        """What the model reads for a result: its text, then its sources with their numbers."""
        numbered = [s for s in (self.add(src.title, src.url) for src in result.sources) if s is not None]
        if not numbered:
            return result.text
        lines = "\n".join(f"[{s.number}] {s.title} — {s.url}" for s in numbered)
        return f"{result.text}\n\n{FOOTER_HEADING}\n{lines}"

    def used_by(self, answer: str) -> list[CitedSource]:
        """The sources `answer` cites by number or URL; all of them if it cites none."""
        numbers: set[int] = set()
        for group in _CITATION.findall(answer):
            numbers.update(int(n) for n in re.findall(r"\d+", group))
        sources = list(self._by_url.values())
        used = [s for s in sources if s.number in numbers or s.url in answer]
        return used or sources

    @staticmethod
    def footer(sources: list[CitedSource]) -> str:
        if not sources:
            return ""
        lines = "\n".join(f"[{s.number}] {s.title} — {s.url}" for s in sources)
        return f"\n\n{FOOTER_HEADING}\n{lines}"
