"""A configured proxy carries the request; the guard still checks the target first."""

from __future__ import annotations

import pytest

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import BlockedError
from weblens.fetch import fetch
from weblens.testing import FakeServer, Reply


async def resolver(host: str, port: int) -> list[str]:
    return {"public.example": ["93.184.216.34"], "sneaky.example": ["10.1.2.3"]}[host]


async def test_requests_go_through_the_proxy() -> None:
    async with FakeServer() as proxy:
        proxy.route("GET", "http://public.example/page.txt", Reply(body="via proxy"))  # absolute-form target
        settings = Settings(fetch={"proxy": proxy.url()})
        page = await fetch("http://public.example/page.txt", settings=settings, cache=Cache(None), resolver=resolver)
        assert page.content == "via proxy"
        assert proxy.requests[0].headers["host"] == "public.example"


async def test_a_private_target_is_refused_before_the_proxy_sees_it() -> None:
    async with FakeServer() as proxy:
        settings = Settings(fetch={"proxy": proxy.url()})
        with pytest.raises(BlockedError, match=r"10\.1\.2\.3"):
            await fetch("http://sneaky.example/", settings=settings, cache=Cache(None), resolver=resolver)
        with pytest.raises(BlockedError):
            await fetch("http://169.254.169.254/", settings=settings, cache=Cache(None), resolver=resolver)
        assert proxy.requests == []


async def test_environment_proxies_work_and_no_proxy_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    async with FakeServer() as proxy, FakeServer() as direct:
        proxy.route("GET", "http://public.example/page.txt", Reply(body="via env proxy"))
        direct.route("GET", "/page.txt", Reply(body="direct"))
        monkeypatch.setenv("HTTP_PROXY", proxy.url())
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{direct.port}"]})
        page = await fetch("http://public.example/page.txt", settings=settings, cache=Cache(None), resolver=resolver)
        assert page.content == "via env proxy"
        assert (await fetch(direct.url("/page.txt"), settings=settings, cache=Cache(None))).content == "direct"
        assert direct.count("/page.txt") == 1
