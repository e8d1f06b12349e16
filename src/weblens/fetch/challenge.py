"""Bot checks and interstitials: pages a site sends instead of the page that was asked for.

A Cloudflare "Just a moment..." page, a captcha wall or a cookie-consent gate has a few
lines of visible text and the markers of the service that sent it (its script, form or
element ids). Such a page is never content: the fetch reports it as `blocked`. The
markers are the services' own, not any site's; a long page that merely embeds a captcha
(a comment form) is not a wall, so only pages with little visible text qualify.
"""

from __future__ import annotations

import re

from lxml import etree  # type: ignore[import-untyped]

__all__ = ["MAX_WALL_TEXT_CHARS", "challenge_kind"]

# A wall says a sentence or two; an article that embeds a captcha form says far more.
MAX_WALL_TEXT_CHARS = 1500
_SHORT_WALL_TEXT_CHARS = 600

# What the bot-check services put in their pages: script and form URLs, element ids and classes.
# Markers of interstitial services (they only ever serve checks). Cloudflare's challenge loads from
# `/cdn-cgi/challenge-platform/h/<x>/orchestrate/...`; the same platform's bot-detection script
# (`.../scripts/jsd/main.js`) is injected into ordinary pages and is no sign of a check.
_CHALLENGE_MARKERS = (
    "_cf_chl_opt", "cf-browser-verification", "captcha-delivery.com", "px-captcha",
    "/_incapsula_resource", "awswaf", "aws-waf-token", "ddos-guard", "sec-if-cpt", "/.well-known/sgcaptcha",
)  # fmt: skip
_CLOUDFLARE_CHECK = re.compile(r"/cdn-cgi/challenge-platform/(?:h/\w+/)?orchestrate/")
# Captcha widgets, which real forms embed too: a wall only on a near-empty page that asks to prove humanity.
_CAPTCHA_MARKERS = (
    "g-recaptcha", "www.google.com/recaptcha", "h-captcha", "hcaptcha.com", "cf-turnstile", "challenges.cloudflare.com",
    "friendlycaptcha", "arkoselabs", "funcaptcha",
)  # fmt: skip
_HUMAN_WORDS = ("robot", "human", "captcha", "verify", "verification", "unusual traffic", "automated")
# Titles bot checks use when their markers are served from elsewhere.
_CHALLENGE_TITLES = (
    "just a moment", "attention required", "checking your browser", "please wait", "verifying you are human",
    "verify you are human", "are you a robot", "are you a human", "human verification", "security check",
    "access denied", "pardon our interruption", "robot check", "one more step", "ddos protection",
    "bot verification", "captcha",
)  # fmt: skip
# After one of those titles, a bot check's title has at most punctuation and a site name ("| Cloudflare"):
# "One more step toward faster builds" is an ordinary page's title.
_TITLE_REST = re.compile(r"[\s.!?\u2026]*(?:[|\-\u2013\u2014:\u00b7].*)?", re.S)
_CONSENT_MARKERS = ("consent", "cookie", "gdpr", "privacy")
_CONSENT_WORDS = ("accept all", "reject all", "agree", "consent", "cookies")


def _attribute_text(tree: etree._Element) -> str:
    """Script sources, form actions, ids and classes: where the services leave their names."""
    parts: list[str] = []
    for element in tree.iter("script", "form", "iframe", "div", "input", "link", "body", "html"):
        for name in ("src", "action", "id", "class", "href", "data-sitekey", "name"):
            value = element.get(name)
            if value:
                parts.append(value)
        if element.tag == "script" and element.text and len(element.text) < 200_000:
            parts.append(element.text[:20_000])
    return " ".join(parts).lower()


def _is_challenge_title(heading: str, title: str) -> bool:
    return heading.startswith(title) and _TITLE_REST.fullmatch(heading, len(title)) is not None


def challenge_kind(tree: etree._Element, title: str, visible_text: str) -> str | None:
    """'bot_challenge' or 'consent_wall' when the page is one, else None."""
    if len(visible_text) > MAX_WALL_TEXT_CHARS:
        return None
    heading = title.lower().strip()
    markers = _attribute_text(tree)
    if any(marker in markers for marker in _CHALLENGE_MARKERS) or _CLOUDFLARE_CHECK.search(markers):
        return "bot_challenge"
    text = visible_text.lower()
    short = len(visible_text) < _SHORT_WALL_TEXT_CHARS
    if short and heading and any(_is_challenge_title(heading, t) for t in _CHALLENGE_TITLES):
        return "bot_challenge"
    if short and any(m in markers for m in _CAPTCHA_MARKERS) and any(w in text or w in heading for w in _HUMAN_WORDS):
        return "bot_challenge"
    consent_form = any(
        any(marker in (form.get("action") or "").lower() for marker in _CONSENT_MARKERS) for form in tree.iter("form")
    )
    if consent_form and sum(word in text for word in _CONSENT_WORDS) >= 2:
        return "consent_wall"
    return None
