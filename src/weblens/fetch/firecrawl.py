"""Firecrawl's scrape API (hosted or self-hosted): a URL to markdown through their browser farm.

Errors map onto weblens codes: 400 validation_error, 401 not_configured, 402 (no credits)
upstream_error, 403 blocked, 408 timeout, 429 rate_limited (the wait is in the message,
not a header), 5xx upstream_error. A 200 can carry the *target's* failure in
`metadata.statusCode`; that is reported as the page's error, not as a success.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from weblens.config import FirecrawlConfig, setting_hint
from weblens.errors import (
    BlockedError,
    NotConfiguredError,
    NotFoundError,
    RateLimitedError,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
    WeblensError,
)
from weblens.net import HttpSource, create_client, getter_for, parse_retry_after, translate_errors
from weblens.net.body import read_answer
from weblens.net.ssrf import SsrfGuard
from weblens.net.urls import web_url
from weblens.redact import redact_text, register_secret

__all__ = ["FirecrawlClient", "FirecrawlPage"]

_SCRAPE_PATH = "/v1/scrape"
_FORMATS = {"markdown": "markdown", "html": "html", "text": "markdown", "rawHtml": "rawHtml"}
_RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?)\s*s", re.I)
_MS = 1000


@dataclass
class FirecrawlPage:
    content: str
    title: str
    source_url: str
    status_code: int
    links: list[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _error_text(response: httpx.Response) -> str:
    return redact_text(_said(response))  # an echoed key must not reach messages or details


def _said(response: httpx.Response) -> str:
    try:
        body = response.json()
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser can follow
        return response.text[:300]
    if isinstance(body, dict):
        return str(body.get("error") or body.get("message") or body.get("code") or "")[:500]
    return ""


MAX_BODY_BYTES = 64 * 1024 * 1024
"""A scrape's JSON (the page as markdown, and HTML when asked) past this is refused, not held."""


async def _capped(
    client: httpx.AsyncClient, endpoint: str, payload: dict[str, Any], headers: dict[str, str], timeout: float
) -> httpx.Response:
    async with client.stream("POST", endpoint, json=payload, headers=headers, timeout=timeout) as response:
        body = await read_answer(response, MAX_BODY_BYTES, "Firecrawl", "nothing was kept")
    kept = [(name, value) for name, value in response.headers.multi_items() if name not in _DECODED_HEADERS]
    return httpx.Response(response.status_code, headers=kept, content=body, request=response.request)


_DECODED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _api_error(response: httpx.Response) -> WeblensError:
    status = response.status_code
    said = _error_text(response)
    message = f"Firecrawl answered HTTP {status}" + (f": {said}" if said else "")
    if status == 400:
        return ToolValidationError(message)
    if status == 401:
        return NotConfiguredError(f"{message}; {setting_hint('firecrawl', 'api_key')}")
    if status == 402:
        return UpstreamError(f"{message} (out of Firecrawl credits)", status=status, retryable=False)
    if status == 403:
        return BlockedError(message)
    if status == 408:
        return ToolTimeoutError(message)
    if status == 429:
        match = _RETRY_AFTER.search(said)
        wait = float(match.group(1)) if match else parse_retry_after(response.headers)
        return RateLimitedError(message, retry_after_s=wait)
    return UpstreamError(message, status=status)


class FirecrawlClient:
    """POST {base_url}/v1/scrape with a Bearer key; returns the page or raises a WeblensError.

    Without `client` (a runtime's, say) each call makes a client and closes it after.
    `guard` is the fetch policy (`weblens.fetch.client.guard_for(settings.fetch)`): a URL
    web_fetch would refuse (metadata, loopback, private, `file:`) is never sent to Firecrawl.
    Without one, the strict default applies."""

    def __init__(
        self,
        config: FirecrawlConfig,
        client: HttpSource | None = None,
        *,
        api_key: str | None = None,
        guard: SsrfGuard | None = None,
    ) -> None:
        key = api_key or (config.api_key.get_secret_value() if config.api_key else None)
        if not key:
            raise NotConfiguredError(f"Firecrawl needs an API key: {setting_hint('firecrawl', 'api_key')}")
        register_secret(key)  # a key passed in (not from settings) must be masked in errors too
        self._key = key
        self._config = config
        self._client = getter_for(client) if client is not None else None
        self._guard = guard or SsrfGuard()

    async def _post(self, endpoint: str, payload: dict[str, Any], *, timeout: float) -> httpx.Response:
        """The answer, its body read under `MAX_BODY_BYTES` after decompression (a gzip bomb stops there)."""
        headers = {"Authorization": f"Bearer {self._key}"}
        if self._client is not None:
            return await _capped(self._client(), endpoint, payload, headers, timeout)
        async with create_client() as own:
            return await _capped(own, endpoint, payload, headers, timeout)

    async def scrape(
        self,
        url: str,
        *,
        formats: Sequence[str] = ("markdown",),
        include_links: bool = False,
        timeout_s: float | None = None,
    ) -> FirecrawlPage:
        await self._guard.check_target(url)
        wanted = list(dict.fromkeys(_FORMATS.get(f, f) for f in formats)) or ["markdown"]
        if include_links and "links" not in wanted:
            wanted.append("links")
        limit = min(timeout_s or self._config.timeout, self._config.timeout)
        payload = {"url": url, "formats": wanted, "timeout": int(limit * _MS)}
        endpoint = self._config.base_url.rstrip("/") + _SCRAPE_PATH
        with translate_errors("Firecrawl"):
            response = await self._post(endpoint, payload, timeout=limit + 5.0)  # Firecrawl's own 408 comes first
        if response.status_code >= 400:
            raise _api_error(response)
        try:
            body = response.json()
        except (ValueError, RecursionError):
            raise UpstreamError("Firecrawl answered something that is not JSON", status=response.status_code) from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(body, dict) or not body.get("success") or not isinstance(data, dict):
            said = body.get("error", "") if isinstance(body, dict) else ""
            raise UpstreamError(f"Firecrawl did not scrape {url}: {said}")
        found = data.get("metadata")
        metadata: dict[str, Any] = found if isinstance(found, dict) else {}
        try:
            status = int(metadata.get("statusCode") or 200)
        except (TypeError, ValueError):  # a shape Firecrawl does not document: the scrape itself succeeded
            status = 200
        # the page's own URL as Firecrawl reports it, when it is a web link; else the one asked for
        source = web_url(metadata.get("sourceURL") or metadata.get("url")) or url
        if status >= 400:
            details = {"status": status, "url": source}
            if status in (404, 410):
                raise NotFoundError(f"Firecrawl fetched {source}, but the page answered HTTP {status}", details=details)
            raise UpstreamError(f"Firecrawl fetched {source}, but the page answered HTTP {status}", status=status)
        content = data.get("markdown") or data.get("html") or data.get("rawHtml") or ""
        links = [str(link) for link in data.get("links") or []] if include_links else None
        return FirecrawlPage(str(content), str(metadata.get("title") or ""), source, status, links, metadata)
