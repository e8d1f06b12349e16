"""Citation checks against planted fabrications: a scripted model answers from fake pages.

Each case is one real agent run: the user names two pages (local `FakeServer`), the
scripted model (`ScriptedLLM`, over HTTP) fetches both with `web_fetch`, then streams an
answer that quotes them — genuine quotes cut from the pages' text (with the liberties
models take: case, curly quotes, ellipses, spacing, dropped end punctuation) and
fabricated ones (a word or a number changed, a negation added or dropped, an invented
ending, words of the page recombined, a real quote cited to the wrong page, an ellipsis
splicing two paragraphs or leaving out a "not", a short word the page does not say or says
only after "not"), in every quote style the checker reads ("…", “…”, '…', ‘…’, «…», ‹…›,
「…」, 『…』, fullwidth, backticks, `> blockquote`), and unquoted claims (a paraphrase of the
page, or a claim it does not make) — and links to the pages (genuine) and to invented URLs
(markdown links, bare, images, autolinks; the model streams in 4-character chunks, so URLs
span deltas). The answer's `done` event is compared with what was planted.

    python bench/citations.py [--cases 150] [--seed 7] [--runs 3]

Prints, per run and as medians over the runs (different seeds): fabricated URLs flagged (aim
100 %), fabricated quotes flagged (aim >= 95 %), genuine quotes flagged (aim 0 %), genuine
URLs flagged; the flag rate of each fabrication kind and each quote style beside the genuine
quotes' false-flag rate in that style; unquoted claims: paraphrases marked `unsupported`
(false flags) beside false claims marked `unsupported`, with the support scores that set
`SUPPORT_MIN_SCORE`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from weblens.agent import Agent, ChatModel, Done
from weblens.agent.verify import SUPPORT_MIN_SCORE
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


NEGATORS = ("not", "never")
UNRELATED = [
    "Chip sales in Asia rose by a third after the trade agreement was signed",
    "The vaccine was approved for children under twelve last winter",
    "Ticket prices for the orchestra fell for the first time since 1990",
    "A new species of orchid was named after the volunteer who found it",
    "The airline cancelled most flights when the pilots went on strike",
    "Rents in the capital doubled within five years of the stadium opening",
]


def sentence(rng: random.Random) -> str:
    number = rng.choice([rng.randint(2, 999), f"{rng.randint(1, 99)}.{rng.randint(1, 9)}", rng.randint(1000, 99999)])
    verb = rng.choice(VERBS)
    if rng.random() < 0.3:  # "X has not reported 45 storms ...": a negation to drop
        verb = f"has {rng.choice(NEGATORS)} {verb}"
    return f"{rng.choice(SUBJECTS)} {verb} {number} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."


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


def start_at(rng: random.Random, words: list[str], low: int, high: int) -> int:
    """A start in [low, high] that is not right after a negation (quoting "reported 45 storms"
    from "has not reported 45 storms" is the misquote the checker flags)."""
    choices = [i for i in range(low, high + 1) if i == 0 or words[i - 1] not in NEGATORS]
    return rng.choice(choices)


def genuine(rng: random.Random, page: Page) -> tuple[str, str]:
    text = rng.choice(page.sentences)
    words = words_of(text)
    kind = rng.choice(["exact", "part", "case", "ellipsis", "spacing", "short", "full_stop", "curly", "one_word"])
    if kind == "exact":
        return kind, text
    if kind == "part":
        start = start_at(rng, words, 0, len(words) - 6)
        return kind, " ".join(words[start : start + rng.randint(5, len(words) - start)])
    if kind == "case":
        quote = " ".join(words[start_at(rng, words, 0, 3) :])
        return kind, quote[0].upper() + quote[1:].lower() if rng.random() < 0.5 else quote.upper()
    if kind == "ellipsis":  # two words left out, neither of them a negation
        cuts = [c for c in range(3, len(words) - 3) if not set(words[c : c + 2]) & set(NEGATORS)]
        cut = rng.choice(cuts)
        return kind, " ".join(words[:cut]) + " … " + " ".join(words[cut + 2 :])
    if kind == "spacing":
        return kind, "  ".join(words[1:]).replace(" ", "\u00a0", 1)
    if kind == "short":
        start = start_at(rng, words, 0, len(words) - 3)
        return kind, " ".join(words[start : start + 3])
    if kind == "one_word":  # under 8 characters: checked exactly, word for word
        options = [w for i, w in enumerate(words) if 3 <= len(w) < 8 and (i == 0 or words[i - 1] not in NEGATORS)]
        return kind, rng.choice(options)
    if kind == "full_stop":
        return kind, text.rstrip(".") + ","
    return kind, text  # curly quotes are applied when the sentence is written


# -- fabricated quotes: what the page does not say ---------------------------------------------


def fabricated(rng: random.Random, page: Page, other: Page) -> tuple[str, str]:
    text = rng.choice(page.sentences)
    words = words_of(text)
    kinds = ["number", "word", "negation", "ending", "recombined", "wrong_source", "invented"]
    kinds += ["dropped_negation", "splice_paragraphs", "splice_negation", "short_absent", "short_after_negation"]
    kind = rng.choice(kinds)
    negated = [t for t in page.sentences if set(words_of(t)) & set(NEGATORS)]
    if kind in ("dropped_negation", "splice_negation", "short_after_negation") and negated:
        words = words_of(rng.choice(negated))
        at = next(i for i, w in enumerate(words) if w in NEGATORS)
        if kind == "dropped_negation":  # the whole sentence or a part around where "not" was
            start = rng.choice([0, rng.randint(max(0, at - 2), at)])
            return kind, " ".join(words[start:at] + words[at + 1 : at + 1 + rng.randint(3, 8)])
        if kind == "splice_negation":  # "has … reported": the ellipsis leaves out the "not"
            return kind, " ".join(words[:at]) + " … " + " ".join(words[at + 1 :])
        said = {w for t in page.sentences for w in words_of(t.lower()) if w not in NEGATORS}
        split = [words_of(t) for t in page.sentences]
        elsewhere = {w for ws in split for i, w in enumerate(ws) if i == 0 or ws[i - 1] not in NEGATORS}
        if words[at + 1] not in elsewhere and words[at + 1] in said:
            return kind, words[at + 1]  # the page says it only after "not"
        kind = "short_absent"
    if kind == "splice_paragraphs":  # the start of one paragraph's sentence, the end of another's
        blocks = paragraphs(page)
        for _ in range(50):  # parts no single paragraph holds in this order (else it is a fair elision)
            first, second = rng.sample(range(len(blocks)), 2)
            a, b = words_of(rng.choice(blocks[first].split(". "))), words_of(rng.choice(blocks[second].split(". ")))
            head, tail = " ".join(a[: rng.randint(3, 5)]), " ".join(b[-rng.randint(3, 5) :])
            if not any(0 <= block.find(head) < block.find(tail, block.find(head) + len(head)) for block in blocks):
                return kind, f"{head} … {tail}"
        kind = "number"
    if kind in ("short_absent", "short_after_negation", "dropped_negation", "splice_negation"):
        on_page = " ".join(page.sentences).lower()
        absent = [
            w for w in ("doubled", "halved", "banned", "tripled", "flooded", "closed", "record") if w not in on_page
        ]
        return "short_absent", rng.choice(absent)
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


# -- unquoted claims: a paraphrase of the page, or a claim it does not make -----------------------


def unquoted(rng: random.Random, page: Page, other: Page) -> tuple[bool, str, str]:
    """(false claim, kind, sentence without quote marks)."""
    kind = rng.choice(["paraphrase", "invented", "unrelated", "wrong_source"])
    if kind == "paraphrase":  # the page's claim in other words: a synonym or two, the tail perhaps dropped
        plain = [t for t in page.sentences if not set(words_of(t)) & set(NEGATORS)] or page.sentences
        subject, verb, number, rest = split_sentence(rng.choice(plain))
        rest = " ".join(SYNONYMS.get(w, w) if rng.random() < 0.5 else w for w in rest.split())
        if rng.random() < 0.5:
            rest = next((rest.split(f" {t}")[0] for t in TAILS if f" {t}" in rest), rest)
        return False, "paraphrase", f"{subject}, the page says, {SYNONYMS[verb]} {number} {rest}"
    if kind == "invented":  # the page's vocabulary, a claim it does not make
        return (
            True,
            "unquoted_invented",
            f"{rng.choice(SUBJECTS)} lost track of {rng.choice(OBJECTS)} {rng.choice(TAILS)}",
        )
    if kind == "unrelated":
        return True, "unquoted_unrelated", rng.choice(UNRELATED)
    subject, verb, number, rest = split_sentence(rng.choice(other.sentences))  # another page's claim
    return True, "unquoted_wrong_source", f"{subject}, the page says, {SYNONYMS[verb]} {number} {rest}"


SYNONYMS = {
    "reported": "noted", "recorded": "logged", "estimated": "reckoned", "announced": "declared", "measured": "gauged",
    "confirmed": "verified", "counted": "tallied", "observed": "saw", "storms": "gales", "visitors": "guests",
    "tonnes": "tons", "hours": "hrs", "kilometres": "km", "litres": "liters", "boats": "vessels", "hectares": "ha",
    "students": "pupils", "cases": "instances", "books": "volumes",
}  # fmt: skip


def split_sentence(text: str) -> tuple[str, str, str, str]:
    """(subject, verb, number, the rest) of a generated sentence."""
    words = words_of(text)
    at = next(i for i, w in enumerate(words) if any(c.isdigit() for c in w))
    verb_at = next(i for i, w in enumerate(words) if w in VERBS)
    return (
        " ".join(words[: verb_at - (2 if words[verb_at - 1] in NEGATORS else 0)]),
        words[verb_at],
        words[at],
        " ".join(words[at + 1 :]),
    )


# -- quote styles: every pair of marks the checker reads -----------------------------------------

STYLES = {
    "double": ('"', '"'),
    "curly_double": ("“", "”"),
    "single": ("'", "'"),
    "curly_single": ("‘", "’"),
    "guillemets": ("«", "»"),
    "single_guillemets": ("‹", "›"),
    "corner": ("「", "」"),
    "white_corner": ("『", "』"),
    "fullwidth": ("＂", "＂"),
    "backticks": ("`", "`"),
    "blockquote": ("", ""),
}


def quoted(rng: random.Random, quote: str, number: int, lead: str) -> tuple[str, str]:
    """(style, the answer's sentence quoting `quote` for source `number`)."""
    styles = list(STYLES)
    if len(quote.split()) < 4:  # fewer than four words in backticks read as code, not a quote
        styles.remove("backticks")
    style = rng.choice(styles)
    if style == "blockquote":
        return style, f"\n\n{lead} [{number}]:\n> {quote}\n\n"
    opened, closed = STYLES[style]
    return style, f"{lead} {opened}{quote}{closed} [{number}]."


# -- one answer --------------------------------------------------------------------------------


@dataclass
class Case:
    pages: tuple[Page, Page]
    text: str = ""
    quotes: list[tuple[bool, str, str]] = field(default_factory=list)
    """(fabricated, kind, quote style or "unquoted") per marker, in order."""
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
        lead = rng.choice(["The report says", "According to the page,", "It notes that", "One line reads"])
        if rng.random() < 0.2:
            planted_fake, kind, claim = unquoted(rng, page, other)
            parts.append(f"{claim} [{number}].")
            case.quotes.append((planted_fake, kind, "unquoted"))
        else:
            kind, quote = fabricated(rng, page, other) if planted_fake else genuine(rng, page)
            style, written = quoted(rng, quote, number, lead)
            if kind == "curly":
                style, written = "curly_double", f"{lead} “{quote}” [{number}]."
            parts.append(written)
            case.quotes.append((planted_fake, kind, style))
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
    kinds: Counter[str] = field(default_factory=Counter)
    """("fabricated"|"genuine", kind) and (…, style) seen, and "…:flagged" of each."""
    support: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """Support scores of unquoted claims, by kind."""


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
    for (planted_fake, kind, style), check in zip(case.quotes, checks, strict=True):
        side = "fabricated" if planted_fake else "genuine"
        if style == "unquoted":  # never `verified`: `cited` or `unsupported`
            assert check.status in ("cited", "unsupported"), (check, case.text)
            flagged = check.status == "unsupported"
            key = "false_claims" if planted_fake else "paraphrases"
            tally.support[kind].append(check.score)
        else:
            flagged = check.status != "verified"
            key = "fabricated_quotes" if planted_fake else "genuine_quotes"
            tally.kinds[f"{side}|style:{style}"] += 1
            tally.kinds[f"{side}|style:{style}:flagged"] += flagged
        tally.kinds[f"{side}|{kind}"] += 1
        tally.kinds[f"{side}|{kind}:flagged"] += flagged
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


async def run(cases: int, seed: int) -> tuple[Tally, float]:
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
    return tally, elapsed


def rate(counts: Counter[str], key: str) -> float | None:
    return 100 * counts[key + ":flagged"] / counts[key] if counts[key] else None


def median_rate(tallies: list[Tally], key: str) -> str:
    rates = [r for t in tallies if (r := rate(t.kinds, key)) is not None]
    seen = sum(t.kinds[key] for t in tallies)
    return f"{statistics.median(rates):5.1f} % (n={seen})" if rates else "    n/a"


async def main(cases: int, seed: int, runs: int) -> None:
    tallies = []
    for number in range(runs):
        tally, elapsed = await run(cases, seed + number)
        tallies.append(tally)
        c = tally.counts
        print(
            f"run {number + 1} (seed {seed + number}): {cases} answers, "
            f"{c['fabricated_quotes'] + c['genuine_quotes']} quotes, {c['false_claims'] + c['paraphrases']} "
            f"unquoted claims, {c['fabricated_urls'] + c['genuine_urls']} URLs, {elapsed:.1f} s end to end"
        )
        print(
            f"  fabricated URLs flagged:   {percent(c['fabricated_urls_flagged'], c['fabricated_urls'])}  (aim 100 %)"
        )
        fabricated_flagged = percent(c["fabricated_quotes_flagged"], c["fabricated_quotes"])
        print(f"  fabricated quotes flagged: {fabricated_flagged}  (aim >= 95 %)")
        print(f"  genuine quotes flagged:    {percent(c['genuine_quotes_flagged'], c['genuine_quotes'])}  (aim 0 %)")
        print(f"  genuine URLs flagged:      {percent(c['genuine_urls_flagged'], c['genuine_urls'])}  (aim 0 %)")
        print(f"  false claims unsupported:  {percent(c['false_claims_flagged'], c['false_claims'])}")
        print(f"  paraphrases unsupported:   {percent(c['paraphrases_flagged'], c['paraphrases'])}  (aim 0 %)")
        if tally.missed:
            print("  fabrications missed, by kind:", dict(tally.missed))
        if tally.wrong:
            print("  genuine flagged, by kind:", dict(tally.wrong))
    print(
        f"\nmedians over {runs} runs of {cases} answers: each fabrication's flag rate, beside genuine false flags"
    )
    kinds = sorted({k.split("|", 1)[1] for t in tallies for k in t.kinds if not k.endswith(":flagged")})
    styles = [k for k in kinds if k.startswith("style:")]
    fabricated_kinds = [
        k for k in kinds if not k.startswith("style:") and any(t.kinds[f"fabricated|{k}"] for t in tallies)
    ]
    genuine_kinds = [k for k in kinds if not k.startswith("style:") and any(t.kinds[f"genuine|{k}"] for t in tallies)]
    for kind in fabricated_kinds:
        print(f"  fabricated {kind:<22} flagged {median_rate(tallies, f'fabricated|{kind}')}")
    for kind in genuine_kinds:
        print(f"  genuine    {kind:<22} flagged {median_rate(tallies, f'genuine|{kind}')}  (aim 0 %)")
    print("  by quote style:            fabricated flagged   genuine flagged (aim 0 %)")
    for style in styles:
        name = style.removeprefix("style:")
        fake, real = median_rate(tallies, f"fabricated|{style}"), median_rate(tallies, f"genuine|{style}")
        print(f"    {name:<22} {fake:>20}   {real:>16}")
    print(f"  support scores of unquoted claims (SUPPORT_MIN_SCORE = {SUPPORT_MIN_SCORE}): min / median / max")
    for kind in ("paraphrase", "unquoted_invented", "unquoted_unrelated", "unquoted_wrong_source"):
        scores = [x for t in tallies for x in t.support.get(kind, [])]
        if scores:
            print(
                f"    {kind:<22} {min(scores):.2f} / {statistics.median(scores):.2f} / {max(scores):.2f}"
                f"  (n={len(scores)})"
            )
    genuine_scores = [x for t in tallies for x in t.support.get("paraphrase", [])]
    false_scores = [x for t in tallies for k, v in t.support.items() if k != "paraphrase" for x in v]
    if genuine_scores and false_scores:
        print("  support threshold sweep:   paraphrases unsupported   false claims unsupported")
        for threshold in (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7):
            wrong = percent(sum(x < threshold for x in genuine_scores), len(genuine_scores))
            caught = percent(sum(x < threshold for x in false_scores), len(false_scores))
            mark = "  <- SUPPORT_MIN_SCORE" if threshold == SUPPORT_MIN_SCORE else ""
            print(f"    {threshold:<4}                   {wrong:>20}   {caught:>20}{mark}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.cases, args.seed, args.runs))
