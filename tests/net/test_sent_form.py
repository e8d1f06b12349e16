"""`sent_form` is what weblens' guarded client really puts on the wire: checked against what a
server receives (Host header and request target) for the spellings URL provenance must tell apart."""

from __future__ import annotations

import contextlib

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import WeblensError
from weblens.net.urls import sent_form
from weblens.runtime import Runtime
from weblens.testing.dns import MappedResolver
from weblens.testing.server import FakeServer, Reply

NAMES = {"strasse.example": ["127.0.0.1"], "xn--strae-oqa.example": ["127.0.0.1"]}


@pytest.mark.parametrize(
    "spelling",
    [
        "http://strasse.example:PORT/collect?utm_source=SECRET&fbclid=1",
        "http://straße.example:PORT/collect",
        "http://STRASSE.example:PORT/SECRET/%2e%2e/collect",
        "http://strasse.example:PORT/a/../collect",
        "http://strasse.example:PORT/caf%C3%A9 x?q=a b#fragment",
    ],
)
async def test_what_is_compared_is_what_the_server_receives(spelling: str) -> None:
    with FakeServer() as server:
        server.route("GET", "/collect", Reply(body="ok"))
        url = spelling.replace("PORT", str(server.port))
        settings = Settings(fetch={"allowed_hosts": [f"{name}:{server.port}" for name in NAMES]})
        async with Runtime(settings=settings, cache=Cache(None), resolver=MappedResolver(NAMES)) as runtime:
            with contextlib.suppress(WeblensError):  # a 404 still arrived
                await runtime.fetcher.fetch(url, respect_robots=False)
        [request] = [r for r in server.requests if r.path != "/robots.txt"]

    assert sent_form(url) == f"http://{request.headers['host']}{request.target}"


def test_userinfo_and_unsendable_urls_have_no_sent_form() -> None:
    assert sent_form("https://SECRET:x@news.example/") is None  # sent as an Authorization header
    assert sent_form("https://ＥＸ.example/") is None  # not IDNA 2008: the client refuses it
    assert sent_form("https:/news.example/") is None
    assert sent_form("https://News.Example:443/a#b") == "https://news.example/a"
