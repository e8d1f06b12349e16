"""Brotli and zstd bombs, with their decoders installed (httpx then decodes both, a chunk at a
time, unbounded): weblens neither asks for them nor decodes them, on every path out — a
fetched page and a search provider's answer — so a few hundred bytes never become gigabytes."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

from weblens import Settings
from weblens.cache import Cache
from weblens.errors import WeblensError
from weblens.fetch import fetch
from weblens.search import search
from weblens.testing import FakeServer, Reply

brotli = pytest.importorskip("brotli", reason="pip install brotli (a dev extra) to run the brotli bomb tests")
zstandard = pytest.importorskip("zstandard", reason="pip install zstandard (a dev extra) to run the zstd bomb tests")

_MIB = 1 << 20
BOMB_BYTES = 256 * _MIB


@functools.cache
def _bomb(encoding: str) -> bytes:
    zeros = bytes(BOMB_BYTES)
    if encoding == "br":
        return bytes(brotli.compress(zeros, quality=5))  # 405 bytes
    return bytes(zstandard.ZstdCompressor(level=3).compress(zeros))


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


@pytest.fixture
def bombs() -> Iterator[FakeServer]:
    with FakeServer() as server:
        for encoding in ("br", "zstd"):
            bomb = Reply(body=_bomb(encoding), content_type="application/json", headers={"Content-Encoding": encoding})
            server.route("GET", f"/{encoding}/page", bomb)
            server.route("GET", f"/{encoding}/search", bomb)
        yield server




@pytest.mark.parametrize("encoding", ["br", "zstd"])
async def test_a_fetched_page_in_brotli_or_zstd_is_refused_undecoded(bombs: FakeServer, encoding: str) -> None:
    peak = _rss_kib()
    settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{bombs.port}"]})
    with pytest.raises(WeblensError) as caught:
        await fetch(bombs.url(f"/{encoding}/page"), settings=settings, cache=Cache(None))
    assert caught.value.code in ("upstream_error", "unsupported_content")
    assert encoding in caught.value.message
    assert _rss_kib() - peak < 64 * 1024  # the bomb was never inflated
    sent = bombs.requests[-1].headers.get("accept-encoding", "")
    assert "br" not in sent and "zstd" not in sent


@pytest.mark.parametrize("encoding", ["br", "zstd"])
async def test_a_search_answer_in_brotli_or_zstd_is_refused_undecoded(bombs: FakeServer, encoding: str) -> None:
    peak = _rss_kib()
    settings = Settings(searxng={"base_url": bombs.url(f"/{encoding}")}, search={"provider": ["searxng"]})
    with pytest.raises(WeblensError) as caught:
        await search("anything", settings=settings, cache=False)
    assert caught.value.code == "upstream_error"
    assert _rss_kib() - peak < 64 * 1024  # never the 256 MB the bomb holds
    sent = bombs.requests[-1].headers.get("accept-encoding", "")
    assert sent and "br" not in sent and "zstd" not in sent  # httpx's default would ask for both
