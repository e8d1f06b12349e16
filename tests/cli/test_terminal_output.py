"""What a person sees in a terminal: page and provider text printed as written, progress on stderr."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from weblens.testing.pages import PageServer
from weblens.testing.providers import FakeBrave
from weblens.testing.server import Reply

TRICKY_TITLES = ["C arrays a[/] b", "[PDF] annual report [bold]x", "Indexing arr[i] in :smile: loops"]


@pytest.fixture
def brave() -> Iterator[FakeBrave]:
    with FakeBrave() as fake:
        yield fake


def brave_env(brave: FakeBrave) -> dict[str, str]:
    return {
        "WEBLENS_BRAVE_BASE_URL": brave.url(),
        "BRAVE_API_KEY": brave.api_key,
        "WEBLENS_BRAVE_REQUESTS_PER_SECOND": "1000",
        "WEBLENS_CACHE_ENABLED": "false",
    }


def tricky_results() -> dict[str, Any]:
    results = [
        {"title": title, "url": f"https://example.org/{n}", "description": f"snippet {title} [link](x) [/]"}
        for n, title in enumerate(TRICKY_TITLES)
    ]
    return {"type": "search", "web": {"type": "search", "results": results}}


def test_titles_and_snippets_print_as_written_not_as_markup(terminal: Callable[..., Any], brave: FakeBrave) -> None:
    brave.misbehave(Reply(body=tricky_results()))

    run = terminal("search", "C arrays a[/] b", "-n", "3", env=brave_env(brave))

    assert run.wait() == 0, run.err
    shown = " ".join(run.out.split())  # the table wraps long cells
    for title in TRICKY_TITLES:
        for word in title.split():
            assert word in shown, (word, run.out)
    assert "MarkupError" not in run.err and "Traceback" not in run.err


def test_the_missing_key_hint_keeps_its_section_name(terminal: Callable[..., Any]) -> None:
    run = terminal("search", "q", "--provider", "brave")

    assert run.wait() == 2
    assert "BRAVE_API_KEY" in run.err and "under [brave] in" in run.err


def test_a_fetched_title_with_brackets_shows_whole(
    terminal: Callable[..., Any], pages: PageServer
) -> None:
    html = "<html><head><title>[Draft] arr[i] and [bold]x[/]</title></head><body><article>"
    html += "<p>The lighthouse keeper wrote every night about the weather and the ships.</p>" * 20
    pages.route("GET", "/bracketed", Reply(body=html + "</article></body></html>", content_type="text/html"))

    run = terminal("fetch", pages.url("/bracketed"), env={"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host})

    assert run.wait() == 0, run.err
    assert "[Draft] arr[i] and [bold]x[/]" in run.out
    assert "lighthouse keeper" in run.out


def test_a_slow_search_shows_which_provider_is_asked_on_stderr_only(
    terminal: Callable[..., Any], run_piped: Callable[..., Any], brave: FakeBrave
) -> None:
    brave.slow(2.5)

    run = terminal("search", "slow query", env=brave_env(brave))
    run.expect("asking brave")
    assert run.wait() == 0, run.err
    assert "searching for 'slow query'" in run.err
    assert "asking brave" not in run.out

    brave.slow(1.0)
    quiet = run_piped("search", "slow query", env=brave_env(brave))  # a script: no spinner anywhere
    assert quiet.returncode == 0 and "asking" not in quiet.stderr and "asking" not in quiet.stdout
    assert json.loads(quiet.stdout)["data"]["provider"] == "brave"


def test_a_slow_fetch_shows_bytes_received(terminal: Callable[..., Any], pages: PageServer) -> None:
    body = "<html><body><article>" + "<p>Slow words arrive one by one.</p>" * 300 + "</article></body></html>"
    pages.route("GET", "/slow", Reply(body=body, content_type="text/html", drip=(2048, 0.3)))

    run = terminal("fetch", pages.url("/slow"), env={"WEBLENS_FETCH_ALLOWED_HOSTS": pages.host})
    run.expect("bytes received")

    assert run.wait() == 0, run.err
    assert "bytes received" not in run.out and "Slow words arrive" in run.out
