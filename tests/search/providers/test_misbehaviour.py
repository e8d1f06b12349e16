"""Every provider meets a broken upstream the same way: a clear error, never a hang or a crash."""

from __future__ import annotations

import asyncio
import tracemalloc

import pytest

from weblens.errors import ToolTimeoutError, UpstreamError, WeblensError
from weblens.search import search
from weblens.testing.providers import FakeBrave, FakeSearxng, FakeSerper, FakeTavily, ProviderFake

from ..conftest import settings_for

JSON_FAKES = [FakeBrave, FakeTavily, FakeSerper, FakeSearxng]


@pytest.fixture(params=JSON_FAKES, ids=lambda cls: cls.provider)
def fake(request: pytest.FixtureRequest) -> ProviderFake:
    server: ProviderFake = request.getfixturevalue(request.param.provider)
    return server


async def _search(fake: ProviderFake, **settings: object) -> None:
    overrides = {fake.provider: {"timeout": 0.5}, **settings}
    await search("q", provider=fake.provider, settings=settings_for(fake, **overrides))


@pytest.mark.parametrize("misbehave", ["malformed", "truncated"])
async def test_broken_json_is_an_upstream_error(misbehave: str, fake: ProviderFake) -> None:
    getattr(fake, misbehave)()
    with pytest.raises(UpstreamError) as info:
        await _search(fake)
    assert "malformed" in info.value.message and fake.provider in info.value.message


async def test_slow_upstream_times_out(fake: ProviderFake) -> None:
    fake.slow(5.0)
    with pytest.raises(ToolTimeoutError) as info:
        await _search(fake)
    assert "0.5 s" in info.value.message
    for _ in range(40):  # the request was closed, not abandoned: the server sees the client go
        if fake.disconnects:
            break
        await asyncio.sleep(0.05)
    assert fake.disconnects >= 1


async def test_slow_drip_hits_the_whole_request_deadline(fake: ProviderFake) -> None:
    fake.drip(chunk_bytes=64, interval_s=0.2)  # each read is quick; the whole body takes seconds
    with pytest.raises(ToolTimeoutError):
        await _search(fake)


async def test_many_megabytes_are_refused(fake: ProviderFake) -> None:
    fake.huge(mb=8)
    with pytest.raises(UpstreamError) as info:
        await _search(fake, **{fake.provider: {"timeout": 10}})
    assert "more than 5 MB" in info.value.message


async def test_a_gzip_bomb_stops_at_the_cap_in_bounded_memory(fake: ProviderFake) -> None:
    """256 kB of gzip inflating to 256 MB is refused having held about the 5 MB cap, not a
    whole network chunk inflated at once (~1 000× its size: 140-270 MB before)."""
    fake.bomb(mb=256)
    tracemalloc.start()
    try:
        with pytest.raises(UpstreamError, match="more than 5 MB"):
            await _search(fake, **{fake.provider: {"timeout": 10}})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024


async def test_unexpected_shape_is_tolerated(fake: ProviderFake) -> None:
    fake.fail(200, {"results": [{"title": "no url"}, "junk", {"url": 5}], "web": None, "organic": None})
    response = await search("q", provider=fake.provider, settings=settings_for(fake))
    assert response.results == []


async def test_error_body_without_json(fake: ProviderFake) -> None:
    fake.fail(502, "<html><body><h1>Bad Gateway</h1></body></html>")
    with pytest.raises(WeblensError) as info:
        await _search(fake)
    assert info.value.code == "upstream_error" and "HTTP 502" in info.value.message
    assert "Bad Gateway" in info.value.message and "<h1>" not in info.value.message
