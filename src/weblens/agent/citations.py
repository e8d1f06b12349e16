"""The source ledger of one answer: sources the tools returned, numbered once, with the text read.

Every URL the answer lists comes from a tool result: the model sees the sources as
[1], [2], ... in tool results, cites those numbers, and the footer lists the cited ones.
An answer that cites none but was built on tool results lists them all. For each source
the ledger keeps where a fetch ended, when it was read, and the text the tools returned
for it (a fetched page's text, a search result's title and snippet) with its hash, so
that every citation can be checked against what was actually read (`weblens.agent.verify`).
Two spellings of one page (`canonical_url`) share a number.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator, Mapping

from weblens.agent.events import CitedSource
from weblens.result import ToolResult
from weblens.tools.fetch import untrusted_block
from weblens.urls import canonical_url

__all__ = ["SourceBook"]

_CITATION = re.compile(r"\[(\d+(?:\s*[,，、]\s*\d+)*)\]")
_WEB_SCHEMES = ("http://", "https://")
FOOTER_HEADING = "Sources:"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_TEXT_FIELDS = ("content", "snippet", "description", "markdown", "text")


def _texts(result: ToolResult) -> Iterator[tuple[str, str, str | None]]:
    """(url asked for, text read, final url) for what a result says about each of its sources."""
    data = result.data
    if isinstance(data, Mapping):
        metadata = data.get("metadata")
        url = data.get("url") or (metadata.get("source_url") if isinstance(metadata, Mapping) else None)
        text = data.get("content")
        if isinstance(text, str) and isinstance(url, str):  # a fetched page (web_fetch, firecrawl)
            final = data.get("final_url")
            yield url, text, final if isinstance(final, str) else url
            return
        hits = data.get("results")
        if isinstance(hits, list):  # search results: title and snippet of each
            for hit in hits:
                if isinstance(hit, Mapping) and isinstance(hit.get("url"), str):
                    words = [str(hit.get("title") or "")]
                    words += [str(hit[k]) for k in _TEXT_FIELDS if isinstance(hit.get(k), str)]
                    yield hit["url"], "\n".join(w for w in words if w), None
            return
    if len(result.sources) == 1:  # any other tool with one source: what the model read
        yield result.sources[0].url, result.text, None


class SourceBook:
    """Numbers each distinct web page the tools return, in the order they first appear,
    and keeps the text read from it (the ledger)."""

    def __init__(self) -> None:
        self._sources: list[CitedSource] = []
        self._by_url: dict[str, CitedSource] = {}
        self._by_key: dict[str, CitedSource] = {}
        self._text: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self._sources)

    @property
    def sources(self) -> list[CitedSource]:
        return list(self._sources)

    def add(self, title: str, url: str, *, final_url: str | None = None) -> CitedSource | None:
        if not url.lower().startswith(_WEB_SCHEMES):
            return None
        known = self._by_url.get(url) or self._by_key.get(canonical_url(url))
        if known is None:
            number = len(self._sources) + 1
            known = CitedSource(title=_one_line(title) or url, url=url, number=number, fetched_at=time.time())
            self._sources.append(known)
            self._by_key[canonical_url(url)] = known
            self._text[number] = []
        self._by_url[url] = known
        if final_url:
            known.final_url = final_url
        return known

    def get(self, number: int) -> CitedSource | None:
        return self._sources[number - 1] if 0 < number <= len(self._sources) else None

    def lookup(self, url: str) -> CitedSource | None:
        """The source `url` (or another spelling of the same page) is, if the tools returned it."""
        return self._by_url.get(url.strip()) or self._by_key.get(canonical_url(url))

    def text(self, number: int) -> str:
        """Everything the tools returned for source `number`, as read."""
        return "\n\n".join(self._text.get(number, ()))

    def _record(self, url: str, text: str, final_url: str | None) -> None:
        source = self.lookup(url) or (self.lookup(final_url) if final_url else None)
        if source is None or not text.strip():
            return
        for alias in (url, final_url):  # the URL asked for and where it ended name one source
            if alias:
                self._by_url.setdefault(alias, source)
                self._by_key.setdefault(canonical_url(alias), source)
        if final_url:
            source.final_url = final_url
        texts = self._text[source.number]
        if text not in texts:
            texts.append(text)
            source.sha256 = hashlib.sha256(self.text(source.number).encode("utf-8", "surrogatepass")).hexdigest()

    def render(self, result: ToolResult) -> str:
        """What the model reads for a result: its text, then its sources with their numbers."""
        numbered = [s for s in (self.add(src.title, src.url) for src in result.sources) if s is not None]
        for url, text, final in _texts(result):
            self._record(url, text, final)
        for source in numbered:  # no structured text: the lines that name it, else its title
            if not self._text[source.number]:
                naming = "\n".join(line for line in result.text.splitlines() if source.url in line)
                self._record(source.url, naming or source.title, None)
        if not numbered:
            return result.text
        return result.text + self.fenced(numbered)

    @staticmethod
    def fenced(sources: list[CitedSource]) -> str:
        """The numbered sources as the model reads them: titles and URLs are what pages and
        providers wrote, so they sit inside the nonce-fenced untrusted block, numbers and all."""
        if not sources:
            return ""
        lines = "\n".join(f"[{s.number}] {s.title} — {s.url}" for s in sources)
        return f"\n\n{FOOTER_HEADING} (cite them by number)\n" + untrusted_block(lines, "the sources' own titles")

    def named_by(self, result: ToolResult) -> list[CitedSource]:
        """The numbered sources of `result` (after `render`), each once."""
        found = (self.lookup(source.url) for source in result.sources)
        return list({s.number: s for s in found if s is not None}.values())

    def used_by(self, answer: str) -> list[CitedSource]:
        """The sources `answer` cites by number or URL; all of them if it cites none."""
        return self.cited(answer, self.sources)

    @staticmethod
    def cited(answer: str, sources: list[CitedSource]) -> list[CitedSource]:
        """Those of `sources` that `answer` cites by number or URL; all of them if it cites none."""
        numbers: set[int] = set()
        for group in _CITATION.findall(answer):
            numbers.update(int(n) for n in re.findall(r"\d+", group))
        used = [s for s in sources if s.number in numbers or s.url in answer]
        return used or sources

    @staticmethod
    def footer(sources: list[CitedSource]) -> str:
        if not sources:
            return ""
        lines = "\n".join(f"[{s.number}] {s.title} — {s.url}" for s in sources)
        return f"\n\n{FOOTER_HEADING}\n{lines}"
