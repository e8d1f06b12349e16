"""One pooled `httpx.AsyncClient` per event loop, and a factory for special-purpose ones."""

from __future__ import annotations

import asyncio
import weakref

import httpx

from weblens._version import __version__

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "USER_AGENT", "create_client", "shared_client"]

USER_AGENT = f"weblens/{__version__}"
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=30.0)
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()


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


def shared_client() -> httpx.AsyncClient:
    """The process's pooled client for the running event loop (created on first use)."""
    loop = asyncio.get_running_loop()
    client = _shared.get(loop)
    if client is None or client.is_closed:
        client = _shared[loop] = create_client()
    return client
