"""Download one URL safely: guarded pooled client, redirects re-checked, body capped while read.

Redirects are followed here, one hop at a time, so every hop passes the SSRF guard, the
operator's domain policy (and robots.txt when asked). The body is read by `weblens.net.body.read_capped`,
so the byte cap applies to the decompressed size: a gzip bomb stops at the cap.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from weblens.config import FetchConfig
from weblens.errors import (
    BlockedError,
    NotFoundError,
    RateLimitedError,
    UpstreamError,
    WeblensError,
)
from weblens.net import parse_retry_after, translate_errors
from weblens.net.body import read_capped
from weblens.net.guarded import guarded_client, is_guarded
from weblens.net.ssrf import Resolver, SsrfGuard, default_port
from weblens.progress import report

__all__ = [
    "REDIRECT_STATUSES",
    "Downloaded",
    "UrlCheck",
    "download",
    "fetch_client",
    "forbids_storing",
    "guard_for",
    "status_error",
]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_CHALLENGE_STATUSES = frozenset({403, 503})  # what bot-check services answer with
_CHALLENGE_SNIFF_BYTES = 64 * 1024
_ACCEPT = "text/html,application/xhtml+xml,text/plain,text/markdown,application/json,application/pdf;q=0.9,*/*;q=0.5"
_HEADERS = {"Accept": _ACCEPT, "Accept-Encoding": "gzip, deflate"}
RobotsCheck = Callable[[httpx.URL], Awaitable[None]]
UrlCheck = Callable[[str], None]
"""Raises when a URL may not be requested (the domain policy's `check`)."""


@dataclass
class Downloaded:
    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes
    fetched_at: float = field(default_factory=time.time)
    """When the body had arrived (Unix time): a page's age counts from here, not from when it was read."""
    no_store: bool = False
    """The site sent `Cache-Control: no-store`: the page must not be kept in a cache."""


def forbids_storing(headers: httpx.Headers) -> bool:
    """Whether the response's Cache-Control says `no-store` (RFC 9111 5.2.2.5)."""
    directives = (part.split("=", 1)[0].strip().lower() for value in headers.get_list("cache-control")
                  for part in value.split(","))  # fmt: skip
    return "no-store" in directives


def guard_for(config: FetchConfig, resolver: Resolver | None = None) -> SsrfGuard:
    return SsrfGuard(allow_private=config.allow_private, allowed_hosts=config.allowed_hosts, resolver=resolver)


def fetch_client(config: FetchConfig, guard: SsrfGuard) -> httpx.AsyncClient:
    """A new pooled client for these settings whose every connection passes `guard`."""
    return guarded_client(
        guard,
        timeout_s=config.timeout,
        connect_timeout_s=config.connect_timeout,
        user_agent=config.user_agent,
        proxy=config.proxy,
    )


def status_error(status: int, url: str, headers: httpx.Headers) -> WeblensError:
    """The error for an HTTP error status of the page itself."""
    said = f"{url} answered HTTP {status}"
    details = {"status": status, "url": url}
    if status in (404, 410):
        return NotFoundError(f"{said} (not found)", details=details)
    if status == 429:
        wait = parse_retry_after(headers)
        return RateLimitedError(f"{said} (too many requests)", retry_after_s=wait, details=details)
    retry_after = parse_retry_after(headers) if status == 503 else None
    return UpstreamError(said, status=status, retry_after_s=retry_after, details=details)


async def _bot_check(response: httpx.Response, url: str) -> BlockedError | None:
    """A 403/503 that is a bot check, not the site failing: retrying it or waiting cannot help."""
    if response.headers.get("cf-mitigated", "").strip().lower() == "challenge":
        kind: str | None = "bot_challenge"
    elif "html" in response.headers.get("content-type", "").lower():
        from weblens.fetch.html import wall_kind  # lxml and trafilatura: only when such a page comes

        try:
            head = await read_capped(response, _CHALLENGE_SNIFF_BYTES, truncate=True)
        except WeblensError:
            return None
        kind = wall_kind(head.decode("utf-8", "replace"))
    else:
        return None
    if kind != "bot_challenge":
        return None
    return BlockedError(
        f"{url} answered HTTP {response.status_code} with a bot check instead of the page; weblens cannot pass it",
        details={"reason": kind, "status": response.status_code, "url": url},
    )


async def download(
    url: httpx.URL,
    *,
    client: httpx.AsyncClient,
    guard: SsrfGuard,
    config: FetchConfig,
    robots: RobotsCheck | None = None,
    policy: UrlCheck | None = None,
) -> Downloaded:
    """GET `url`, following up to `config.max_redirects` redirects, each checked again."""
    current = url
    pinned = is_guarded(client)
    for _ in range(config.max_redirects + 1):
        if policy is not None:  # before anything is sent to the host, robots.txt included
            policy(str(current))
        if not pinned:  # a caller's own client: check what the name resolves to first
            await guard.resolve(current.host, current.port or default_port(current.scheme))
        if robots is not None:
            await robots(current)
        report(f"connecting to {current.host}")
        with translate_errors(current.host):
            # never the client's own redirect following: each hop must pass the guard above
            async with client.stream("GET", current, headers=_HEADERS, follow_redirects=False) as r:
                if r.status_code in REDIRECT_STATUSES and "location" in r.headers:
                    current = guard.check_url(current.join(r.headers["location"]))
                    continue
                if r.status_code in _CHALLENGE_STATUSES and (wall := await _bot_check(r, str(current))):
                    raise wall
                if r.status_code >= 400:
                    raise status_error(r.status_code, str(current), r.headers)
                body = await read_capped(r, config.max_bytes, setting="fetch.max_bytes")
                content_type = r.headers.get("content-type", "")
                no_store = forbids_storing(r.headers)
        return Downloaded(str(url), str(current), r.status_code, content_type, body, no_store=no_store)
    raise UpstreamError(
        f"{url} redirected more than {config.max_redirects} times (fetch.max_redirects)", retryable=False
    )
