"""A page that holds a section twice, once for desktops and once for phones, is read once, as a desktop shows it."""

from __future__ import annotations

import pytest

import weblens
from weblens.cache import Cache
from weblens.config import Settings
from weblens.fetch.extract import extract
from weblens.fetch.responsive import small_screen_only
from weblens.testing import Reply
from weblens.testing.pages import PageServer

_STEPS = (
    ("Survey", "A rigger climbs the mast and writes up every fitting, with photographs of the ones that need work."),
    ("Quote", "The quote lists each wire, terminal and hour of labour, so you can see where the money goes."),
    ("Refit", "The old rigging comes down on a Monday and the new rigging is tuned and signed off by Friday."),
)
_INTRO = (
    "Harbour Rigging has looked after cruising and racing yachts on this coast since 1998. Every re-rig follows "
    "the same three steps, and the same rigger stays with your boat from the first climb to the last sea trial."
)
_SCRIPTED = "Our loft is open to visitors on Saturdays from nine until noon, kettle on, no appointment needed."


def _page(desktop: str, phone: str, hidden_everywhere: str = "d-none") -> bytes:
    steps = "".join(f"<div class='step'><h3>{name}</h3><p>{text}</p></div>" for name, text in _STEPS)
    # the phone's copy: the same steps as an accordion of buttons
    accordion = "".join(f"<details><summary>{name}</summary><p>{text}</p></details>" for name, text in _STEPS)
    return (
        "<html><head><title>How a re-rig works</title><meta property='og:type' content='website'></head><body>"
        f"<main><h1>How a re-rig works</h1><p>{_INTRO}</p>"
        f"<section class='{desktop}'><h2>Three steps</h2>{steps}</section>"
        f"<section class='{phone}'><h2>Three steps</h2>{accordion}</section>"
        f"<div class='{hidden_everywhere}' id='visits'><p>{_SCRIPTED}</p></div>"
        "</main></body></html>"
    ).encode()


@pytest.mark.parametrize(
    ("desktop", "phone"),
    [
        ("d-none d-lg-block", "d-lg-none"),  # Bootstrap 4 and 5
        ("hidden lg:block", "lg:hidden"),  # Tailwind
        ("hidden-xs hidden-sm", "visible-xs visible-sm"),  # Bootstrap 3
        ("elementor-section elementor-hidden-mobile", "elementor-section elementor-hidden-desktop"),  # Elementor
    ],
)
def test_a_section_laid_out_twice_is_read_once(desktop: str, phone: str) -> None:
    found = extract(_page(desktop, phone), "text/html")

    content = found.content
    for _, text in _STEPS:
        assert content.count(text) == 1, content
    assert content.count("Three steps") == 1
    assert "### Survey" in content  # the desktop's copy, with its headings
    assert _INTRO in content
    assert _SCRIPTED in content  # hidden at every width, it is one a script opens: it stays


async def test_a_fetched_page_is_read_as_a_desktop_shows_it(
    pages: PageServer, settings: Settings, cache: Cache
) -> None:
    pages.route("GET", "/re-rig", Reply(body=_page("d-none d-md-flex", "d-flex d-md-none"), content_type="text/html"))

    fetched = await weblens.fetch(pages.url("/re-rig"), settings=settings, cache=cache)

    assert fetched.content.count(_STEPS[1][1]) == 1
    assert "### Quote" in fetched.content


def test_the_words_around_a_phone_only_element_stay_in_place() -> None:
    phone = "<span class='d-lg-none'>phone</span>"
    paragraphs = "".join(
        f"<p>{phone}Rigger {i} starts{phone} with a climb,{phone}{phone} and every climb ends <b>with a report</b>"
        f"<span class='lg:hidden'>tap</span> written the same day, photographs and all.{phone}</p>"
        for i in range(3)
    )
    page = f"<html><head><title>Re-rig</title></head><body><article>{paragraphs}<p>{_INTRO}</p></article></body></html>"
    content = extract(page.encode(), "text/html").content

    for i in range(3):
        assert f"Rigger {i} starts with a climb, and every climb ends **with a report** written the same day" in content
    assert "phone" not in content and "tap" not in content


def test_a_page_laid_out_for_phones_alone_is_still_read() -> None:
    # nothing shows at a desktop's width: the phone's layout is the page
    page = (
        "<html><head><title>Re-rig</title></head><body><main class='d-lg-none'><h1>How a re-rig works</h1>"
        f"<p>{_INTRO}</p>" + "".join(f"<h2>{name}</h2><p>{text}</p>" for name, text in _STEPS) + "</main></body></html>"
    )
    content = extract(page.encode(), "text/html").content

    assert _INTRO in content and all(text in content for _, text in _STEPS)


@pytest.mark.parametrize(
    ("classes", "small_only"),
    [
        ("d-lg-none", True),
        ("d-block d-md-none", True),
        ("d-none d-md-block d-xl-none", True),  # shown on tablets only
        ("md:hidden", True),
        ("block sm:hidden", True),
        ("elementor-hidden-desktop", True),
        ("is-hidden-desktop", True),
        ("hide-for-large", True),
        ("d-none d-lg-block", False),  # the desktop's copy
        ("hidden lg:flex", False),
        ("d-none", False),  # hidden at every width
        ("hidden", False),
        ("d-none d-xxl-block", False),  # shown only wider than 1280 px: no copy for smaller screens either
        ("d-print-none", False),
        ("hidden-xs", False),
        ("elementor-hidden-mobile", False),
        ("col-md-6 table", False),
        ("", False),
    ],
)
def test_classes_that_show_an_element_only_below_desktop_width(classes: str, small_only: bool) -> None:
    assert small_screen_only(classes) is small_only
