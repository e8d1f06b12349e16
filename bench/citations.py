"""Citation checks against planted fabrications: a scripted model answers from fake pages.

Each case is one real agent run: the user names two pages (local `FakeServer`), the
scripted model (`ScriptedLLM`, over HTTP) fetches both with `web_fetch`, then streams an
answer that quotes them — genuine quotes cut from the pages' text (with the liberties
models take: case, curly quotes, ellipses, spacing, dropped end punctuation) and
fabricated ones (a word or a number changed, a negation added, an invented ending, words
of the page recombined, a real quote cited to the wrong page) — and links to the pages
(genuine) and to invented URLs (markdown links, bare, images, autolinks; the model streams
in 4-character chunks, so URLs span deltas). The answer's `done` event is compared with what was planted.

    python bench/citations.py [--cases 150] [--seed 7]

Prints: fabricated URLs flagged (aim 100 %), fabricated quotes flagged (aim >= 95 %),
genuine quotes flagged (aim <= 2 %), genuine URLs flagged, and which kinds were missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from weblens.agent import Agent, ChatModel, Done
from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.pages import PageServer, article_html
from weblens.testing.server import Reply
from weblens.tools.fetch import FetchTool
from weblens.toolset import Toolset

SUBJECTS = [
    "The harbour council",
    "A team at the observatory",
    "The ferry operator",
    "Local beekeepers",
    "The regional archive",
    "Engineers at the dam",
    "The lighthouse trust",
    "A survey of farmers",
    "The city library",
    "Researchers in the valley",
    "The fishing cooperative",
    "The mountain rescue team",
]
VERBS = ["reported", "recorded", "estimated", "announced", "measured", "confirmed", "counted", "observed"]
OBJECTS = [
    "storms along the northern coast",
    "visitors during the spring festival",
    "tonnes of grain in storage",
    "nesting pairs of puffins",
    "hours of sunshine in March",
    "kilometres of new cycle paths",
    "litres of rain at the summit",
    "books returned after the flood",
    "boats registered in the port",
    "hectares of restored wetland",
    "students enrolled in night classes",
    "cases of the winter fever",
]
TAILS = [
    "after a decade of careful records",
    "despite the long delays in funding",
    "which surprised most observers",
    "according to the annual ledger",
    "in the first quarter of the year",
    "before the new rules took effect",
    "while the old bridge was closed",
    "as the committee had predicted",
    "for the third season in a row",
]
SWAPS = {
    "northern": "southern",
    "spring": "autumn",
    "new": "old",
    "first": "second",
    "long": "short",
    "most": "few",
    "third": "fourth",
    "careful": "careless",
    "old": "new",
    "restored": "drained",
}
FAKE_HOSTS = ["attacker.example", "news-daily.example", "research-hub.example", "example.com", "stats.example.org"]
PAGES = 40
SENTENCES = 18


def sentence(rng: random.Random) -> str:
    number = rng.choice([rng.randint(2, 999), f"{rng.randint(1, 99)}.{rng.randint(1, 9)}", rng.randint(1000, 99999)])
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {number} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."


@dataclass
class Page:
    path: str
    title: str
    sentences: list[str]


def make_pages(rng: random.Random) -> list[Page]:
    pages = []
    for n in range(PAGES):
        pages.append(Page(f"/report-{n}", f"Field report {n}", [sentence(rng) for _ in range(SENTENCES)]))
    return pages


def paragraphs(page: Page) -> list[str]:
    return [" ".join(page.sentences[i : i + 3]) for i in range(0, len(page.sentences), 3)]


# -- genuine quotes: the page's words, with the liberties models take -------------------------


def words_of(text: str) -> list[str]:
    return text.rstrip(".").split()


def genuine(rng: random.Random, page: Page) -> tuple[str, str]:
    text = rng.choice(page.sentences)
    words = words_of(text)
    kind = rng.choice(["exact", "part", "case", "ellipsis", "spacing", "short", "full_stop", "curly"])
    if kind == "exact":
        return kind, text
    if kind == "part":
        start = rng.randint(0, len(words) - 6)
        return kind, " ".join(words[start : start + rng.randint(5, len(words) - start)])
    if kind == "case":
        quote = " ".join(words[rng.randint(0, 3) :])
        return kind, quote[0].upper() + quote[1:].lower() if rng.random() < 0.5 else quote.upper()
    if kind == "ellipsis":
        cut = rng.randint(3, len(words) - 4)
        return kind, " ".join(words[:cut]) + " … " + " ".join(words[cut + 2 :])
    if kind == "spacing":
        return kind, "  ".join(words[1:]).replace(" ", "\u00a0", 1)
    if kind == "short":
        start = rng.randint(0, len(words) - 3)
        return kind, " ".join(words[start : start + 3])
    if kind == "full_stop":
        return kind, text.rstrip(".") + ","
    return kind, text  # curly quotes are applied when the sentence is written


# -- fabricated quotes: what the page does not say ---------------------------------------------


def fabricated(rng: random.Random, page: Page, other: Page) -> tuple[str, str]:
    text = rng.choice(page.sentences)
    words = words_of(text)
    kind = rng.choice(["number", "word", "negation", "ending", "recombined", "wrong_source", "invented"])
    if kind == "number":
        at = next(i for i, w in enumerate(words) if any(c.isdigit() for c in w))
        digits = re.sub(r"\d", lambda m: str((int(m.group()) + rng.randint(1, 8)) % 10), words[at], count=1)
        words[at] = digits if digits != words[at] else words[at] + "0"
        return kind, " ".join(words)
    if kind == "word":
        swappable = [i for i, w in enumerate(words) if w in SWAPS]
        if swappable:
            at = rng.choice(swappable)
            words[at] = SWAPS[words[at]]
        else:
            words[1] = rng.choice([v for v in VERBS if v != words[1]]) if words[1] in VERBS else "never"
        return kind, " ".join(words)
    if kind == "negation":
        at = next(i for i, w in enumerate(words) if w in VERBS)
        return kind, " ".join([*words[:at], "never", *words[at:]])
    if kind == "ending":
        cut = rng.randint(4, len(words) - 3)
        return kind, " ".join(words[:cut]) + " " + rng.choice(TAILS).replace("the", "a")
    if kind == "recombined":
        first, second = rng.sample(page.sentences, 2)
        a, b = words_of(first), words_of(second)
        return kind, " ".join(a[: len(a) // 2] + b[len(b) // 2 :])
    if kind == "wrong_source":
        return kind, rng.choice(other.sentences).rstrip(".")
    return kind, f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} that {rng.choice(OBJECTS)} doubled overnight"


# -- one answer --------------------------------------------------------------------------------


@dataclass
class Case:
    pages: tuple[Page, Page]
    text: str = ""
    quotes: list[tuple[bool, str]] = field(default_factory=list)
    """(fabricated, kind) per marker, in order."""
    urls: list[tuple[bool, str]] = field(default_factory=list)
    """(fabricated, url) per URL written."""


def fake_url(rng: random.Random) -> str:
    host = rng.choice(FAKE_HOSTS)
    path = rng.choice(["/report", "/2026/03/storms", "/a?id=17", "/stats/latest", "/?secret=token-123"])
    return f"https://{host}{path}"


def link(rng: random.Random, url: str) -> str:
    form = rng.choice(["markdown", "bare", "image", "autolink", "paren"])
    if form == "markdown":
        return f"[the full report]({url})"
    if form == "image":
        return f"![chart]({url})"
    if form == "autolink":
        return f"<{url}>"
    if form == "paren":
        return f"(see {url})"
    return url


def make_case(rng: random.Random, pages: list[Page], urls: dict[str, str]) -> Case:
    first, second = rng.sample(pages, 2)
    case = Case((first, second))
    parts = []
    for _ in range(rng.randint(4, 8)):
        number = rng.choice([1, 2])
        page, other = (first, second) if number == 1 else (second, first)
        planted_fake = rng.random() < 0.5
        kind, quote = fabricated(rng, page, other) if planted_fake else genuine(rng, page)
        curly = kind == "curly" or rng.random() < 0.3
        opened, closed = ("“", "”") if curly else ('"', '"')
        lead = rng.choice(["The report says", "According to the page,", "It notes that", "One line reads"])
        parts.append(f"{lead} {opened}{quote}{closed} [{number}].")
        case.quotes.append((planted_fake, kind))
        if rng.random() < 0.45:
            url = fake_url(rng)
            parts.append(f"More at {link(rng, url)}.")
            case.urls.append((True, url))
        if rng.random() < 0.2:
            url = urls[page.path]
            parts.append(f"The source is {link(rng, url)} for details.")
            case.urls.append((False, url))
    case.text = " ".join(parts)
    return case


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    missed: Counter[str] = field(default_factory=Counter)
    wrong: Counter[str] = field(default_factory=Counter)


async def run_case(agent: Agent, llm: ScriptedLLM, case: Case, urls: dict[str, str], tally: Tally) -> None:
    first, second = case.pages
    a, b = urls[first.path], urls[second.path]
    # one fetch per step, so the pages are sources [1] and [2] in this order
    llm.add(Turn(tool_calls=[call("web_fetch", {"url": a})]), Turn(tool_calls=[call("web_fetch", {"url": b})]))
    llm.add(Turn(text=case.text))
    events = [e async for e in agent.run(f"Compare {a} and {b}.")]
    done = next(e for e in events if isinstance(e, Done))
    streamed = "".join(e.text for e in events if e.type == "delta")
    checks = done.citations
    assert len(checks) == len(case.quotes), (len(checks), len(case.quotes), case.text)
    for (planted_fake, kind), check in zip(case.quotes, checks, strict=True):
        flagged = check.status != "verified"
        key = "fabricated_quotes" if planted_fake else "genuine_quotes"
        tally.counts[key] += 1
        tally.counts[key + "_flagged"] += flagged
        if planted_fake and not flagged:
            tally.missed[kind] += 1
        if not planted_fake and flagged:
            tally.wrong[kind] += 1
    for planted_fake, url in case.urls:
        flagged = url in done.flagged_urls and f"]({url})" not in streamed and f"`{url}`" in streamed
        key = "fabricated_urls" if planted_fake else "genuine_urls"
        tally.counts[key] += 1
        tally.counts[key + "_flagged"] += url in done.flagged_urls if not planted_fake else flagged
    assert streamed == done.answer


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} % ({part}/{whole})" if whole else "n/a"


async def main(cases: int, seed: int) -> None:
    rng = random.Random(seed)
    pages = make_pages(rng)
    tally = Tally()
    with PageServer() as server, ScriptedLLM() as llm:
        for page in pages:
            html = article_html(page.title, paragraphs(page))
            server.route("GET", page.path, Reply(body=html, content_type="text/html; charset=utf-8"))
        urls = {page.path: server.url(page.path) for page in pages}
        settings = Settings(fetch={"allowed_hosts": [server.host]})
        async with Runtime(settings=settings, cache=Cache(None)) as runtime:
            model = ChatModel(base_url=llm.base_url, model="scripted", timeout=30)
            agent = Agent(model, Toolset([FetchTool(runtime)]))
            started = time.perf_counter()
            for _ in range(cases):
                case = make_case(rng, pages, urls)
                await run_case(agent, llm, case, urls, tally)
            elapsed = time.perf_counter() - started
            await model.aclose()
    c = tally.counts
    print(
        f"{cases} answers, {c['fabricated_quotes'] + c['genuine_quotes']} quotes, "
        f"{c['fabricated_urls'] + c['genuine_urls']} URLs, {elapsed:.1f} s end to end"
    )
    print(f"fabricated URLs flagged:   {percent(c['fabricated_urls_flagged'], c['fabricated_urls'])}  (aim 100 %)")
    fabricated_flagged = percent(c["fabricated_quotes_flagged"], c["fabricated_quotes"])
    print(f"fabricated quotes flagged: {fabricated_flagged}  (aim >= 95 %)")
    print(f"genuine quotes flagged:    {percent(c['genuine_quotes_flagged'], c['genuine_quotes'])}  (aim <= 2 %)")
    print(f"genuine URLs flagged:      {percent(c['genuine_urls_flagged'], c['genuine_urls'])}  (aim 0 %)")
    if tally.missed:
        print("fabrications missed, by kind:", dict(tally.missed))
    if tally.wrong:
        print("genuine quotes flagged, by kind:", dict(tally.wrong))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main(args.cases, args.seed))
