"""The factory for weblens' HTTP clients, and a holder that builds one on first use.

Clients speak httpx's API over weblens' aiohttp transport (`weblens.net.transport`).
`create_client` is for trusted upstreams (search providers, the weather API, Firecrawl)
and honours `HTTP(S)_PROXY`, `ALL_PROXY` (SOCKS too) and `NO_PROXY`; fetches of arbitrary
URLs use `weblens.net.guarded.guarded_client`.

No client lives at module level: the `Runtime` (or a one-off call) owns its clients
and closes them. Building a client loads the CA bundle (a tenth of a second or more
on a busy machine), so owners build theirs lazily with `LazyClient`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from weblens._version import __version__
from weblens.net.transport import DEFAULT_LIMITS, AiohttpTransport, ProxyTable

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUT",
    "USER_AGENT",
    "ClientGetter",
    "HttpClient",
    "HttpSource",
    "LazyClient",
    "create_client",
    "getter_for",
]

USER_AGENT = f"weblens/{__version__}"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

ClientGetter = Callable[[], httpx.AsyncClient]
HttpSource = httpx.AsyncClient | ClientGetter
"""A client, or a getter that returns the owner's client (built on first use)."""


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


def getter_for(source: HttpSource) -> ClientGetter:
    """A getter for `source`, whether it is a client or already a getter."""
    if isinstance(source, httpx.AsyncClient):
        return lambda: source
    return source


class LazyClient:
    """A client built by `factory` on first use; the owner closes it with `aclose()`."""

    def __init__(self, factory: ClientGetter = create_client) -> None:
        self._factory = factory
        self._client: httpx.AsyncClient | None = None

    def __call__(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = self._factory()
        return self._client

    @property
    def built(self) -> bool:
        return self._client is not None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
