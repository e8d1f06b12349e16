"""Networking shared by every upstream: HTTP client factories, the SSRF guard, error translation.

Only this package builds httpx objects or catches httpx exceptions. Clients speak httpx's
API over aiohttp (`weblens.net.transport`); `weblens.net.guarded.guarded_client` is the
one that fetches arbitrary URLs.
"""

from weblens.net.client import (
    DEFAULT_LIMITS,
    USER_AGENT,
    ClientGetter,
    HttpClient,
    HttpSource,
    LazyClient,
    create_client,
    getter_for,
)
from weblens.net.errors import error_for_status, parse_retry_after, translate_errors
from weblens.net.urls import web_url

__all__ = [
    "DEFAULT_LIMITS",
    "USER_AGENT",
    "ClientGetter",
    "HttpClient",
    "HttpSource",
    "LazyClient",
    "create_client",
    "error_for_status",
    "getter_for",
    "parse_retry_after",
    "translate_errors",
    "web_url",
]
