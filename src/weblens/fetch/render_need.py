"""Whether a page read without JavaScript failed in a way a browser would fix, and why.

`render="auto"` renders only then: an empty JavaScript shell, a `<noscript>` notice asking
for JavaScript, a known client-side app root with no text in it, or far less text than the
page's scripts suggest. A page whose plain read has real text never gets here: the first
check is on the length of what was read, so static pages cost nothing more.
"""

from __future__ import annotations

import re

from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html

from weblens.fetch.markup import bound_markup

__all__ = ["RENDER_REASONS", "render_reason"]

RENDER_REASONS = {
    "javascript_shell": "the page is an empty JavaScript shell",
    "noscript_notice": "the page asks for JavaScript",
    "empty_app_root": "the page's application root is empty",
    "scripts_outweigh_text": "the page's scripts far outweigh its text",
}
_ENOUGH_TEXT = 1_500
"""A plain read with this many characters of content succeeded: no render is considered."""
_LITTLE_TEXT = 400
"""Beyond an empty shell, only a read this short counts as failed: a short static page (a stub
article, a product with a line of text) is common, and rendering it in vain costs a second."""
_SHELL_CHARS = 200
_SCRIPT_RATIO = 30
_EXTERNAL_SCRIPT_BYTES = 20_000
"""What an external script is assumed to weigh (it is not downloaded to find out)."""
_ENABLE_JS = re.compile(
    r"(enable|turn on|activate|requires?|need|needs)\W+(\w+\W+){0,3}javascript|javascript\W+(is\W+)?"
    r"(required|disabled|needed|must be enabled)",
    re.IGNORECASE,
)
_APP_ROOTS = ("root", "app", "__next", "__nuxt", "svelte", "___gatsby", "q-app", "main-app")
_APP_ROOT_XPATH = (
    " | ".join(f"//*[@id='{name}']" for name in _APP_ROOTS) + " | //app-root | //*[@ng-app] | //*[@data-reactroot]"
)


def _text(element: lxml_html.HtmlElement) -> str:
    return " ".join(element.text_content().split())


def render_reason(html: str, content: str, visible_chars: int, method: str) -> str | None:
    """A key of `RENDER_REASONS` when a browser would likely read more, else None. A shell whose
    text was read from its JSON (`method` "hydration") needs no browser."""
    if len(content) >= _ENOUGH_TEXT or method == "hydration":
        return None
    lowered = html.lower()
    if "<script" not in lowered:
        return None  # nothing would run in a browser either
    if visible_chars < _SHELL_CHARS:
        return "javascript_shell"
    if len(content) >= _LITTLE_TEXT:
        return None
    try:
        tree = lxml_html.fromstring(bound_markup(html))  # an attribute flood costs libxml2 minutes
    except (ValueError, etree.ParserError):
        return None
    for notice in tree.iter("noscript"):
        if _ENABLE_JS.search(_text(notice)):
            return "noscript_notice"
    for root in tree.xpath(_APP_ROOT_XPATH):
        if not _text(root):
            return "empty_app_root"
    script_bytes = sum(
        _EXTERNAL_SCRIPT_BYTES if script.get("src") else len(script.text or "")
        for script in tree.iter("script")
        if (script.get("type") or "text/javascript").lower() in ("text/javascript", "module", "application/javascript")
    )
    if script_bytes > _SCRIPT_RATIO * max(len(content), 1):
        return "scripts_outweigh_text"
    return None
