"""Pages that are not plain articles, fetched from a real local server: what the model reads."""

from __future__ import annotations

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError, UpstreamError
from weblens.fetch import fetch
from weblens.testing import Reply
from weblens.testing.pages import PageServer, page_fixture


async def test_a_forum_thread_keeps_each_post_under_its_author(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/forum-thread"), settings=settings, cache=cache)
    assert page.extractor == "thread"
    content = page.content
    # the thread's title is the page's title, given beside the text rather than repeated as its first line
    assert page.title.startswith("Lantern wick keeps smoking after trimming")
    assert content.startswith("**ada_keeper** · 2026-01-03\n")
    lines = [
        "**ada_keeper** · 2026-01-03",  # the opening post, described only by the page's JSON-LD
        "**old_tom** · 2026-01-03",
        "**grace_h** · 2026-01-04",
        "**ada_keeper** · 2026-01-05",
    ]
    positions = [content.index(line) for line in lines]
    assert positions == sorted(positions)
    # each post follows its own author line
    assert positions[0] < content.index("My paraffin lantern smokes") < positions[1]
    assert positions[1] < content.index("Trim it into a slight dome") < positions[2]
    assert positions[3] < content.index("The dome trim fixed it")
    assert "> keep the flame low for the first ten minutes" in content  # a quote stays a quote
    assert '```\nfor hour, height in enumerate(flame_heights):\n    if height > 12:\n' in content
    for boilerplate in ("Similar threads", "Report", "Members", "Terms"):
        assert boilerplate not in content


async def test_a_docs_page_keeps_headings_fenced_code_and_tables(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/docs"), settings=settings, cache=cache)
    content = page.content
    # the page's heading repeats its title (given beside the text, with the site's name): the text starts after it
    assert page.title == "Configuring the beacon client — Beacon 2.4 documentation"
    assert not content.startswith("#") and "Configuring the beacon client" not in content[:200]
    assert "\n## Settings\n" in content and "\n## Starting the client\n" in content
    assert "| Setting | Default | Meaning |" in content
    assert "| colour | white | The colour of the light, one of white, red or green |" in content
    assert "```\nfrom beacon import Client, load_settings\n" in content and "client.start()\n```" in content
    assert "`client.stop()`" in content
    assert "API reference" not in content and "Built with" not in content


async def test_a_listing_keeps_every_item_when_the_main_content_pass_keeps_only_its_prose(
    pages: PageServer, settings: Settings, cache: Cache
):
    # trafilatura keeps the intro and the "how we rank" prose and drops all 26 rows of the ranking
    page = await fetch(pages.url("/listing"), settings=settings, cache=cache)
    assert page.extractor == "page-text"
    for item in ("Storm lantern, brass", "Reflector dish", "Deck lantern, copper", "Lens cloth pack", "£89.00"):
        assert item in page.content
    assert "Every lamp on this page spent a winter month" in page.content
    for boilerplate in ("Rope and line", "Paint and varnish", "4 Quay Street", "Search"):
        assert boilerplate not in page.content


async def test_a_page_that_declares_an_article_keeps_the_main_content_cut(
    pages: PageServer, settings: Settings, cache: Cache
):
    # the same page calling itself an article: its prose is what matters, the rows are the aside
    html = page_fixture("page_listing.html").replace(b'content="website"', b'content="article"')
    pages.route("GET", "/listing-article", Reply(body=html, content_type="text/html; charset=utf-8"))
    page = await fetch(pages.url("/listing-article"), settings=settings, cache=cache)
    assert page.extractor == "trafilatura"
    assert "Every lamp on this page spent a winter month" in page.content
    assert "Deck lantern, copper" not in page.content


async def test_a_short_article_on_a_page_of_menus_and_comments_is_the_article(
    pages: PageServer, settings: Settings, cache: Cache
):
    menu = "".join(f"<div class='menu'><a href='/s/{i}'>Section {i} news and stories</a></div>" for i in range(300))
    comments = "".join(
        f"<div class='comment'><b>reader{i}</b><p>I read this and think the council should look again at it.</p></div>"
        for i in range(120)
    )
    brief = (
        "<p>The harbour council voted on Tuesday to keep the old lighthouse lit through the winter, reversing "
        "a plan to switch it off in November.</p><p>Keepers will share the night shifts with volunteers from "
        "the rowing club, and the lamp will be serviced in March before the sailing season opens.</p>"
    )
    html = (
        "<html><head><title>Lighthouse stays lit</title><meta property='og:type' content='article'></head><body>"
        f"<div class='header'>{menu}</div><article><h1>Lighthouse stays lit</h1>{brief}</article>"
        f"<div class='comments'>{comments}</div></body></html>"
    )
    pages.route("GET", "/brief", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/brief"), settings=settings, cache=cache)
    assert page.content.startswith("The harbour council voted on Tuesday")  # was under 3 000 words of menus
    assert "Section 7 news" not in page.content and "reader3" not in page.content


async def test_a_nextjs_shell_is_read_from_its_data(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/next-shell"), settings=settings, cache=cache)
    assert page.extractor == "hydration" and page.note is None
    assert page.content.startswith("# Tide tables explained for new harbour volunteers\n\n")
    paragraphs = page.content.split("\n\n")
    assert "A tide table lists the times and heights of high and low water for each day at one harbour." in paragraphs
    assert any(p.startswith("Always add the local correction") for p in paragraphs)
    for machine in ("p-4821", "tide-tables-explained", "a1b2c3d4", "/img/mq.png"):
        assert machine not in page.content


async def test_a_short_page_keeps_its_own_lines_over_the_site_s_json_ld(
    pages: PageServer, settings: Settings, cache: Cache
):
    graph = (
        '{"@context": "https://schema.org", "@graph": [{"@type": "Organization", "name": "Acme Widgets",'
        ' "description": "Precision widgets for industry, made in Ohio since 1952 by a family-owned company",'
        ' "logo": {"@type": "ImageObject", "caption": "Acme Widgets company logo in blue"}}]}'
    )
    html = (
        f"<html><head><title>Contact</title><script type='application/ld+json'>{graph}</script></head><body>"
        "<h1>Contact</h1><p>Call us on 555-0100, Monday to Friday 9-5.</p><p>Email: sales@acme.example</p>"
        "</body></html>"
    )
    pages.route("GET", "/contact", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/contact"), settings=settings, cache=cache)
    assert "555-0100" in page.content and "sales@acme.example" in page.content
    assert page.extractor != "hydration"


async def test_an_empty_shell_without_data_still_says_so(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/spa"), settings=settings, cache=cache)
    assert page.content == "" and page.note is not None and "JavaScript" in page.note


@pytest.mark.parametrize("path", ["/bot-check", "/captcha-wall"])
async def test_a_bot_check_is_blocked_not_content(pages: PageServer, settings: Settings, cache: Cache, path: str):
    with pytest.raises(BlockedError, match="answered with a bot check instead of the page") as caught:
        await fetch(pages.url(path), settings=settings, cache=cache)
    assert caught.value.details["reason"] == "bot_challenge"


@pytest.mark.parametrize("status", [403, 503])
async def test_a_bot_check_sent_as_an_error_status_is_blocked_not_retried(
    pages: PageServer, settings: Settings, cache: Cache, status: int
):
    check = page_fixture("page_bot_check.html")
    pages.route("GET", "/guarded", Reply(status=status, body=check, content_type="text/html"))
    with pytest.raises(BlockedError, match=f"answered HTTP {status} with a bot check") as caught:
        await fetch(pages.url("/guarded"), settings=settings, cache=cache)
    assert caught.value.details["reason"] == "bot_challenge" and not caught.value.retryable
    assert pages.count("/guarded") == 1


async def test_a_challenge_header_alone_is_a_bot_check(pages: PageServer, settings: Settings, cache: Cache):
    pages.route("GET", "/mitigated", Reply(status=403, body="", headers={"cf-mitigated": "challenge"}))
    with pytest.raises(BlockedError, match="bot check"):
        await fetch(pages.url("/mitigated"), settings=settings, cache=cache)


async def test_an_ordinary_503_page_stays_an_upstream_error(pages: PageServer, settings: Settings, cache: Cache):
    body = "<html><head><title>Service unavailable</title></head><body><h1>Down for maintenance</h1></body></html>"
    pages.route("GET", "/down", Reply(status=503, body=body, content_type="text/html"))
    with pytest.raises(UpstreamError, match="answered HTTP 503"):
        await fetch(pages.url("/down"), settings=settings, cache=cache)


async def test_a_long_article_with_a_captcha_form_is_content(pages: PageServer, settings: Settings, cache: Cache):
    paragraphs = "".join(f"<p>Paragraph {i} about harbour lights and the keepers who kept them.</p>" for i in range(40))
    html = (
        "<html><head><title>Security check of old lighthouses</title>"
        "<script src='https://www.google.com/recaptcha/api.js'></script></head><body><article><h1>Lights</h1>"
        f"{paragraphs}</article><form><div class='g-recaptcha'></div>Verify you are human to comment</form>"
        "</body></html>"
    )
    pages.route("GET", "/article-with-captcha", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/article-with-captcha"), settings=settings, cache=cache)
    assert "Paragraph 39 about harbour lights" in page.content


# Cloudflare injects its bot-detection script into ordinary pages it serves (not only into its checks)
_CLOUDFLARE_JSD = (
    "<script>(function(){var a=document.createElement('script');"
    "a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.head.appendChild(a);})();</script>"
)


@pytest.mark.parametrize(
    ("title", "tail"),
    [("Release 2.4.1 | Tool blog", _CLOUDFLARE_JSD), ("One more step toward faster builds", ""),
     ("Captcha solving, explained", "")],
)  # fmt: skip
async def test_a_short_page_is_content_despite_a_bot_check_s_script_or_title_words(
    pages: PageServer, settings: Settings, cache: Cache, title: str, tail: str
):
    html = (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        "<p>Version 2.4.1 fixes a crash when the config file is empty.</p>"
        f"<p>Upgrading is recommended for everyone on the 2.4 line.</p></article>{tail}</body></html>"
    )
    pages.route("GET", "/short-post", Reply(body=html, content_type="text/html"))
    page = await fetch(pages.url("/short-post"), settings=settings, cache=cache)
    assert "fixes a crash when the config file is empty" in page.content
