"""Extraction by content type and charset, without a network."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from weblens.errors import UnsupportedContentError
from weblens.fetch import orphan_formatting
from weblens.fetch.decode import decode_body
from weblens.fetch.extract import extract
from weblens.fetch.html import extract_html, without_title
from weblens.fetch.sections import named_box_words, reads_boxes
from weblens.testing.pages import article_html, make_pdf


def _story_text(title: str, filler: str, middle: str) -> str:
    """The markdown of an article: a title, `middle` between two paragraphs of `filler` (enough prose for the
    main-content pass to take the page for an article)."""
    page = f"<html><body><article><h1>{title}</h1><p>{filler}</p>{middle}<p>{filler}</p></article></body></html>"
    return extract(page.encode(), "text/html").content


def test_meta_charset_wins_when_the_header_has_none() -> None:
    html = "<html><head><meta charset='windows-1251'></head><body>Привет</body></html>"
    text, codec = decode_body(html.encode("cp1251"), "text/html", html=True)
    assert "Привет" in text and codec == "cp1251"


def test_a_wrong_header_charset_falls_back() -> None:
    text, _ = decode_body("naïve café".encode(), "text/plain; charset=ascii")
    assert text == "naïve café".encode().decode("cp1252")  # ascii is read as windows-1252, like browsers


def test_a_meta_tag_naming_utf16_is_read_as_utf8_like_browsers_do() -> None:
    html = "<html><head><meta charset='utf-16'><title>Menu</title></head><body><p>Soup of the day.</p></body></html>"
    body = html.encode() + b" " * (len(html) % 2)  # an even length of ASCII decodes as UTF-16 too: as gibberish
    text, codec = decode_body(body, "text/html", html=True)
    assert "Soup of the day." in text and codec == "utf-8"


def test_undeclared_western_text_reads_as_windows_1252() -> None:
    rows = "Name;Stadt;Betrag\n" + "".join(
        f"{name};{city};{i},15 €;Lieferung für Straße Nr. {i}\n"
        for i, (name, city) in enumerate([("Bäcker", "Köln"), ("Señor", "Genève"), ("Françoise", "Düsseldorf")] * 20)
    )
    text, codec = decode_body(rows.encode("cp1252"), "text/csv")
    assert text == rows and codec == "cp1252"  # the detector's first pick among equals was Windows-1250: `Seńor`
    polish = "Zażółć gęślą jaźń. Łódź, Kraków, Gdańsk i Wrocław leżą w różnych częściach kraju. " * 5
    assert decode_body(polish.encode("cp1250"), "text/plain") == (polish, "cp1250")


@pytest.mark.parametrize(
    "text",
    ["Price,Item\n€5,Crème brûlée\n€7,Smörgåsbord\n", "nombre,precio\nSeñor García,€12\nNiño pequeño,€3\n"],
)
def test_short_undeclared_western_text_reads_as_windows_1252_not_a_dos_code_page(text: str) -> None:
    assert decode_body(text.encode("cp1252"), "text/csv") == (text, "cp1252")  # was cp775, cp857: `Se±or Garcÿa`


def test_utf16_without_a_bom_reads_as_utf16() -> None:
    text = "Name,City\nAnn,Oslo\n"  # valid UTF-8 too, a NUL after each letter: was read so
    assert decode_body(text.encode("utf-16-le"), "text/csv") == (text, "utf-16-le")
    assert decode_body(text.encode("utf-16-be"), "text/plain") == (text, "utf-16-be")


def test_a_bom_wins() -> None:
    text, _ = decode_body("hello".encode("utf-16"), "text/plain; charset=latin-1")
    assert text == "hello"


def test_markdown_has_no_escaped_underscores_or_underline_tags() -> None:
    paragraphs = [f"Director_Oh spoke about <a href='/x'>the plan_{i}</a> at length, again and again." * 3
                  for i in range(6)]  # fmt: skip
    found = extract_html(article_html(paragraphs=paragraphs))
    assert "Director_Oh" in found.content and "\\_" not in found.content and "<u>" not in found.content


def test_a_backslash_before_an_underscore_in_code_is_the_page_s_own() -> None:
    words = "The build writes its report next to the sources, one file for each run of the suite. " * 3
    content = _story_text(
        "Reports",
        words,
        "<p>In LaTeX write <code>my\\_report</code> for my_report, as in:</p>"
        "<pre><code>\\input{my\\_report\\_final.tex}</code></pre>",
    )
    assert "`my\\_report` for my_report" in content  # trafilatura's own escape of prose `_` undone, not the code's
    assert "\\input{my\\_report\\_final.tex}" in content


def test_a_footnote_mark_stays_apart_from_the_number_before_it() -> None:
    note = "<sup id='fnref:{0}'><a href='#fn:{0}' class='footnote-ref' role='doc-noteref'>{0}</a></sup>"
    words = "Every winter my starter sulks, and dough that doubled in four hours takes nine in January. " * 3
    content = _story_text(
        "Sourdough",
        words,
        f"<p>The bakery was founded in 1998{note.format(1)} "
        f"and a bag of flour now costs $12{note.format(2)} here, for the 95<sup>th</sup> loaf of 10<sup>6</sup>.</p>",
    )
    assert "founded in 1998[1]" in content and "$12[2] here" in content  # was `19981`, `$122`, then `1998\\[1\\]`
    assert "the 95th loaf" in content  # a superscript that is no note's mark still reads onto its word
    assert "loaf of 10^6." in content  # an exponent: was `106`


def test_an_exponent_keeps_its_value() -> None:
    words = "The survey team logs each quake it measures, and the log is read out at the start of each shift. " * 3
    content = _story_text(
        "Scales",
        words,
        "<p>Each step on the scale is logarithmic (10<sup>0.1</sup> = 1.26), the energy is E = mv<sup>2</sup>/2, "
        "the signal fades as e<sup>-kt</sup> over a field of 12 km<sup>2</sup>, as reported<sup>2</sup> by the "
        "crew of the 3<sup>rd</sup> survey, an [sic] error and all.</p>",
    )
    assert "(10^0.1 = 1.26)" in content  # was `100.1`: another value
    assert "E = mv^2/2" in content and "fades as e^-kt over a field of 12 km^2," in content
    assert "as reported2 by the crew of the 3rd survey" in content  # a note's mark after a word, an ordinal: as shown
    assert "an [sic] error" in content  # trafilatura's escape of the brackets undone


def test_a_screen_readers_label_stays_a_word_of_its_own() -> None:
    words = "Tick every box that applies to you, and say which benefits you already get before you apply. " * 3
    content = _story_text(
        "Apply for a badge",
        words,
        '<div class="govuk-warning-text"><span class="govuk-warning-text__icon" aria-hidden="true">!</span>'
        '<strong class="govuk-warning-text__text"><span class="govuk-visually-hidden">Warning</span>You can be fined '
        "up to £1,000 if you give false information.</strong></div>"
        '<p>Rated <span class="sr-only">4 out of 5</span><span aria-hidden="true">★★★★</span>by 212 applicants.</p>',
    )
    assert "Warning You can be fined up to £1,000" in content  # was `WarningYou`
    assert "Rated 4 out of 5 by 212 applicants." in content  # the stars an icon (hidden from screen readers)


def test_superscripts_and_subscripts_read_as_the_page_shows_them() -> None:
    words = "The lab logs every sample it draws from the harbour, and the log is read aloud each morning. " * 3
    content = _story_text(
        "Sampling",
        words,
        "<p>Each litre of H<sub>2</sub>O drawn past the 95<sup>th</sup> buoy is weighed twice, as the port rules "
        "require<sup>[1]</sup>, and the area is 40 m<sup>2</sup> in all, measured by the crew every spring.</p>"
        "<p>Write <code>x&lt;sup&gt;2&lt;/sup&gt;</code> in the log when a figure is squared, never a caret.</p>"
        "<pre><code>area = 40 &lt;sup&gt;m2&lt;/sup&gt;\nlog(area)</code></pre>",
    )
    assert "Each litre of H2O drawn past the 95th buoy" in content
    assert "as the port rules require[1], and the area is 40 m^2 in all" in content
    assert "`x<sup>2</sup>`" in content  # the page's own code, in a code span
    assert "area = 40 <sup>m2</sup>\nlog(area)" in content  # and in a code block
    assert content.count("<sup>") == 2 and "<sub>" not in content


def test_a_line_break_that_ends_bold_text_keeps_the_next_line_apart() -> None:
    words = "The plate guide splits a meal into four parts, each sized by what the body needs most. " * 3
    content = _story_text(
        "The plate",
        words,
        "<p><b>Vegetables – half of your plate.<br></b>Aim for colour and variety at every meal.</p>"
        "<p><em>Whole grains – a quarter.<br></em>Oats and brown rice over white bread.</p>"
        "<p><strong>Lines<br>of one bold block<br></strong> stay readable.</p>",
    )
    assert "**Vegetables – half of your plate.**\n\nAim for colour" in content  # was `plate.**Aim`
    assert "*Whole grains – a quarter.*\n\nOats" in content
    assert "Lines" in content and "stay readable" in content


def test_bold_and_italic_in_a_div_keep_their_spaces_and_their_sentence() -> None:
    words = "The guide walks through each setting of the service, one section at a time. " * 3
    notes = (
        "<div class='note'><strong>Warning</strong> If you skip this step the service will not start.</div>"
        "<div class='note'><b>Note: </b>the value <i>must</i> be set before the service starts.</div>"
    )
    content = _story_text("Settings", words, notes)
    assert "**Warning** If you skip this step" in content  # was `**Warning**If`
    assert "**Note:** the value *must* be set before the service starts." in content  # was three paragraphs
    with orphan_formatting.stock():  # trafilatura's own, for the record of what was wrong
        stock = _story_text("Settings", words, notes)
    assert "**Warning**If" in stock and "*must*be set" in stock


def test_a_declarative_shadow_root_is_read_as_the_browser_shows_it() -> None:
    words = "A server can send a component's shadow tree as plain HTML, so the page reads before any script runs. "
    page = (
        "<html><head><title>Shadow DOM</title></head><body><article-card><template shadowrootmode='open'>"
        f"<h1>Shadow DOM in practice</h1><p>{words * 3}</p>"
        "</template></article-card><template><p>An inert template the browser never shows.</p></template></body></html>"
    )
    out = extract(page.encode(), "text/html")
    assert "so the page reads before any script runs" in out.content  # was empty: "a JavaScript application"
    assert "never shows" not in out.content


def test_a_heading_in_a_summary_is_marked_once() -> None:
    words = "Most students from outside the country need a visa to study here; this page says when to apply. " * 3
    sections = "".join(
        f"<details open><summary><h2>{title}</h2></summary><p>{words}</p></details>" for title in ("Who", "When")
    )
    content = extract(f"<html><body><article><h1>Visas</h1>{sections}</article></body></html>".encode(), "text/html")
    assert "## Who\n\nMost students" in content.content and "## ##" not in content.content  # was `## ## Who`


def test_unknown_types_are_sniffed() -> None:
    assert extract(make_pdf(["sniffed"]), "application/octet-stream").extractor == "pypdf"
    assert extract(b'{"a": 1}', "").extractor == "json"
    with pytest.raises(UnsupportedContentError, match="application/octet-stream"):
        extract(b"\x00\x01\x02binary", "")


def test_invalid_json_is_shown_as_sent() -> None:
    out = extract(b"{not json", "application/json")
    assert out.content == "{not json" and out.note


def test_xml_is_text() -> None:
    """XML that is no feed is shown as sent (feeds: tests/fetch/test_feeds.py)."""
    assert extract(b"<ships><ship>x</ship></ships>", "application/xml").content.startswith("<ships>")


def test_the_pages_own_angle_bracket_text_survives_link_cleanup() -> None:
    page = (
        "<html><body><article><h1>HTML tags</h1><p>Use the &lt;u&gt; element sparingly: readers take underlined "
        "words for links, and the &lt;u&gt; element means little of its own in modern documents.</p>"
        "<p>Prefer emphasis, or a span with a class; the user_agent stylesheet draws the line.</p>"
        "</article></body></html>"
    )
    content = extract(page.encode(), "text/html").content
    assert "Use the \\<u> element sparingly" in content and "user_agent stylesheet" in content


def test_markup_inside_a_code_block_is_kept() -> None:
    words = "The development server prints the file it serves, underlined in the terminal. " * 3
    content = _story_text(
        "Running", words, "<pre><code>$ serve dev &lt;u&gt;main.py&lt;/u&gt;\nready on port 8000</code></pre>"
    )
    assert "```\n$ serve dev <u>main.py</u>\nready on port 8000\n```" in content


def test_a_one_line_code_block_stays_a_block_and_the_table_after_it_a_table() -> None:
    from markdown_it import MarkdownIt  # rich's markdown parser: the blocks a reader of the markdown sees

    words = "Install the package before you start, then check the settings it reads at start-up. " * 3
    page = (
        f"<html><body><article><h1>Install</h1><p>{words}</p>"
        "<pre><code>pip install weblens</code></pre>"
        "<table><tr><th>Setting</th><th>Default</th></tr><tr><td>port</td><td>8765</td></tr></table>"
        f"<p>{words}</p><pre><code>weblens serve\nweblens chat</code></pre><p>{words}</p></article></body></html>"
    )
    content = extract(page.encode(), "text/html").content

    assert "```\npip install weblens\n```\n\n| Setting | Default |" in content, content
    assert "weblens chat\n```\n\nInstall the package" in content, content
    blocks = [t.type for t in MarkdownIt("commonmark").enable("table").parse(content) if t.level == 0]
    assert [b for b in blocks if b in ("fence", "table_open", "paragraph_open", "heading_open")] == [
        "heading_open",
        "paragraph_open",
        "fence",
        "table_open",
        "paragraph_open",
        "fence",
        "paragraph_open",
    ]


def test_a_second_opinion_that_reads_the_cookie_box_is_not_the_page() -> None:
    """The fast pass keeps a short post; trafilatura's full cascade, asked because that is little of the page,
    reads the site's cookie preference centre instead: the post is what comes back."""
    post = (
        "I bought the Harwick kettle last spring and the lid hinge cracked after four months of daily use. Has "
        "anyone else had this happen, and did the maker replace it under warranty without a receipt? I wrote to "
        "their support address twice and heard nothing back, so I am asking here before I give up. The shop where "
        "I bought it has since closed, which makes the receipt question harder. If you had the same crack, tell me "
        "how long it took them to answer and whether they sent a whole kettle or only a lid."
    )
    cookie = (
        "<p>When you visit any website, it may store or retrieve information on your browser, mostly in the form "
        "of cookies. This information might be about you, your preferences or your device and is mostly used to "
        "make the site work as you expect it to. These cookies help us count visits and traffic sources so we can "
        "measure and improve the performance of our site, and know which pages are the most popular.</p>"
    ) * 6
    links = "".join(
        f"<li><a href='/t/{i}'>Other thread number {i} about kettles and toasters</a></li>" for i in range(30)
    )
    html = (
        "<!DOCTYPE html><html><head><title>Kettle lid hinge cracked</title>"
        "<meta property='og:type' content='article'></head><body>"
        f"<div class='topic-list'><ul>{links}</ul></div><article class='post-content'><p>{post}</p></article>"
        "<div id='onetrust-consent-sdk'><div id='onetrust-pc-sdk' class='otPcCenter ot-hide' role='region'>"
        f"<div role='dialog'><div class='ot-pc-content'><h2>Privacy Preference Center</h2>{cookie}</div></div></div>"
        "</div></body></html>"
    )
    found = extract(html.encode(), "text/html; charset=utf-8")
    assert found.content.startswith("I bought the Harwick kettle")
    assert "whole kettle or only a lid" in found.content
    assert "cookies" not in found.content and "Privacy Preference Center" not in found.content


def test_text_is_read_from_named_boxes_only_when_most_of_it_is_theirs() -> None:
    tree = lxml_html.fromstring(
        "<html><body><div class='story-modal'><p>The river rose four metres overnight and closed the old bridge."
        "</p></div><p>Residents on the east bank were moved to the school hall before dawn.</p></body></html>"
    )
    boxes = named_box_words(tree)
    assert reads_boxes("The river rose four metres overnight and closed the old bridge.", boxes)
    assert not reads_boxes("Residents on the east bank were moved to the school hall before dawn.", boxes)
    both = "The river rose four metres overnight. Residents on the east bank were moved to the school hall before dawn."
    assert not reads_boxes(both, boxes)
    assert not reads_boxes("", boxes)


def test_the_text_does_not_open_with_a_heading_that_repeats_the_title() -> None:
    assert without_title("# Storm log\n\nThe keeper wrote.", "Storm log | Skerryvore") == "The keeper wrote."
    assert without_title("\n## Storm log!\n\nThe keeper wrote.", "storm log") == "The keeper wrote."
    # another heading, a heading with nothing after it, a word of the title cut short, a title that is no heading
    for content, title in [("# Weather\n\nThe keeper wrote.", "Storm log"), ("# Storm log", "Storm log"),
                           ("# Storm\n\nText.", "Storms at sea"), ("Storm log\n\nText.", "Storm log"),
                           ("# Storm log\n\nText.", "")]:  # fmt: skip
        assert without_title(content, title) == content
    found = extract(article_html("The Skerryvore Ledger").encode(), "text/html")
    assert found.title == "The Skerryvore Ledger" and found.content.startswith("Paragraph 0: the lighthouse keeper")


def test_a_table_cell_that_names_a_share_button_keeps_its_word() -> None:
    words = "We tested nine e-readers over three months and compared the formats and support they offer. " * 3
    rows = (("EPUB", "Converted", "Native"), ("PDF", "Basic", "Basic"), ("Print", "No", "No"),
            ("Support", "Email", "Chat"), ("Sharing", "Facebook", "None"))  # fmt: skip
    table = "<table><tr><th>Feature</th><th>Kindle</th><th>Kobo</th></tr>" + "".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    content = _story_text("Compare e-readers", words, table + "</table>")
    for row in rows:  # trafilatura blanked `PDF`, `Print`, `Email` and `Facebook` as share buttons' labels
        assert "| " + " | ".join(row) + " |" in content


def test_a_date_in_a_time_element_is_read() -> None:
    words = "Join us for a morning of talks about the history of the harbour and its boats, with tea after. " * 3
    content = _story_text(
        "Harbour talks",
        words,
        "<h2>Date and time</h2><p><time datetime='2024-10-12T10:00'>Sat 12 Oct, 10:00</time> – "
        "<time datetime='2024-10-12T14:00'>14:00</time>, in the lifeboat station.</p>",
    )
    assert "## Date and time\n\nSat 12 Oct, 10:00 – 14:00, in the lifeboat station." in content  # was `– , in the`


def test_a_term_and_its_definition_read_as_one_line() -> None:
    words = "These are the words your instructor will use on your first day out on the water in the bay. " * 3
    content = _story_text(
        "Sailing terms",
        words,
        "<dl><dt>Abeam</dt><dd>At right angles to the length of the boat.</dd><dt>Aft</dt>"
        "<dd>Towards the <b>back</b> of the boat.</dd><dt>Boom</dt><dd><p>The spar under the mainsail.</p>"
        "<p>Mind your head when it swings.</p></dd><dt>Reach</dt><dd>A point of sail across the wind.</dd>"
        "<dd>To sail on that point.</dd></dl>",
    )
    assert "- Abeam: At right angles to the length of the boat.\n- Aft: Towards the **back** of the boat." in content
    assert "- Boom\n" in content and "The spar under the mainsail." in content  # paragraphs stay their own
    assert "- Reach\n- A point of sail across the wind.\n- To sail on that point." in content  # and several senses
