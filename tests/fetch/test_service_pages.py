"""A service page is a run of sections; the reader gets all of them, not the one an article extractor picks."""

from __future__ import annotations

from weblens.fetch.extract import extract

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


def _page(head: str = "") -> bytes:
    cards = "".join(
        f"<div class='card'><h3>{name}</h3><p>{text}</p><a href='/{i}'>Read more</a></div>"
        for i, (name, text) in enumerate(_SERVICES)
    )
    faq = "".join(f"<div class='faq'><h3>{q}</h3><div class='answer'><p>{a}</p></div></div>" for q, a in _FAQ)
    return (
        "<html><head><title>Yacht rigging services</title><meta property='og:type' content='website'>"
        f"{head}</head><body>"
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
    order = ["# Yacht rigging services", "## What we do", "### Standing rigging", _SERVICES[2][1], "## Our story",
             "We started rigging boats", "## Questions", "### Do you work on classic boats?", _FAQ[1][1]]  # fmt: skip
    positions = [content.index(text) for text in order]
    assert positions == sorted(positions)
    assert content.count("We started rigging boats") == 1
    # buttons and links between the sections, a newsletter box and the site's navigation stay out
    for left_out in ("Read more", "Get a quote", "newsletter", "Sign up", "Home", "Contact", "Quay Street"):
        assert left_out not in content


def test_a_page_that_declares_an_article_keeps_the_main_content_pass() -> None:
    article = "<script type='application/ld+json'>{\"@type\": \"Article\", \"headline\": \"Rigging\"}</script>"
    found = extract(_page(article), "text/html")

    assert found.extractor == "trafilatura"
    assert "We started rigging boats" in found.content
    assert "### Standing rigging" not in found.content and _FAQ[0][1] not in found.content
