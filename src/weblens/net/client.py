"""HTTP client factories: httpx clients on weblens' aiohttp transport.

`create_client` is for trusted upstreams (search providers, the weather API, Firecrawl):
it honours `HTTP(S)_PROXY`, `ALL_PROXY` and `NO_PROXY`. Fetches of arbitrary URLs use
`weblens.net.guarded.guarded_client` instead.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import httpx

from weblens._version import __version__
from weblens.net.transport import DEFAULT_LIMITS, AiohttpTransport, ProxyTable

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "USER_AGENT", "HttpClient", "create_client", "shared_client"]

USER_AGENT = f"weblens/{__version__}"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

class _NoCookies(httpx.Cookies):
    def extract_cookies(self, response: httpx.Response) -> None:
        return None

    def set_cookie_header(self, request: httpx.Request) -> None:
        return None


class HttpClient(httpx.AsyncClient):
    """An `httpx.AsyncClient` that keeps no cookies.

    One client serves every user, session and page of a process: a cookie one page sets
    must not ride along on another user's next request to that site. (It also saves
    httpx's cookie bookkeeping on every response.) Pass cookies per request if needed.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._empty_jar = _NoCookies()
        super().__init__(**kwargs)

    @property
    def cookies(self) -> httpx.Cookies:
        return self._empty_jar

    @cookies.setter
    def cookies(self, cookies: object) -> None:
        raise TypeError("weblens' HTTP clients keep no cookies; pass them per request")


_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()


def create_client(
    *,
    timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    user_agent: str = USER_AGENT,
    proxy: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    limits: httpx.Limits = DEFAULT_LIMITS,
) -> HttpClient:
    """A new pooled client; redirects are never followed implicitly.

    `proxy` carries every request; without it the environment's proxies are used. The
    client may be built outside an event loop; its connections are made in the loop
    that first uses it.
    """
    if transport is None:
        proxies = ProxyTable.explicit(proxy) if proxy else ProxyTable.from_environment()
        transport = AiohttpTransport(limits=limits, proxies=proxies)
    return HttpClient(
        timeout=timeout,
        headers={"User-Agent": user_agent},
        transport=transport,
        follow_redirects=False,
        trust_env=False,  # the transport reads the proxy variables itself (SOCKS included)
    )


def shared_client() -> httpx.AsyncClient:
    """The process's pooled client for the running event loop (created on first use)."""
    loop = asyncio.get_running_loop()
    client = _shared.get(loop)
    if client is None or client.is_closed:
        client = _shared[loop] = create_client()
    return client
