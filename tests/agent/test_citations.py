"""The source ledger, the citation checks after the answer, and URLs in the answer that no source gave."""

from __future__ import annotations

import hashlib
from typing import Any

from weblens.agent.citations import SourceBook
from weblens.agent.links import LinkGuard
from weblens.agent.verify import check_citations
from weblens.cache import Cache
from weblens.config import Settings
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.pages import PageServer, article_html
from weblens.testing.server import Reply
from weblens.tools.fetch import FetchTool

LIGHTHOUSE = [
    "The Skerryvore lighthouse stands 48 metres tall on a reef twelve miles off the Isle of Tiree.",
    "Alan Stevenson designed it in 1838, and the light was first lit on 1 February 1844.",
    "Its keepers recorded 31 storms in the first winter, more than any station on the coast.",
]


def book_with(text: str, url: str = "https://lights.example/skerryvore") -> SourceBook:
    book = SourceBook()
    data = {"url": url, "final_url": url, "content": text}
    book.render(ToolResult.success("page", data=data, sources=[Source(title="Skerryvore", url=url)]))
    return book


def statuses(answer: str, book: SourceBook) -> list[str]:
    return [c.status for c in check_citations(answer, book)]


# -- the checks -----------------------------------------------------------------------------------


def test_a_quote_is_found_whatever_the_case_spacing_quote_marks_or_elisions() -> None:
    book = book_with("\n\n".join(LIGHTHOUSE))
    answer = (
        'It "stands 48 metres tall on a reef" [1]. '
        "The light was “FIRST LIT ON 1 FEBRUARY 1844” [1]. "
        'Its keepers "recorded  31 storms … more than any station on the coast" [1]. '
        'According to [1], "Alan Stevenson designed it in 1838".'
    )
    checks = check_citations(answer, book)
    assert [c.status for c in checks] == ["verified"] * 4
    assert checks[0].quote == "stands 48 metres tall on a reef" and checks[0].quote_score == 100.0
    assert checks[2].passage == LIGHTHOUSE[2]


def test_a_changed_number_word_or_invented_quote_is_not_found() -> None:
    book = book_with("\n\n".join(LIGHTHOUSE))
    answer = (
        'It "stands 58 metres tall on a reef twelve miles off the Isle of Tiree" [1]. '
        'The keepers "recorded 31 storms in the first summer" [1]. '
        'It was "the most photographed lighthouse in Scotland" [1]. '
        'The light "was never lit" [1].'
    )
    checks = check_citations(answer, book)
    assert [c.status for c in checks] == ["quote_not_found"] * 4
    assert checks[0].quote_score is not None and checks[0].quote_score < 100


def test_every_marker_is_checked_and_unknown_numbers_are_unknown_sources() -> None:
    book = book_with("\n\n".join(LIGHTHOUSE))
    answer = "Skerryvore is 48 metres tall [1][4]. It was designed in 1838. [1, 2]"
    checks = check_citations(answer, book)
    assert [(c.number, c.status) for c in checks] == [
        (1, "cited"),
        (4, "unknown_source"),
        (1, "cited"),
        (2, "unknown_source"),
    ]
    assert checks[0].sentence == "Skerryvore is 48 metres tall."
    assert checks[2].sentence == "It was designed in 1838."  # the marker after the full stop cites the sentence before
    assert checks[2].passage == LIGHTHOUSE[1] and checks[2].score == 1.0
    assert checks[1].passage == "" and checks[1].url is None


def test_the_supporting_passage_is_the_one_sharing_most_words_and_the_score_says_how_many() -> None:
    book = book_with("\n\n".join(LIGHTHOUSE))
    [weak, strong] = check_citations("Bananas are yellow [1]. The keepers recorded 31 storms in winter [1].", book)
    assert strong.passage == LIGHTHOUSE[2] and strong.score >= 0.8
    assert weak.score == 0.0


def test_short_quotes_must_match_exactly_and_chinese_quotes_are_checked() -> None:
    book = book_with("灯塔高48米，位于离岛十二英里的礁石上。\n\nThe light was first lit in 1844.")
    assert statuses('It was "first lit in 1844" [1]. It was "first lit in 1845" [1].', book) == [
        "verified",
        "quote_not_found",
    ]
    assert statuses("文章说「灯塔高48米」[1]。文章说「灯塔高58米」[1]。", book) == ["verified", "quote_not_found"]


def test_the_ledger_keeps_the_text_read_its_hash_and_where_the_fetch_ended() -> None:
    book = SourceBook()
    page = {"url": "https://a.example/old", "final_url": "https://a.example/new", "content": "The page text."}
    book.render(ToolResult.success("page", data=page, sources=[Source(title="A", url="https://a.example/new")]))
    search = {"results": [{"title": "A", "url": "https://www.a.example/new/", "snippet": "A snippet."}]}
    book.render(
        ToolResult.success("results", data=search, sources=[Source(title="A", url="https://www.a.example/new/")])
    )
    [source] = book.sources  # the same page in three spellings is one source
    assert (source.number, source.url, source.final_url) == (1, "https://a.example/new", "https://a.example/new")
    assert book.text(1) == "The page text.\n\nA\nA snippet."
    assert source.sha256 == hashlib.sha256(book.text(1).encode()).hexdigest() and source.fetched_at
    assert book.lookup("https://a.example/old") is source


# -- URLs in the answer ---------------------------------------------------------------------------


def test_urls_no_source_gave_become_plain_text_even_split_across_deltas() -> None:
    allowed = {"https://lights.example/skerryvore"}
    text = (
        "See [the report](https://attacker.example/x?s=1), ![chart](https://attacker.example/p.png), "
        "<https://made-up.example/a>, https://made-up.example/b and www.made-up.example/c. "
        "The source is [Skerryvore](https://lights.example/skerryvore) and `https://code.example/x` [1]."
    )
    expected = (
        "See the report (`https://attacker.example/x?s=1`), chart (`https://attacker.example/p.png`), "
        "`https://made-up.example/a`, `https://made-up.example/b` and `www.made-up.example/c`. "
        "The source is [Skerryvore](https://lights.example/skerryvore) and `https://code.example/x` [1]."
    )
    for size in range(1, 12):
        guard = LinkGuard(lambda url: url in allowed)
        shown = "".join(guard.feed(text[i : i + size]) for i in range(0, len(text), size)) + guard.flush()
        assert shown == expected, size
        assert guard.flagged == [
            "https://attacker.example/x?s=1",
            "https://attacker.example/p.png",
            "https://made-up.example/a",
            "https://made-up.example/b",
            "www.made-up.example/c",
        ]


def test_a_paragraph_streams_until_a_link_could_start_and_then_goes_out_whole_and_checked() -> None:
    guard = LinkGuard(lambda url: False)
    assert guard.feed("Plain words go out at once [1]. ") == "Plain words go out at once [1]. "
    assert guard.feed("Then https:") == "Then "
    assert guard.feed("//made-up.example/x and more") == ""  # held until the paragraph ends
    assert guard.feed(" words.\n\nNext <") == "`https://made-up.example/x` and more words.\n\nNext "
    assert guard.flush() == "<"


# -- through the agent ----------------------------------------------------------------------------


async def test_an_answer_from_a_fetched_page_carries_checked_citations_and_no_invented_links(
    llm: ScriptedLLM, ask: Any
) -> None:
    with PageServer() as pages:
        pages.route("GET", "/skerryvore", Reply(body=article_html("Skerryvore", LIGHTHOUSE),
                                                content_type="text/html; charset=utf-8"))  # fmt: skip
        url = pages.url("/skerryvore")
        settings = Settings(fetch={"allowed_hosts": [pages.host]})
        async with Runtime(settings=settings, cache=Cache(None)) as runtime:
            llm.add(
                Turn(tool_calls=[call("web_fetch", {"url": pages.url("/redirect?to=/skerryvore")})]),
                Turn(
                    text=(
                        'Skerryvore "stands 48 metres tall on a reef" [1]. Its keepers "logged 90 storms" [1]. '
                        f"Read [the page]({url}) or [the full history](https://history.example/skerryvore) [2]."
                    )
                ),
            )
            answer = await ask(f"Tell me about {pages.url('/redirect?to=/skerryvore')}", [FetchTool(runtime)])

    done = answer.done
    assert answer.text == done.answer  # what streamed is what was saved
    assert "](https://history.example" not in answer.text and "(`https://history.example/skerryvore`)" in answer.text
    assert f"[the page]({url})" in answer.text  # the ledger's own URL stays a link
    assert done.flagged_urls == ["https://history.example/skerryvore"]
    assert [(c.number, c.status) for c in done.citations] == [
        (1, "verified"),
        (1, "quote_not_found"),
        (2, "unknown_source"),
    ]
    assert done.citations[0].passage.startswith("The Skerryvore lighthouse stands 48 metres tall")
    [source] = done.sources
    assert source.final_url == url and source.sha256 and source.fetched_at


# -- issue 25 §3: checks that a quote cannot get past ------------------------------------------------

DRUG = [
    "The drug is not safe for children under twelve, the agency said on Monday.",
    "Adults may take 20 mg a day. Trials in 2019 found no serious side effects in adults.",
    "The agency will review the label again in March.",
]


def drug_book() -> SourceBook:
    return book_with("\n\n".join(DRUG), url="https://agency.example/drug")


def test_a_quote_that_drops_or_adds_a_negation_is_not_found() -> None:
    book = drug_book()
    answer = (
        'It says "the drug is safe for children under twelve" [1]. '
        'Trials "found serious side effects in adults" [1]. '
        'The drug "is never safe for children under twelve" [1]. '
        'The drug "is not safe for children under twelve" [1].'
    )
    assert statuses(answer, book) == ["quote_not_found", "quote_not_found", "quote_not_found", "verified"]


def test_a_typo_is_forgiven_but_never_a_number() -> None:
    book = drug_book()
    answer = (
        'The agency "will reveiw the label again in March" [1]. '  # one transposition in a long word
        'Adults "may take 30 mg a day" [1]. '
        'Trials in "2018 found no serious side effects in adults" [1].'
    )
    assert statuses(answer, book) == ["verified", "quote_not_found", "quote_not_found"]


def test_an_ellipsis_may_not_splice_passages_or_leave_out_a_negation() -> None:
    book = drug_book()
    answer = (
        'It said "The drug is … safe" [1]. '  # leaves out the "not"
        'It said "The drug is not safe … again in March" [1]. '  # two passages spliced
        'It said "The drug is not safe … the agency said" [1].'  # in order, in one passage
    )
    assert statuses(answer, book) == ["quote_not_found", "quote_not_found", "verified"]


def test_short_quotes_are_checked_word_for_word() -> None:
    book = drug_book()
    answer = (
        'The agency called the drug "safe" [1]. '  # the source says it only after "not"
        'The label is "banned" [1]. '
        'It is for "adults" [1]. '
        'The dose is "20 mg" [1].'
    )
    assert statuses(answer, book) == ["quote_not_found", "quote_not_found", "verified", "verified"]


def test_every_quote_style_is_checked() -> None:
    book = drug_book()
    fabricated = "the drug is safe for children under twelve"
    genuine = "the drug is not safe for children under twelve"
    styles = [
        ("'", "'"), ("‘", "’"), ("‹", "›"), ("«", "»"), ("「", "」"),
        ("『", "』"), ("＂", "＂"), ("“", "”"), ("`", "`"),
    ]  # fmt: skip
    for opened, closed in styles:
        answer = f"It says {opened}{fabricated}{closed} [1]. It says {opened}{genuine}{closed} [1]."
        assert statuses(answer, book) == ["quote_not_found", "verified"], opened
    blockquotes = [
        f"As the agency puts it [1]:\n> {fabricated}\n\nMore below.",
        "> The drug\n> is safe for children under twelve [1].",
        f"> {fabricated}\n\u2014 the agency [1]",
    ]
    for answer in blockquotes:
        assert statuses(answer, book) == ["quote_not_found"], answer
    assert statuses(f"As the agency puts it [1]:\n> {genuine}\n", book) == ["verified"]


def test_apostrophes_and_code_are_not_quotes() -> None:
    book = drug_book()
    answer = (
        "The agency doesn't say it's safe for children's use [1]. "
        "Run `pip install drugcheck` or `check(dose=20)` to see it [1]. "
        "The 'safe' label isn't there [1]."
    )
    checks = check_citations(answer, book)
    assert [c.quote for c in checks] == [None, None, "safe"]
    assert [c.status for c in checks][2] == "quote_not_found"


def test_an_unquoted_claim_is_cited_or_unsupported_never_verified() -> None:
    book = drug_book()
    checks = check_citations(
        "The agency said the drug is not safe for children under twelve [1]. Bananas cure colds quickly [1].", book
    )
    assert [c.status for c in checks] == ["cited", "unsupported"]
    assert checks[0].score >= 0.5 > checks[1].score
