"""How `weblens chat` shows an answer: markdown rendered as it streams on a terminal, as written elsewhere.

On a terminal the answer is rendered with rich, as the page renders it (headings, bold,
tables, fenced code; `[n]` markers link to source n): each block (a paragraph, a list, a
table, a code block) is printed once a blank line outside a code fence ends it, and the
block still being written is redrawn below as text arrives. Off a terminal (a pipe,
`> answer.md`) the markdown is written as it comes. Either way a citation the checks did not
verify is named on stderr after the sources, in the page's words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import typer

from weblens.agent.citations import FOOTER_HEADING, SourceBook
from weblens.agent.events import CitationCheck, CitedSource, Done
from weblens.cli.output import note

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live
    from rich.markdown import Markdown

__all__ = ["AnswerView", "PlainAnswer", "RichAnswer", "answer_view", "unverified_lines"]

_MARKER = re.compile(r"\[(\d{1,3})\](?!\()")
_CHECK_WORDS = {
    "quote_not_found": "not verified: the quoted passage was not found in the source",
    "unknown_source": "not verified: no such source",
    "unsupported": "unsupported: {support}",
    "cited": "cited, not quoted: {support}",
}
"""What the page says of a citation that is not verified (render.js, STATUS_WORDS)."""


def unverified_lines(citations: list[CitationCheck]) -> list[str]:
    """One line per `[n]` marker whose check did not verify a quote: which, why, and the sentence it
    backs (⚠ unless the sentence is `cited`: unquoted, its words found in the source)."""
    lines = []
    for check in citations:
        if check.status == "verified":
            continue
        support = f"{round(check.score * 100)} % of the sentence's words are in the source"
        why = _CHECK_WORDS.get(check.status, f"not verified ({check.status})").format(support=support)
        sentence = " ".join(check.sentence.split())
        shown = sentence if len(sentence) <= 90 else sentence[:89] + "…"
        mark = "·" if check.status == "cited" else "⚠"
        lines.append(f"{mark} [{check.number}] {why}: “{shown}”")
    return lines


def _block_end(text: str) -> int:
    """Where the last complete block of `text` ends (0 if none): after a blank line outside a fence."""
    end, fence, at = 0, "", 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        if not line.endswith("\n"):
            break  # the line is still being written
        marker = line.strip()
        if not fence and marker.startswith(("```", "~~~")):
            fence = marker[:3]
        elif fence and marker.startswith(fence) and not marker.strip(fence[0]):
            fence = ""
        elif not fence and not marker:
            end = at
    return end


def _spaced(block: str) -> bool:
    """Whether rich draws `block` with blank lines of its own around it (a table, fenced code)."""
    return block.lstrip().startswith(("|", "```", "~~~"))


class PlainAnswer:
    """The answer's markdown as it streams, for a pipe or a file."""

    def learn(self, sources: list[CitedSource]) -> None:
        pass

    def write(self, text: str) -> None:
        typer.echo(text, nl=False)

    def end(self) -> None:
        pass

    def done(self, event: Done) -> None:
        typer.echo(SourceBook.footer(event.sources))
        for line in unverified_lines(event.citations):
            note(line, "yellow")


class RichAnswer:
    """The answer rendered as markdown on a terminal, block by block (see the module docstring)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.pending = ""
        self.printed = False
        self.spaced = False
        """Whether the last block's render ends with a blank line of its own."""
        self.links: dict[int, str] = {}
        self._live: Live | None = None

    def learn(self, sources: list[CitedSource]) -> None:
        """Sources the tools returned: their `[n]` markers become links."""
        self.links.update((s.number, s.url) for s in sources)

    def _markdown(self, text: str) -> Markdown:
        from rich.markdown import Markdown

        def link(match: re.Match[str]) -> str:
            url = self.links.get(int(match.group(1)))
            return f"[{match.group(0)}](<{url}>)" if url and ">" not in url else match.group(0)

        parts = re.split(r"(```.*?(?:```|$)|`[^`\n]*`)", text, flags=re.S)  # no links inside code
        return Markdown("".join(p if i % 2 else _MARKER.sub(link, p) for i, p in enumerate(parts)))

    def _show(self, text: str) -> None:
        """Draw `text` as the block being written (a new block starts after a blank line)."""
        from rich.live import Live

        shown = self._markdown(text)
        if self._live is None:
            if self.printed and not self.spaced and not _spaced(text):
                self.console.print()
            self.spaced = _spaced(text)
            self._live = Live(
                shown, console=self.console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False
            )
            self._live.start()
        self._live.update(shown, refresh=True)

    def _close_block(self) -> None:
        """Leave the block drawn so far on screen, whole (stopping draws it without cropping)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
            self.printed = True

    def write(self, text: str) -> None:
        self.pending += text
        cut = _block_end(self.pending)
        if cut:
            if self.pending[:cut].strip():
                self._show(self.pending[:cut])
            self._close_block()
            self.pending = self.pending[cut:]
        if self.pending.strip():
            self._show(self.pending)

    def end(self) -> None:
        """Finish the block being written (before a tool runs, at the end, or when the answer stops)."""
        if self.pending.strip():
            self._show(self.pending)
        self._close_block()
        self.pending = ""

    def done(self, event: Done) -> None:
        from rich.text import Text

        self.end()
        if event.sources:
            self.console.print()
            self.console.print(Text(FOOTER_HEADING, style="bold"))
            for source in event.sources:
                row = Text(f"[{source.number}] ", style="dim")
                row.append(source.title, style=f"link {source.url}")
                row.append(f" — {source.url}", style="dim")
                self.console.print(row, soft_wrap=True)
        for line in unverified_lines(event.citations):
            note(line, "yellow")


AnswerView = PlainAnswer | RichAnswer


def answer_view() -> AnswerView:
    """Rendered markdown when stdout is a terminal, the markdown as written otherwise."""
    from weblens.cli.output import console

    return RichAnswer(console) if console.is_terminal else PlainAnswer()
