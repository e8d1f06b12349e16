"""weblens' guard proxy, through which a browser's own requests go (weblens.browser.proxy)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from weblens.browser.proxy import GuardProxy
from weblens.net.guarded import fetch_proxies
from weblens.net.ssrf import SsrfGuard


def _no_client() -> object:
    raise AssertionError("nothing is fetched in these tests")


async def test_closing_the_proxy_with_a_browser_connection_open_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Closing stdin mid-render ends the proxy with the browser's connection still open: the connection ends
    quietly (on Python 3.11 a handler ending cancelled put an asyncio traceback on the gateway's stderr)."""
    proxy = GuardProxy(
        SsrfGuard(allow_private=False),
        _no_client,  # type: ignore[arg-type]
        lambda url: None,
        upstream=fetch_proxies(None),
        connect_timeout_s=5.0,
        max_bytes=1_000_000,
    )
    await proxy.start()
    host, port = proxy.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"GET http://example.com/ HTTP/1.1\r\n")  # half a request: the proxy waits for the rest
    await writer.drain()
    for _ in range(100):
        if proxy.requests or proxy._connections:
            break
        await asyncio.sleep(0.01)
    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        await proxy.aclose()
        await asyncio.sleep(0.05)  # the server's done callbacks run
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == []
    try:
        rest = await reader.read()
    except ConnectionResetError:  # closed with the half request unread: a reset
        rest = b""
    assert rest == b""  # the browser sees its connection end
    writer.close()
