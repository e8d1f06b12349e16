"""The parts of a page that only a small screen shows: a section laid out again for phones, a phone's menu.

A responsive page often holds a section twice, a copy for desktops and one for phones, and its
CSS shows one of them. The reader reads the page as a desktop browser shows it (1280 px wide):
elements that the common CSS frameworks' classes hide at that width, while a smaller screen
shows them, are dropped before extraction (html.py finds them on its walk for the visible
text). Bootstrap 3 to 5, Tailwind, Elementor, WPBakery, Foundation and Bulma are read; a
site's own class names are not guessed at. An element hidden at every width (`d-none`,
Tailwind's `hidden`) stays: it may be a tab or a "read more" that a script opens.

bench/extraction.py (both corpora, after the WordPress rule of pagekind.py): modern pages 0.8163
-> 0.8176 F1 (folds +0.0007 / +0.0017), listings 0.665 -> 0.677, services 0.775 -> 0.778,
products +0.0007, forums +0.0001, collections 0.579 -> 0.577 (two pages whose annotators kept the
phone copy of a product grid), articles level, 2019 articles unchanged. Twelve pages up, two down.
A site's own names (`mobile-only`, `show-mobile`...) move nothing more, and are left out.
"""

from __future__ import annotations

import re

__all__ = ["screen_reader_only", "small_screen_only"]

# the breakpoints a 1280 px window passes, smallest first (Bootstrap's xl starts at 1200 px, Tailwind's at 1280)
_APPLIED = ("", "sm", "md", "lg", "xl")
_DISPLAY = (
    "none|hidden|block|flex|grid|inline|inline-block|inline-flex|inline-grid|inline-table|table|table-row|"
    "table-cell|contents|flow-root|list-item"
)
# Bootstrap 4/5 `d-lg-none`, `d-none`; Tailwind `lg:hidden`, `hidden`, `md:flex` (xxl and 2xl: wider than 1280 px)
_RESPONSIVE = re.compile(rf"(?:d-(?:(sm|md|lg|xl|xxl)-)?|(?:(sm|md|lg|xl|2xl):)?)({_DISPLAY})")
# classes that hide an element from 1280 px up and show it below: Bootstrap 3 (and WPBakery's copy of it),
# Elementor, Foundation, Bulma
_SMALL_ONLY = frozenset(
    {"hidden-lg", "vc_hidden-lg", "visible-xs", "visible-sm", "visible-xs-block", "visible-xs-inline",
     "visible-xs-inline-block", "visible-sm-block", "visible-sm-inline", "visible-sm-inline-block",
     "elementor-hidden-desktop", "hide-for-large", "hide-for-medium", "show-for-small-only", "show-for-medium-only",
     "is-hidden-desktop", "is-hidden-tablet"}
)  # fmt: skip


def small_screen_only(classes: str) -> bool:
    """Whether these classes hide an element in a 1280 px window while a smaller one shows it."""
    if "none" not in classes and "hidden" not in classes and "visible-" not in classes and "-for-" not in classes:
        return False  # most classes: told in a tenth of the time
    tokens = classes.split()
    if _SMALL_ONLY.intersection(tokens):
        return True
    hidden: dict[str, bool] = {}  # by breakpoint: whether the class for it hides the element
    for token in tokens:
        found = _RESPONSIVE.fullmatch(token)
        if found is not None:
            hidden[found[1] or found[2] or ""] = found[3] in ("none", "hidden")
    widest = next((point for point in reversed(_APPLIED) if point in hidden), "")  # decides at 1280 px
    # no breakpoint class: hidden or shown at every width, not a small screen's copy
    return widest != "" and hidden[widest]


# classes that hide text from the screen and leave it to screen readers: Bootstrap and Tailwind `sr-only`,
# Bootstrap 5 `visually-hidden`, WordPress `screen-reader-text`, GOV.UK, Drupal, Foundation and others
_SCREEN_READER_ONLY = frozenset(
    {"sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text", "screen-reader-only", "screenreader-only",
     "show-for-sr", "element-invisible", "u-visually-hidden", "govuk-visually-hidden", "assistive-text", "a11y-hidden"}
)  # fmt: skip


def screen_reader_only(classes: str) -> bool:
    """Whether these classes leave an element's text to screen readers alone (a label such as `Warning` or
    `Rating: 4 of 5` beside an icon that says it on the screen)."""
    # every one of them holds one of these words, which most classes do not: told without splitting them
    hinted = "sr" in classes or "hidden" in classes or "reader" in classes or "invisible" in classes
    return (hinted or "assistive" in classes) and not _SCREEN_READER_ONLY.isdisjoint(classes.split())
