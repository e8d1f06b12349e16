"""Networking shared by every upstream: the pooled HTTP client and error translation.

Only this package builds httpx objects or catches httpx exceptions.
"""

from weblens.net.client import DEFAULT_LIMITS, USER_AGENT, create_client, shared_client
from weblens.net.errors import error_for_status, parse_retry_after, translate_errors

__all__ = [
    "DEFAULT_LIMITS",
    "USER_AGENT",
    "create_client",
    "error_for_status",
    "parse_retry_after",
    "shared_client",
    "translate_errors",
]
