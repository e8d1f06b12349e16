"""Networking shared by every upstream: the HTTP client factory and error translation.

Only this package builds httpx objects or catches httpx exceptions.
"""

from weblens.net.client import (
    DEFAULT_LIMITS,
    USER_AGENT,
    ClientGetter,
    HttpSource,
    LazyClient,
    create_client,
    getter_for,
)
from weblens.net.errors import error_for_status, parse_retry_after, translate_errors

__all__ = [
    "DEFAULT_LIMITS",
    "USER_AGENT",
    "ClientGetter",
    "HttpSource",
    "LazyClient",
    "create_client",
    "error_for_status",
    "getter_for",
    "parse_retry_after",
    "translate_errors",
]
