"""A page that declares no article, or whose main-content pass found no article block, gets back the blocks the pass
cut out between ones it kept."""

from __future__ import annotations

from weblens.fetch import wild_text
from weblens.fetch.extract import extract
from weblens.fetch.sections import gaps_may_add
from weblens.testing.pages import page_fixture

_SEASONS = (
    "<p>Our crews have serviced moorings along this coast for thirty years, and every buoy we lay is checked by the "
    "same two people who will lift it again when the season ends and the boats come out.</p>"
)
_LOG = (
    "<p>We keep a <b>written log</b> of every chain, shackle and swivel we fit, so the next crew knows what is down "
    "there and when it was last seen, long before anything starts to wear through.</p>"
)
_SERVICES = (
    ("Inspection", "divers check every chain link and shackle pin for wear before the first gales."),
    ("Replacement", "worn parts are swapped the same day, from the stock we keep on the quay."),
    ("Relocation", "moorings are moved to a new berth when the harbour master asks for it."),
)


def _page(
    og_type: str, after: str = "", services: tuple[tuple[str, str], ...] = _SERVICES, container: str = "div"
) -> bytes:
    # `role=list` on a list is one of the shapes trafilatura cuts out of a page (a Webflow rich-text block)
    items = "".join(f"<li><strong>{name}</strong>: {what}</li>" for name, what in services)
    return (
        f"<html><head><title>Mooring services</title><meta property='og:type' content='{og_type}'></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About us</a></nav><{container} class='richtext'>"
        "<h1>Mooring services</h1>"
        f"{_SEASONS}<h2>What we do</h2><ul role='list'>{items}</ul>{_LOG}{_SEASONS.replace('thirty', 'forty')}"
        f"{after}</{container}><footer>Harbour Office, Quay Street</footer></body></html>"
    ).encode()


def test_the_list_and_heading_cut_between_kept_paragraphs_come_back_in_place() -> None:
    """They go back into the pass's own markdown (its emphasis kept), after the paragraph they follow."""
    found = extract(_page("website"), "text/html")

    assert found.extractor == "gaps"
    assert found.content == (
        "Our crews have serviced moorings along this coast for thirty years, and every buoy we lay is checked by the "
        "same two people who will lift it again when the season ends and the boats come out.\n\n"
        "## What we do\n\n"
        "- Inspection: divers check every chain link and shackle pin for wear before the first gales.\n"
        "- Replacement: worn parts are swapped the same day, from the stock we keep on the quay.\n"
        "- Relocation: moorings are moved to a new berth when the harbour master asks for it.\n\n"
        "We keep a **written log** of every chain, shackle and swivel we fit, so the next crew knows what is down "
        "there and when it was last seen, long before anything starts to wear through.\n\n"
        "Our crews have serviced moorings along this coast for forty years, and every buoy we lay is checked by the "
        "same two people who will lift it again when the season ends and the boats come out."
    )


def test_what_follows_the_last_kept_block_stays_out() -> None:
    more = "".join(f"<li><a href='/s/{i}'>{name} moorings in the outer harbour</a></li>" for i, name in enumerate("AB"))
    content = extract(_page("website", after=f"<h3>More from us</h3><ul role='list'>{more}</ul>"), "text/html").content

    assert "- Inspection: divers check" in content  # the gap is filled
    assert "More from us" not in content and "outer harbour" not in content


def test_a_declared_article_keeps_the_main_content_pass_that_found_its_article_block() -> None:
    # in an <article> trafilatura reads the heading and the list itself: nothing is put back
    found = extract(_page("article", container="article"), "text/html")

    assert found.extractor == "trafilatura"
    assert "## What we do\n\n- **Inspection**: divers check" in found.content  # the pass's own markdown
    assert "We keep a **written log**" in found.content


def test_a_declared_article_gets_back_what_a_pass_that_found_no_article_block_cut() -> None:
    # in a plain <div> trafilatura finds no article block and reads the loose paragraphs alone (wild_text.py)
    found = extract(_page("article"), "text/html")

    assert found.extractor == "gaps"
    assert "for thirty years" in found.content and "## What we do\n\n- Inspection: divers check" in found.content
    with wild_text.stock():  # trafilatura's own function, not counted: the pass's cut stands
        found = extract(_page("article"), "text/html")
    assert found.extractor == "trafilatura"
    assert "What we do" not in found.content and "Inspection" not in found.content
    assert "We keep a **written log**" in found.content


def test_a_gap_of_a_few_words_is_not_worth_the_page_text() -> None:
    found = extract(_page("website", services=(("Call", "the quay"),)), "text/html")

    assert found.extractor == "trafilatura"
    assert "Call" not in found.content and "We keep a **written log**" in found.content


def test_a_heading_goes_back_above_the_paragraph_it_heads_when_the_pass_wrote_lines_one_apart() -> None:
    """trafilatura writes a button's text and the next paragraph one line apart (no blank line): a heading cut
    from between them goes back between them, not below both."""
    found = extract(page_fixture("page_service_features.html"), "text/html")
    assert found.extractor == "gaps"
    content = found.content
    assert content.index("Start free trial") < content.index("## Everything you need") < content.index("Connect your")
    assert content.index("### Fast setup") < content.index("Connect your") < content.index("### Automatic reminders")


def test_items_cut_out_go_back_under_the_short_heading_the_pass_kept() -> None:
    """A heading of a word or two the pass kept is where the items after it go back, not under the heading before
    (one- and two-word blocks never count as held, so the Python items went under "Go")."""
    groups = {
        "JavaScript": ["Astro", " for content sites with islands of interactivity, shipping no script by default."],
        "Go": ["Hugo", " for extremely fast builds, and great for very large sites."],
        "Python": ["Pelican", " for blogs written in Markdown or reStructuredText.", "MkDocs", " for documentation."],
        "Ruby": ["Jekyll", " which powers the pages of many project sites."],
    }
    # each item a link and a few words: a list trafilatura cuts out as links
    sections = "".join(
        f"<h2>{name}</h2><ul>"
        + "".join(
            f"<li><a href='/{name}'>{link}</a>{what}</li>" for link, what in zip(items[::2], items[1::2], strict=True)
        )
        + "</ul>"
        for name, items in groups.items()
    )
    page = (
        "<html><head><title>Static site generators</title></head><body><nav><a href='/'>Home</a></nav><main>"
        "<h1>Static site generators</h1><p>A curated list of static site generators, grouped by the language they "
        f"are written in. Each entry says what it does best.</p>{sections}</main></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "gaps"
    content = found.content
    order = [content.index(text) for text in ("## Go", "Hugo", "## Python", "Pelican", "MkDocs", "## Ruby", "Jekyll")]
    assert order == sorted(order), content


def test_a_page_the_pass_read_almost_whole_is_not_searched_for_gaps() -> None:
    """What goes back is shown text the pass left out: under `GAP_GAIN` of the kept words besides them, no search."""
    kept = "## Heading\n\n" + "word " * 100  # 101 words (the markdown mark is no word)
    assert not gaps_may_add(kept, 102, 110)
    assert gaps_may_add(kept, 102, 120)
