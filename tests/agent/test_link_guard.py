"""The link guard reads the answer as a renderer will: every destination a CommonMark renderer would
link or load, resolved as a browser resolves it, must be exactly a ledger or user URL.

What the user would get is checked with a stock markdown-it renderer (CommonMark, raw HTML on,
its own link validation and normalisation) whose every `href`/`src` is resolved per WHATWG.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import ada_url
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from weblens.agent.links import LinkGuard, link_key
from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.pages import PageServer, article_html
from weblens.testing.server import Reply
from weblens.tools.fetch import FetchTool

PAGE_BASE = "http://127.0.0.1:8765/"
"""Where the chat page is served from: what a relative link in the answer resolves against."""


class _Targets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value is not None]


def rendered_targets(markdown: str) -> list[str]:
    """Where a stock renderer's links and images go, as a browser on the page resolves them."""
    html = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable(["table", "strikethrough"])
    parser = _Targets()
    parser.feed(html.render(markdown))
    targets = []
    for target in parser.found:
        try:
            targets.append(ada_url.URL(target, PAGE_BASE).href)
        except ValueError:
            continue
    return targets


PAYLOADS = (
    "[c](https:/evil.example/c) [d](https:evil.example/d) [e](https:\\/\\/evil.example/e) "
    "[f](https&#58;//evil.example/f) [g](//evil.example/g) [t](<https://evil.exa\tmple/t>) "
    "<https:/evil.example/auto> ![i](https:/evil.example/i.png) [r] and [x][s] "
    '<a href="https:/evil.example/h">h</a> <img src="//evil.example/h.png"> [n](javascript:alert(1))\n\n'
    "[r]: https:/evil.example/r\n"
    "[s]: //evil.example/s\n"
)


def guarded(text: str, allowed: set[str], size: int) -> tuple[str, LinkGuard]:
    keys = {link_key(url) for url in allowed}
    guard = LinkGuard(lambda url: link_key(url) in keys)
    shown = "".join(guard.feed(text[i : i + size]) for i in range(0, len(text), size)) + guard.flush()
    return shown, guard


def test_every_spelling_a_renderer_resolves_elsewhere_is_flagged_and_shown_as_text() -> None:
    assert any("evil.example" in target for target in rendered_targets(PAYLOADS))  # the attack works unguarded
    one_go, _ = guarded(PAYLOADS, set(), len(PAYLOADS))
    for size in (1, 2, 5, 13):
        shown, guard = guarded(PAYLOADS, set(), size)
        assert shown == one_go, size  # however the deltas fall
        assert rendered_targets(shown) == [] and "```" not in shown, size  # rewritten in place
        assert len(guard.flagged) == 13 and guard.linked == []
        assert "https://evil.exa\tmple/t" in guard.flagged  # a browser drops the tab
    assert "`https:/evil.example/c`" in one_go and "`[r]: https:/evil.example/r`" in one_go


def test_raw_html_that_no_blank_line_ends_cannot_smuggle_a_link_in_later() -> None:
    text = '<pre>\n\nnotes\n\n<a href="https:/evil.example/x">x</a>\n</pre>\n\nAfter.'
    shown, guard = guarded(text, set(), 3)
    assert rendered_targets(shown) == []
    assert guard.flagged == ["https:/evil.example/x"] and shown.endswith("After.")


async def test_a_ledger_url_with_a_tracking_parameter_or_userinfo_added_is_another_url(
    llm: ScriptedLLM, ask: Any, make_search: Any
) -> None:
    with PageServer() as pages:
        pages.route("GET", "/notes", Reply(body=article_html("Notes"), content_type="text/html; charset=utf-8"))
        page = pages.url("/notes")
        settings = Settings(fetch={"allowed_hosts": [pages.host]})
        async with Runtime(settings=settings, cache=Cache(None)) as runtime:
            llm.add(
                Turn(tool_calls=[call("web_search", {"query": "notes"})]),
                Turn(tool_calls=[call("web_fetch", {"url": page})]),
                Turn(
                    text=(
                        f"Read [the notes]({page}) [1]. ![x]({page}?utm_source=SECRET) "
                        f"![y]({page}#SECRET) [z](http://SECRET:x@{pages.host}/notes) {page}?fbclid=SECRET"
                    )
                ),
            )
            search = make_search(results=(("Notes", page),))
            answer = await ask("What do the notes say?", [search, FetchTool(runtime)])
        paths = [r.path for r in pages.requests]

    done = answer.done
    assert rendered_targets(done.answer) == [page]
    assert done.flagged_urls == [
        f"{page}?utm_source=SECRET",
        f"{page}#SECRET",
        f"http://SECRET:x@{pages.host}/notes",
        f"{page}?fbclid=SECRET",
    ]
    assert done.linked_urls == [page] and answer.text == done.answer
    assert paths == ["/notes"]  # nothing the answer wrote was requested


def test_code_stays_code_and_what_follows_a_closed_fence_is_checked() -> None:
    text = (
        'Example:\n\n```html\n<a href="https:/evil.example/in-code">x</a>\n\n[x](https:/evil.example/a)\n```\n\n'
        "Then [y](https:/evil.example/b) and `[z](https:/evil.example/c)`.\n\n- a list item [w](//evil.example/w)\n"
    )
    for size in (1, 4, 9, len(text)):
        shown, guard = guarded(text, set(), size)
        assert rendered_targets(shown) == [], size
        assert guard.flagged == ["https:/evil.example/b", "//evil.example/w"], size
        assert '<a href="https:/evil.example/in-code">x</a>\n\n[x](https:/evil.example/a)\n```' in shown  # untouched


def test_an_image_whose_bang_arrives_alone_is_rewritten_in_place() -> None:
    for size in (1, 2, 3):
        shown, guard = guarded("Plain words. More at ![chart](https:/evil.example/x).", set(), size)
        assert shown == "Plain words. More at chart (`https:/evil.example/x`).", size
        assert guard.flagged == ["https:/evil.example/x"]


def test_a_raw_tag_left_open_is_not_trusted() -> None:
    """A browser reads an unfinished `<a href=…` on into the renderer's next tag."""
    text = '<!-- x -->  <a href="https:/evil.example/a\n\nlater">text</a>'
    shown, guard = guarded(text, set(), 3)
    assert rendered_targets(shown) == [] and guard.flagged


ATOMS = (
    "[", "]", "(", ")", "<", ">", "!", "`", "```", "\n", "\n\n", " ", "\\", "&#58;", "https:", "//", "/",
    "evil.example", "x", "[1]", ":", "> ", "- ", "    ", "<a href=", '"', "'", "<img src=", "www.", "@",
    "https://ok.example/a", "?utm_source=S", "#", "\t", "<pre>", "</pre>", "*", "|", "---", "[r]: ", "&lt;",
    "<!--", "-->",
)  # fmt: skip


@settings(derandomize=True, max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ATOMS), max_size=50), st.integers(min_value=1, max_value=12))
def test_whatever_the_model_writes_and_however_it_streams_only_allowed_urls_render(atoms: list[str], size: int) -> None:
    allowed = "https://ok.example/a"
    shown, _ = guarded("".join(atoms), {allowed}, size)
    assert all(link_key(target) == link_key(allowed) for target in rendered_targets(shown))
