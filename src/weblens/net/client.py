"""The factory for weblens' HTTP clients, and a holder that builds one on first use.

No client lives at module level: the `Runtime` (or a one-off call) owns its clients
and closes them. Building a client loads the CA bundle (a tenth of a second or more
on a busy machine), so owners build theirs lazily with `LazyClient`.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from weblens._version import __version__

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUT",
    "USER_AGENT",
    "ClientGetter",
    "HttpSource",
    "LazyClient",
    "create_client",
    "getter_for",
]

USER_AGENT = f"weblens/{__version__}"
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=30.0)
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

ClientGetter = Callable[[], httpx.AsyncClient]
HttpSource = httpx.AsyncClient | ClientGetter
"""A client, or a getter that returns the owner's client (built on first use)."""


def create_client(
    *,
    timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    user_agent: str = USER_AGENT,
    proxy: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    limits: httpx.Limits = DEFAULT_LIMITS,
) -> httpx.AsyncClient:
    """A new client with weblens' defaults; redirects are never followed implicitly."""
    return httpx.AsyncClient(
        timeout=timeout,
        headers={"User-Agent": user_agent},
        proxy=proxy,
        transport=transport,
        limits=limits,
        follow_redirects=False,
        trust_env=proxy is None,
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
