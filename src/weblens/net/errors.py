"""Translate httpx failures and HTTP error statuses into weblens errors, in one place."""

from __future__ import annotations

import email.utils
import math
import socket
import ssl
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Literal

import httpx

from weblens.errors import (
    NotConfiguredError,
    NotFoundError,
    RateLimitedError,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
    WeblensError,
)
from weblens.net.ssrf import ResolveError

__all__ = ["NetworkFailure", "error_for_status", "network_failure", "parse_retry_after", "translate_errors"]

# Most specific first: the first matching class wins.
_TRANSLATION: tuple[tuple[type[Exception], type[WeblensError], str, bool], ...] = (
    (httpx.TimeoutException, ToolTimeoutError, "{what} timed out", True),
    (httpx.ConnectError, UpstreamError, "could not connect to {what}: {exc}", True),
    (httpx.TooManyRedirects, UpstreamError, "{what} redirected too many times", False),
    (httpx.UnsupportedProtocol, ToolValidationError, "unsupported URL scheme for {what}: {exc}", False),
    (httpx.InvalidURL, ToolValidationError, "invalid URL for {what}: {exc}", False),
    (httpx.DecodingError, UpstreamError, "{what} sent a body that could not be decoded: {exc}", False),
    (httpx.RemoteProtocolError, UpstreamError, "{what} broke the connection: {exc}", True),
    (httpx.NetworkError, UpstreamError, "network error talking to {what}: {exc}", True),
    (httpx.ProxyError, UpstreamError, "proxy error reaching {what}: {exc}", True),
    (httpx.HTTPError, UpstreamError, "HTTP error talking to {what}: {exc}", True),
    (httpx.StreamError, UpstreamError, "stream error from {what}: {exc}", False),
)


NetworkFailure = Literal["dns", "refused", "proxy", "tls"]
"""Why a connection failed, in `UpstreamError.details["network"]`: what the hint is chosen by."""
_OFFLINE_HINT = "no DNS or no internet from here? Behind a proxy, set HTTPS_PROXY (and HTTP_PROXY)"
_HINTS: dict[NetworkFailure, str] = {
    "dns": _OFFLINE_HINT,
    "proxy": "check the proxy in HTTPS_PROXY / HTTP_PROXY (address, port, credentials), or unset it",
    "refused": "nothing is listening there: is the server running and the port right? "
    "Behind a proxy, set HTTPS_PROXY (and HTTP_PROXY)",
}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def network_failure(exc: BaseException) -> NetworkFailure | None:
    """What kind of connection failure `exc` (an httpx error, or a weblens error raised from one) was."""
    for cause in _causes(exc):
        if isinstance(cause, httpx.ProxyError) or type(cause).__name__.startswith("ClientProxy"):
            return "proxy"
        if isinstance(cause, ssl.SSLError):
            return "tls"
        if isinstance(cause, socket.gaierror | ResolveError):
            return "dns"
        if isinstance(cause, ConnectionRefusedError):
            return "refused"
    return None


def _translate(exc: Exception, what: str) -> WeblensError | None:
    for exc_type, error_cls, template, retryable in _TRANSLATION:
        if isinstance(exc, exc_type):
            message = template.format(what=what, exc=str(exc) or type(exc).__name__)
            if error_cls is ToolValidationError:
                return ToolValidationError(message, [{"field": "url", "message": message, "type": "url"}])
            failure = network_failure(exc) if isinstance(exc, httpx.TransportError) else None
            if failure is None:
                return error_cls(message, retryable=retryable)
            hint = _HINTS.get(failure)
            return error_cls(
                f"{message} ({hint})" if hint else message, retryable=retryable, details={"network": failure}
            )
    return None


@contextmanager
def translate_errors(what: str) -> Iterator[None]:
    """Re-raise any httpx exception inside the block as the matching weblens error."""
    try:
        yield
    except (httpx.HTTPError, httpx.StreamError, httpx.InvalidURL) as exc:
        translated = _translate(exc, what)
        if translated is None:  # pragma: no cover - the table ends with the base classes
            raise
        raise translated from exc


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from `Retry-After` (seconds or HTTP date) or `X-RateLimit-Reset`."""
    now = time.time() if now is None else now
    value = headers.get("retry-after", "").strip()
    if value:
        try:
            return _finite(float(value))
        except ValueError:
            pass
        try:  # a site writes what it likes here: a date that is none ("soon") is no wait, not a crash
            parsed = email.utils.parsedate_to_datetime(value)
        except (ValueError, TypeError, IndexError, OverflowError):
            parsed = None
        if parsed is not None:
            return _finite(parsed.timestamp() - now)
    reset = headers.get("x-ratelimit-reset")
    if reset:
        try:
            first = float(reset.split(",")[0].strip())
        except ValueError:
            return None
        # epoch seconds when large, else seconds from now (Brave sends seconds)
        return _finite(first - now if first > 1_000_000_000 else first)
    return None


def _finite(seconds: float) -> float | None:
    """A wait that can be slept: NaN and infinity (`Retry-After: inf`) are no wait given."""
    return max(0.0, seconds) if math.isfinite(seconds) else None


def error_for_status(
    status: int,
    *,
    provider: str,
    detail: str = "",
    headers: Mapping[str, str] | None = None,
    key_hint: str = "",
) -> WeblensError:
    """The weblens error for an HTTP error status from `provider`, with its description."""
    said = f": {detail}" if detail else ""
    if status == 429:
        retry_after = parse_retry_after(headers or {})
        return RateLimitedError(f"{provider} is rate limiting requests (HTTP 429){said}", retry_after_s=retry_after)
    if status in (401, 403):
        hint = f"; {key_hint}" if key_hint else ""
        return NotConfiguredError(f"{provider} refused the credentials (HTTP {status}){said}{hint}")
    if status == 404:
        return NotFoundError(f"{provider} answered HTTP 404 (not found){said}")
    retry_after = parse_retry_after(headers or {}) if status == 503 else None
    return UpstreamError(f"{provider} answered HTTP {status}{said}", status=status, retry_after_s=retry_after)
