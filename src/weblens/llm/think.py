"""Reasoning a model writes into its answer as `<think>…</think>` (DeepSeek-R1, Qwen3, QwQ via
Ollama or llama.cpp) is not part of the answer: the user sees only what follows it.

Servers that parse reasoning send it in a separate `reasoning_content` / `reasoning` field,
which weblens does not show either. The block is recognised only at the very start of the
content (after whitespace), where these models write it, so an answer that merely mentions
the tag is left as it is.
"""

from __future__ import annotations

__all__ = ["ThinkFilter"]

OPEN = "<think>"
CLOSE = "</think>"


class ThinkFilter:
    """Feed content pieces as they stream; get back the text to show (reasoning dropped)."""

    def __init__(self) -> None:
        self._state = "start"  # start -> (thinking ->) answer
        self._held = ""

    def feed(self, piece: str) -> str:
        if self._state == "answer":
            return piece
        if self._state == "after":  # whitespace between `</think>` and the answer is dropped
            piece = piece.lstrip()
            self._state = "answer" if piece else "after"
            return piece
        self._held += piece
        if self._state == "start":
            head = self._held.lstrip()
            if not head or (len(head) < len(OPEN) and OPEN.startswith(head)):
                return ""  # could still become `<think>`: wait for more
            if not head.startswith(OPEN):
                self._state = "answer"
                shown, self._held = self._held, ""
                return shown
            self._state = "thinking"
            self._held = head[len(OPEN) :]
        end = self._held.find(CLOSE)
        if end < 0:
            self._held = self._held[-len(CLOSE) :]  # enough to find a tag split across pieces
            return ""
        rest = self._held[end + len(CLOSE) :].lstrip()
        self._held = ""
        self._state = "answer" if rest else "after"
        return rest

    def flush(self) -> str:
        """The content ended: text held back because it looked like the start of a tag
        (an unclosed reasoning block is dropped: it is not an answer)."""
        held, self._held = self._held, ""
        return held if self._state == "start" else ""
