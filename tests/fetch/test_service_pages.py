"""Pages that are not articles (a service page, documentation): the reader gets what an article extractor drops."""

from __future__ import annotations

import weblens
from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch.extract import extract
from weblens.testing import Reply
from weblens.testing.pages import PageServer

_STORY = (
    "<p>Every job starts with a walk round the boat on her mooring or in the yard, looking at the chainplates, the "
    "spreaders and the way the mast sits in its step, so that the quote we write covers the work she needs.</p>"
    "<p>The loft keeps wire, rope and fittings for most production yachts in stock, and anything else comes from "
    "makers we have bought from for twenty years, which is why most refits are done inside the week we promise.</p>"
    "<p>We started rigging boats in a single shed on the harbour wall in 1998, with one van, two riggers and a "
    "loft for splicing rope. Since then the yard has grown to twelve riggers who look after cruising yachts, "
    "classic wooden boats and working vessels all along the coast, in every season and in every weather.</p>"
)
_SERVICES = (
    ("Standing rigging", "Shrouds and stays measured, swaged and fitted in a day, every terminal checked under load."),
    ("Running rigging", "Halyards and sheets spliced to length in the loft, in the rope your boat already uses."),
    ("Mast surveys", "A climb from the deck to the masthead, with a written report and photographs of each fitting."),
)
_FAQ = (
    ("How long does a re-rig take?", "Most yachts under twelve metres are re-rigged within a week of unstepping."),
    ("Do you work on classic boats?", "Yes: galvanised wire, bronze fittings and served splices, all in our own loft."),
)
_NEWSLETTER = "Sign up to our newsletter for tide tables, offers on rope and news from the yard, sent once a month."


def _page(head: str = "", og_type: str = "website", body_class: str = "") -> bytes:
    cards = "".join(
        f"<div class='card'><h3>{name}</h3><p>{text}</p><a href='/{i}'>Read more</a></div>"
        for i, (name, text) in enumerate(_SERVICES)
    )
    faq = "".join(f"<div class='faq'><h3>{q}</h3><div class='answer'><p>{a}</p></div></div>" for q, a in _FAQ)
    return (
        f"<html><head><title>Yacht rigging services</title><meta property='og:type' content='{og_type}'>"
        f"{head}</head><body class='{body_class}'>"
        "<header><nav><a href='/'>Home</a> <a href='/services'>Services</a> <a href='/contact'>Contact</a></nav>"
        "</header>"
        "<main><section class='hero'><h1>Yacht rigging services</h1>"
        "<p>Rigging for cruising and racing yachts, from a single halyard to a full re-rig.</p>"
        "<a href='/quote'>Get a quote</a></section>"
        f"<section class='services'><h2>What we do</h2>{cards}</section>"
        f"<section class='story'><h2>Our story</h2>{_STORY}</section>"
        f"<div class='newsletter-signup'><p>{_NEWSLETTER}</p><button>Sign up</button></div>"
        f"<section class='faq-list'><h2>Questions</h2>{faq}</section>"
        "</main><footer><p>Harbour Rigging Ltd, 4 Quay Street</p></footer></body></html>"
    ).encode()


def test_a_service_page_keeps_every_section_in_page_order() -> None:
    # trafilatura keeps only "Our story" (its longest block): the services and the questions are the page too
    found = extract(_page(), "text/html")

    content = found.content
    assert found.extractor == "sections"
    assert found.title == "Yacht rigging services" and not content.startswith("# Yacht")  # the title, not repeated
    order = ["## What we do", "### Standing rigging", _SERVICES[2][1], "## Our story",
             "We started rigging boats", "## Questions", "### Do you work on classic boats?", _FAQ[1][1]]  # fmt: skip
    positions = [content.index(text) for text in order]
    assert positions == sorted(positions)
    assert content.count("We started rigging boats") == 1
    # buttons and links between the sections, a newsletter box and the site's navigation stay out
    for left_out in ("Read more", "Get a quote", "newsletter", "Sign up", "Home", "Contact", "Quay Street"):
        assert left_out not in content


def test_a_newsletter_box_written_without_a_break_between_its_heading_and_text_stays_out() -> None:
    # minified: `text_content` read `...by emaili write about...`, so the box's words matched nothing
    box = (
        "<div class='newsletter-signup'><h3>Get new posts by email</h3><p>I write about rigging and repairs about "
        "once a month. No spam, unsubscribe at any time.</p><form action='/subscribe'><input type='email'></form></div>"
    )
    found = extract(_page().replace(b"<section class='faq-list'>", box.encode() + b"<section class='faq-list'>"),
                    "text/html")  # fmt: skip

    assert found.extractor == "sections"
    assert "I write about rigging" not in found.content and "## Questions" in found.content


def test_a_page_that_declares_an_article_keeps_the_main_content_pass() -> None:
    article = "<script type='application/ld+json'>{\"@type\": \"Article\", \"headline\": \"Rigging\"}</script>"
    # JSON-LD is the site's own word for this page: it stands wherever the address files the page
    for url in ("", "https://rigging.example/services/yacht-rigging"):
        found = extract(_page(article), "text/html", url)

        assert found.extractor == "trafilatura"
        assert "We started rigging boats" in found.content
        assert "### Standing rigging" not in found.content and _FAQ[0][1] not in found.content


async def test_a_site_wide_og_article_gives_way_to_an_address_under_services(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    # WordPress' SEO plugins put og:type=article on every page of a site; the address says what this one is
    for path in ("/services/yacht-rigging/", "/blog/yacht-rigging/", "/services/blog/rigging"):
        pages.route("GET", path, Reply(body=_page(og_type="article"), content_type="text/html; charset=utf-8"))
    fetched = await weblens.fetch(pages.url("/services/yacht-rigging/"), settings=settings, cache=cache)

    assert fetched.extractor == "sections"
    for kept in ("## What we do", "### Standing rigging", _SERVICES[2][1], "We started rigging boats", _FAQ[1][1]):
        assert kept in fetched.content
    # an address that does not parse overrules nothing
    assert extract(_page(og_type="article"), "text/html", "http://[::1/services/rigging").extractor == "trafilatura"
    # filed under writing, the same page is read as the article it says it is
    for path in ("/blog/yacht-rigging/", "/services/blog/rigging"):
        fetched = await weblens.fetch(pages.url(path), settings=settings, cache=cache)
        assert fetched.extractor == "trafilatura", path
        assert "We started rigging boats" in fetched.content and _FAQ[1][1] not in fetched.content


async def test_a_site_wide_og_article_gives_way_to_wordpress_marking_a_static_page(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    # the address says nothing, but WordPress marks its static pages `page page-id-N` and its posts `single-post`
    page = _page(og_type="article", body_class="wp-singular page-template-default page page-id-1080 wp-theme-x")
    post = _page(og_type="article", body_class="wp-singular post-template-default single single-post postid-9")
    pages.route("GET", "/yacht-rigging/", Reply(body=page, content_type="text/html; charset=utf-8"))
    pages.route("GET", "/2026/rigging-notes/", Reply(body=post, content_type="text/html; charset=utf-8"))

    fetched = await weblens.fetch(pages.url("/yacht-rigging/"), settings=settings, cache=cache)
    assert fetched.extractor == "sections"
    for kept in ("## What we do", "### Standing rigging", "We started rigging boats", _FAQ[1][1]):
        assert kept in fetched.content
    fetched = await weblens.fetch(pages.url("/2026/rigging-notes/"), settings=settings, cache=cache)
    assert fetched.extractor == "trafilatura"
    assert "We started rigging boats" in fetched.content and _FAQ[1][1] not in fetched.content
    # a class named `page` alone is not WordPress' mark; and JSON-LD naming an article wins over the mark
    assert extract(_page(og_type="article", body_class="page"), "text/html").extractor == "trafilatura"
    article = "<script type='application/ld+json'>{\"@type\": \"Article\", \"headline\": \"Rigging\"}</script>"
    marked = _page(article, og_type="article", body_class="page page-id-1080")
    assert extract(marked, "text/html").extractor == "trafilatura"


_EXAMPLES = (
    ("html", "&lt;div class='box'&gt;\n  &lt;p&gt;One&lt;/p&gt;\n&lt;/div&gt;"),
    ("css", ".box {\n  display: flex;\n}"),
)
_ENDPOINTS = (
    ("POST", "beacons"), ("GET", "beacons/{id}"), ("DELETE", "beacons/{id}"), ("GET", "beacons/{id}/light"),
    ("PUT", "beacons/{id}/light"), ("GET", "harbours"), ("POST", "harbours/{id}/keepers"),
)  # fmt: skip


def _docs_page(head: str = "") -> bytes:
    examples = "".join(
        f"<div class='example'><div class='example-header'><span>{lang}</span><button>Copy</button></div>"
        f"<pre>{code}</pre></div>"
        for lang, code in _EXAMPLES
    )
    endpoints = "".join(
        f"<li><a href='/api/{i}'><span class='method'>{method}</span> <span>/v1/{path}</span></a></li>"
        for i, (method, path) in enumerate(_ENDPOINTS)
    )
    objectives = "".join(
        f"<li>{goal}</li>"
        for goal in ("Lay out items in one dimension.", "Wrap items onto new rows.", "Size and order flex items.",
                     "Align items along the cross axis.", "Justify content along the main axis.")
    )  # fmt: skip
    return (
        f"<html><head><title>Flexbox - beacon docs</title>{head}</head><body>"
        "<nav><a href='/'>beacon</a> <a href='/api'>API reference</a></nav>"
        "<main><h1>Flexbox</h1>"
        "<table class='learn-box'><tr><th>Prerequisites:</th><td>HTML basics, CSS selectors</td></tr>"
        f"<tr><th>Objective:</th><td><ul>{objectives}</ul></td></tr></table>"
        "<h2>Why flexbox?</h2>"
        "<p>For a long time the only reliable tools for laying out a page were floats and positioning; they work, "
        "but they make some simple layouts hard, such as centring a box vertically inside its parent.</p>"
        "<h2>A simple example</h2><p>Give the parent element a display of flex and its children line up in a row, "
        f"each as tall as the tallest of them, with no float or clearing needed at all.</p>{examples}"
        "<h2>Endpoints</h2>"
        "<p>The beacon service exposes the same layout engine over HTTP for servers that render pages ahead of time; "
        f"each endpoint takes and returns JSON.</p><ul class='endpoints'>{endpoints}</ul>"
        "</main><footer>Built with Sphinx</footer></body></html>"
    ).encode()


def test_a_documentation_page_keeps_the_short_items_an_article_extractor_drops() -> None:
    # trafilatura drops the objectives (a list in a table cell) and the endpoints (a list of links)
    found = extract(_docs_page(), "text/html")

    content = found.content
    assert found.extractor == "page-text"
    assert "Objective:\n\n- Lay out items in one dimension.\n- Wrap items onto new rows.\n" in content
    assert "- POST /v1/beacons\n- GET /v1/beacons/{id}\n" in content and "- POST /v1/harbours/{id}/keepers" in content
    assert "html\n\n```\n<div class='box'>\n  <p>One</p>\n</div>\n```" in content  # code stays fenced
    assert "## Why flexbox?" in content and "API reference" not in content and "Built with" not in content


def test_a_documentation_page_that_declares_an_article_keeps_the_main_content_pass() -> None:
    article = "<script type='application/ld+json'>{\"@type\": \"TechArticle\", \"headline\": \"Flexbox\"}</script>"
    found = extract(_docs_page(article), "text/html")

    assert found.extractor == "trafilatura"
    assert "## Why flexbox?" in found.content and "/v1/harbours" not in found.content


def test_a_list_of_sentences_the_pass_left_out_comes_back_but_not_a_list_of_links() -> None:
    """Its items are kept whole (documents to bring), where a list of links with as many words (other pages'
    headlines) stays out like any list the pass left out."""
    documents = (
        "A passport valid for at least six months after your travel date",
        "An acceptance letter from the university you will attend",
        "Proof of funds, such as bank statements for the last three months",
    )
    headlines = (
        "Embassy opens a second visa centre in the north of the country",
        "New rules for student work permits take effect in the spring",
    )
    items = "".join(f"<li>{text}</li>" for text in documents)
    links = "".join(f"<li><a href='/news/{i}'>{text}</a></li>" for i, text in enumerate(headlines))
    page = (
        "<html><head><title>Student visa guide</title></head><body><header><a href='/'>Study Abroad Portal</a>"
        "<nav><a href='/visa'>Visas</a> <a href='/contact'>Contact</a></nav></header><div class='content-area'>"
        "<p>This guide explains how to apply for a student visa, the documents you need, and how long processing "
        "takes. Requirements differ a little between countries, so always check the embassy site first.</p>"
        f"<h2>Required documents</h2><ul>{items}</ul><h2>How to apply</h2><ol><li>Fill in the online application "
        "form on the embassy website.</li><li>Pay the visa fee, which is about 160 US dollars.</li></ol>"
        "<table><tr><th>Country</th><th>Time</th><th>Fee</th></tr><tr><td>United Kingdom</td><td>3 weeks</td>"
        "<td>490 pounds</td></tr><tr><td>Canada</td><td>8 weeks</td><td>150 Canadian dollars</td></tr></table>"
        f"<h3>Latest news</h3><ul>{links}</ul></div></body></html>"
    )
    found = extract(page.encode(), "text/html")

    assert found.extractor == "sections"
    content = found.content
    assert "## Required documents\n\n" + "\n".join(f"- {text}" for text in documents) in content
    assert "Pay the visa fee" in content and "| Canada | 8 weeks |" in content
    assert not any(headline in content for headline in headlines)
