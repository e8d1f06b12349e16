"""The structure a reader sees in extracted markdown: headings, lists and tables stay what they were."""

from __future__ import annotations

from markdown_it import MarkdownIt

from weblens.fetch.extract import extract

_PROSE = (
    "<p>Every buoy here spent a winter on our own moorings, and the crews who used them scored how well they rode "
    "the swell and how easily the shackles came apart when the time came to lift them.</p>"
)

# A shop's grid of 60 buoys with their prices.
_PRICED_CARDS = "".join(
    f"<div class='card'><a href='/m/{i}'><span>Mooring buoy {i}</span><span>£{i}0.00</span></a></div>"
    for i in range(1, 61)
)


def _blocks(markdown: str) -> list[str]:
    """The top-level blocks a markdown renderer (rich's parser) makes of the text."""
    return [t.type for t in MarkdownIt("commonmark").enable("table").parse(markdown) if t.nesting == 1 and t.level == 0]


def test_a_listing_read_as_page_text_keeps_its_headings_lists_and_tables() -> None:
    rows = "".join(f"<tr><td>Size {i}</td><td>{i * 20} kg</td></tr>" for i in range(1, 5))
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body>"
        "<nav><a href='/'>Home</a> <a href='/rope'>Rope</a></nav><main><h1>Mooring buoys</h1>"
        f"<div class='grid'>{_PRICED_CARDS}</div><pre>shackle = 3 turns\npin  = moused</pre>"
        f"<h2>Sizes</h2><table>{rows}</table>"
        "<h2>Before you buy</h2><ul><li>Check the chain weight</li><li>Ask the harbour master</li></ul>"
        f"<section><h2>How we test</h2>{_PROSE * 2}</section>"
        "</main><footer>Harbour Office</footer></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"  # the grid is the page: the main-content pass kept only the prose
    content = found.content
    assert content.startswith("# Mooring buoys\n\nMooring buoy 1 £10.00\n\nMooring buoy 2 £20.00\n")
    assert "## Sizes\n\n| Size 1 | 20 kg |\n|---|---|\n| Size 2 | 40 kg |" in content
    assert "## Before you buy\n\n- Check the chain weight\n- Ask the harbour master\n\n## How we test" in content
    assert "```\nshackle = 3 turns\npin  = moused\n```" in content
    assert "Home" not in content and "Harbour Office" not in content
    blocks = _blocks(content)
    assert blocks.count("heading_open") == 4 and "table_open" in blocks and "bullet_list_open" in blocks
    assert "fence" in [t.type for t in MarkdownIt("commonmark").parse(content)]


def test_a_layout_table_in_page_text_is_read_as_its_blocks() -> None:
    cards = "".join(f"<div><a href='/m/{i}'><span>Chain length {i} m</span></a></div>" for i in range(1, 61))
    page = (
        "<html><head><title>Mooring supplies</title><meta property='og:type' content='website'></head><body><table><tr>"
        f"<td><h1>Chain</h1>{cards}</td><td><section><h2>How we test</h2>{_PROSE * 2}</section></td>"
        "</tr></table></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert found.content.startswith("# Chain\n\nChain length 1 m\n\nChain length 2 m\n")
    assert "|" not in found.content


def test_page_text_is_the_main_region_when_the_page_marks_one() -> None:
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body>"
        "<div class='promo'>Free delivery on orders over £50 this week only</div>"
        f"<main><h1>Mooring buoys</h1><div class='grid'>{_PRICED_CARDS}</div>"
        f"<section><h2>How we test</h2>{_PROSE}</section>"
        "</main><div class='signup'><h3>Join our newsletter</h3><p>News from the quay every month</p></div>"
        "</body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert found.content.startswith("# Mooring buoys\n\nMooring buoy 1 £10.00\n")
    assert found.content.endswith("## How we test\n\n" + _PROSE[3:-4])
    assert "Free delivery" not in found.content and "newsletter" not in found.content


def _buoy_shop(*, before: str = "", between: str = "", after: str = "") -> str:
    """A shop page that declares no article: a grid of 60 buoys trafilatura cuts short (so the page text stands),
    then how the buoys are tested; `before`, `between` and `after` the grid and that section."""
    cards = "".join(f"<div class='card'><a href='/m/{i}'><span>Mooring buoy {i}</span></a></div>" for i in range(1, 61))
    return (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body>"
        f"{before}<h1>Mooring buoys</h1><div class='grid'>{cards}</div>{between}"
        f"<section><h2>How we test</h2>{_PROSE * 2}</section>{after}</body></html>"
    )


def test_page_text_leaves_out_regions_and_controls_marked_by_aria_role_as_by_tag() -> None:
    page = _buoy_shop(
        before="<div role='banner'><span>Quayside Chandlery</span></div>"
        "<div role='navigation'><a href='/rope'>Rope and line</a> <a href='/chain'>Chain by the metre</a></div>"
        "<div role='search'><span>Search the shop</span></div><details><summary>Sort by</summary><div>"
        "<a role='menuitemradio' href='?sort=price'>Lowest price first</a></div></details>",
        after="<div role='complementary'><p>Tide tables for the week ahead</p></div>"
        "<div role='contentinfo'><p>Harbour Office, Quay Street</p></div>",
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert found.content.startswith("Sort by\n\n# Mooring buoys\n\nMooring buoy 1\n\nMooring buoy 2")  # a summary shows
    for gone in ("Quayside", "Rope and line", "Search the shop", "Lowest price", "Tide tables", "Harbour Office"):
        assert gone not in found.content


def test_page_text_leaves_out_what_a_player_shows_only_to_a_browser_without_one() -> None:
    # fallback text inside <video> and <audio> shows only where the browser cannot play them: nowhere today
    fallback = "<p>Your browser does not support the video tag.</p>"
    page = _buoy_shop(
        before=f"<video src='/buoys.mp4'>{fallback}</video><audio src='/bell.mp3'>No audio for you.</audio>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text" and "Mooring buoy 1" in found.content
    assert "does not support" not in found.content and "No audio" not in found.content


def test_page_text_leaves_out_a_pop_up_form_but_keeps_a_pop_up_without_one() -> None:
    sign_up = (
        "<div role='dialog' class='popup'><h2>Join the Chandlery Club</h2><form action='/join'>"
        "<p>Members hear first about end-of-season sales and the yard's open days, and get a tide almanac free "
        "with their first order over forty pounds.</p><label>Email</label><input name='email'>"
        "<button>Join</button></form></div>"
    )
    sheet = "<div role='dialog' class='sheet'><h3>Buoy sizes</h3><p>Sizes run from 300 to 900 mm across.</p></div>"
    page = _buoy_shop(between=sign_up + sheet)
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert "Chandlery Club" not in found.content and "tide almanac" not in found.content
    assert "### Buoy sizes\n\nSizes run from 300 to 900 mm across." in found.content
    assert "Mooring buoy 60" in found.content and "How we test" in found.content


def test_page_text_reads_punctuation_onto_its_word_and_keeps_words_apart() -> None:
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body><main>"
        f"<h1>Mooring buoys</h1><div class='grid'>{_PRICED_CARDS}</div>"
        "<p><b>Note</b>: tested by <a href='/crew'>our crew</a>"
        f", twice a year (<a href='/log'>see the log</a>).</p><section><h2>How we test</h2>{_PROSE * 2}</section>"
        "</main></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert "Mooring buoy 1 £10.00" in found.content  # two spans: two words, never one
    assert "Note: tested by our crew, twice a year (see the log)." in found.content


def test_page_text_keeps_a_word_whole_across_its_formatting_and_code_lines_apart() -> None:
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body><main>"
        f"<h1>Mooring buoys</h1><div class='grid'>{_PRICED_CARDS}</div>"
        "<p>Rated for H<sub>2</sub>O at 4<sup>o</sup>C, our 95<sup>th</sup> <b>W</b>inter buoy.</p>"
        "<p><i class='badge'>New</i>Harbour kit</p>"
        "<p>Call <code>Buoy.lift()</code>'s check (<code>safe</code>) first.</p>"
        "<table><tr><th>Gas</th><th>Share</th></tr><tr><td>CO<sub>2</sub></td><td>4 m<sup>2</sup></td></tr></table>"
        "<pre>$ tar xf buoy.tgz<br>$ ./install.sh</pre><pre>fence with ``` inside</pre>"
        f"<section><h2>How we test</h2>{_PROSE * 2}</section></main></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert "Rated for H2O at 4oC, our 95th Winter buoy." in found.content  # was `H 2 O`, `95 th`, `W inter`
    assert "New Harbour kit" in found.content  # a styled badge stays a word of its own
    assert "Call `Buoy.lift()`'s check (`safe`) first." in found.content  # inline code marked, read onto its word
    assert "| CO2 | 4 m^2 |" in found.content  # a square metre: an exponent after a unit
    assert "```\n$ tar xf buoy.tgz\n$ ./install.sh\n```" in found.content  # was one line
    assert "````\nfence with ``` inside\n````" in found.content  # a longer fence than the code's backticks


def test_page_text_numbers_ordered_lists_and_nests_lists_under_their_item() -> None:
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body><main>"
        f"<h1>Mooring buoys</h1><div class='grid'>{_PRICED_CARDS}</div><h2>Laying a buoy</h2>"
        "<ol start='2'><li>Check the chain<ul><li>every link</li><li>every shackle pin</li></ul></li>"
        "<li>Lower the sinker</li></ol>"
        f"<section><h2>How we test</h2>{_PROSE * 2}</section></main></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert "2. Check the chain\n   - every link\n   - every shackle pin\n3. Lower the sinker" in found.content
    assert "ordered_list_open" in _blocks(found.content)  # a markdown renderer reads it as a numbered list


def test_page_text_leaves_out_a_cookie_dialog_but_keeps_a_section_about_cookies() -> None:
    page = (
        "<html><head><title>Buoys</title><meta property='og:type' content='website'></head><body><main>"
        f"<h1>Mooring buoys</h1><div class='grid'>{_PRICED_CARDS}</div>"
        f"<section><h2>How we test</h2>{_PROSE * 2}</section><section id='cookies'><h2>Cookies</h2>"
        "<p>The harbour office bakes cookies for every crew on launch day.</p></section>"
        "<div class='cookie-consent' role='dialog'><p>By clicking Accept all cookies you agree that we store "
        "cookies on your device.</p><button>Accept all cookies</button><button>Necessary only</button></div>"
        "</main></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "page-text"
    assert "bakes cookies for every crew" in found.content and "you agree that we store" not in found.content


def test_a_table_without_header_cells_still_comes_back_as_a_markdown_table() -> None:
    # documentation often lists options in a table of plain cells; trafilatura writes its rows without `|---|`
    rows = "".join(f"<tr><td><code>opt_{i}</code></td><td>What option {i} changes.</td></tr>" for i in range(5))
    page = (
        "<html><body><article><h1>Options</h1><p>The client reads these options from its settings file when it "
        f"starts.</p><table>{rows}</table><p>Each is read again when the client reloads.</p></article></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "trafilatura"
    assert "| `opt_0` | What option 0 changes. |\n|---|---|\n| `opt_1` |" in found.content
    assert _blocks(found.content) == ["heading_open", "paragraph_open", "table_open", "paragraph_open"]


def _post(author: str, body: str) -> str:
    return (
        "<article itemscope itemtype='https://schema.org/Comment'>"
        f"<div itemprop='author' itemscope itemtype='https://schema.org/Person'><span itemprop='name'>{author}</span>"
        f"</div><div itemprop='text'>{body}</div></article>"
    )


def test_a_reply_quoting_a_whole_earlier_post_shows_only_its_own_words() -> None:
    first = (
        "Soak the new wick in paraffin for a full hour before the first lighting, then trim it to a gentle dome "
        "and keep the flame low until the chimney glass is warm all over."
    )
    manual = (
        "Wicks of pure cotton should be stored dry and away from sunlight, for a damp wick draws fuel unevenly "
        "and burns with a ragged, smoking flame."
    )
    page = (
        "<html><head><title>New wick smokes</title></head><body><h1>New wick smokes</h1>"
        "<div itemscope itemtype='https://schema.org/DiscussionForumPosting'>"
        + _post("old_tom", f"<p>{first}</p>")
        + _post("grace_h", f"<blockquote><p>old_tom said:</p><p>{first}</p></blockquote><p>That worked for me.</p>")
        + _post("ada_keeper", "<blockquote><p>keep the flame low</p></blockquote><p>How low is low?</p>")
        + _post("old_tom", f"<blockquote><p>{manual}</p></blockquote><p>So says the maker's manual.</p>")
        + "</div></body></html>"
    )
    content = extract(page.encode(), "text/html").content

    assert content.count("Soak the new wick") == 1  # the quote of old_tom's post is not repeated
    assert "**grace_h**\n\nThat worked for me." in content
    assert "> keep the flame low\n\nHow low is low?" in content  # a short quote says what the reply answers
    assert f"> {manual}\n\nSo says the maker's manual." in content  # a quote of new text stays


def test_inline_code_holding_emphasis_keeps_the_paragraph_after_it() -> None:
    """A directive's placeholder in italics inside code (`<code><i>size</i></code>`, as nginx's reference writes it):
    trafilatura's markdown wrote `*size*` and lost the rest of the paragraph."""
    tags = ("i", "b", "em", "var")
    paragraphs = "".join(
        f"<p>The lake was measured every morning in the year {2000 + i}. Setting <code><{tag}>size</{tag}></code> "
        f"to {i} limits the body of a request. The figures for {2000 + i} are kept in the archive.</p>"
        for i, tag in enumerate(tags)
    )
    page = (
        "<html><head><title>Directive reference</title><meta property='og:type' content='article'></head><body>"
        f"<main><article><h1>Directive reference</h1>{paragraphs}</article></main></body></html>"
    )
    content = extract(page.encode(), "text/html; charset=utf-8").content
    for i in range(len(tags)):
        assert f"Setting `size` to {i} limits the body of a request. The figures for {2000 + i} are kept" in content
