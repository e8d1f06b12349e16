"""The provider contract, the one registry of providers, and the HTTP plumbing they share.

A provider module only says where to send a query and how to read the answer; the
request deadline, the body-size cap, error bodies and status codes are handled here,
the same way for all of them. Choosing a provider is a lookup in `PROVIDERS`.
"""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import httpx

from weblens.config import ProviderConfig, Settings, setting_hint
from weblens.errors import (
    NotConfiguredError,
    RateLimitedError,
    ToolTimeoutError,
    UpstreamError,
    WeblensError,
)
from weblens.metrics import Metrics
from weblens.net import HttpSource, error_for_status, getter_for, parse_retry_after, translate_errors
from weblens.net.body import read_answer
from weblens.net.urls import web_url
from weblens.policy.state import LocalPolicyState, PolicyState
from weblens.redact import mask_url, redact_text, redact_values
from weblens.search.keys import KEY_PROBLEM, KeyPool, fingerprint
from weblens.search.models import (
    MAX_DATE_CHARS,
    MAX_SNIPPET_CHARS,
    MAX_TITLE_CHARS,
    ProviderAnswer,
    SearchKind,
    SearchRequest,
    SearchResult,
    clean_text,
    shortened,
)

__all__ = [
    "MAX_BODY_BYTES",
    "PROVIDERS",
    "UPSTREAM_MAX_RESULTS",
    "HttpProvider",
    "HttpReply",
    "SearchProvider",
    "describe_error",
    "is_configured",
    "register",
    "without_secrets",
]

MAX_BODY_BYTES = 5 * 1024 * 1024
"""A search answer is a few kB; anything past this is not one."""
UPSTREAM_MAX_RESULTS = 20
"""How many results to ask for when weblens filters domains itself (more to choose from)."""
_DETAIL_MAX_CHARS = 300


@runtime_checkable
class SearchProvider(Protocol):
    """One search API. `requires` is the setting in its config section that must be set;
    `native_params` names the optional parameters (`SEARCH_PARAMS`) it applies itself."""

    @property
    def name(self) -> str: ...

    @property
    def requires(self) -> str | None: ...

    @property
    def kinds(self) -> frozenset[SearchKind]: ...

    def native_params(self, request: SearchRequest) -> frozenset[str]: ...

    async def search(self, request: SearchRequest) -> ProviderAnswer: ...


PROVIDERS: dict[str, type[HttpProvider]] = {}
"""Every provider by name; the router, the CLI and config validation read this."""

P = TypeVar("P", bound="type[HttpProvider]")


def register(cls: P) -> P:
    PROVIDERS[cls.name] = cls
    return cls


def is_configured(name: str, settings: Settings) -> bool:
    """Whether the provider's required setting (key or base URL) is present."""
    requires = PROVIDERS[name].requires
    if requires is None:
        return True
    value = getattr(getattr(settings, name), requires)
    return value is not None and value != ""


def describe_error(body: bytes) -> str:
    """The provider's own words from an error body, whichever documented shape it uses.

    A key the provider echoes back is masked here, so it reaches no message, failure list or log."""
    text = redact_text(body.decode("utf-8", "replace").strip())
    try:
        found = _find_message(json.loads(text))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser can follow
        found = ""
    return found[:_DETAIL_MAX_CHARS] or clean_text(text)[:_DETAIL_MAX_CHARS]


def _find_message(data: Any) -> str:
    # Brave {"error": {"detail"}} / {"errors": [{"detail"}]}, Tavily {"detail": {"error"}},
    # Serper {"message"}, SearXNG {"error": "..."}, Tavily keyless {"error": {"message"}}.
    if isinstance(data, str):
        return data
    if isinstance(data, list):
        return next((m for m in map(_find_message, data) if m), "")
    if isinstance(data, Mapping):
        for key in ("detail", "message", "error", "errors", "reason"):
            found = _find_message(data.get(key))
            if found:
                return found
    return ""


@dataclass(frozen=True)
class HttpReply:
    """A finished upstream answer: status, headers and the whole (capped) body."""

    status: int
    headers: httpx.Headers
    body: bytes
    text: str


class HttpProvider:
    """Shared plumbing: base URL, the key pool, a hard per-request deadline, capped bodies, errors.

    A provider module implements `ask(request, key)`; `search` picks the key and moves on
    to the next one in the pool when the provider refuses a key or says it is spent.
    """

    name: ClassVar[str]
    requires: ClassVar[str | None] = "api_key"
    kinds: ClassVar[frozenset[SearchKind]] = frozenset({"search"})
    native: ClassVar[frozenset[str]] = frozenset()
    """Optional parameters (`SEARCH_PARAMS`) this provider's API applies itself."""
    auth_statuses: ClassVar[frozenset[int]] = frozenset({401, 403})
    """Statuses that mean the key was refused (Brave adds 422)."""
    quota_statuses: ClassVar[frozenset[int]] = frozenset({402})
    """Statuses that mean the key's plan limit was reached (Tavily adds 432/433)."""

    def __init__(
        self,
        settings: Settings,
        client: HttpSource,
        *,
        state: PolicyState | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.config: ProviderConfig = getattr(settings, self.name)
        self._client = getter_for(client)
        self.keys = KeyPool(
            self.name,
            self.config.keys() if self.requires == "api_key" else [],
            state if state is not None else LocalPolicyState(),
            refused_cooldown_s=settings.search.key_cooldown_s,
            quota_cooldown_s=settings.search.key_quota_cooldown_s,
        )
        self._urls: dict[str, httpx.URL] = {}
        """Endpoint URLs by path, parsed once: parsing one costs more than the rest of building a request."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.config.base_url!r}>"

    def native_params(self, request: SearchRequest) -> frozenset[str]:
        return self.native

    async def search(self, request: SearchRequest) -> ProviderAnswer:
        if self.requires != "api_key":
            return without_secrets(await self.ask(request, None))
        last: WeblensError | None = None
        asked = False
        for key in await self.keys.usable():
            if (unsendable := _unsendable(key)) is not None:
                last = NotConfiguredError(f"{self.name} API key {fingerprint(key)} {unsendable}; {self.refusal_hint()}")
                continue
            asked = True
            try:
                answer = await self.ask(request, key)
            except WeblensError as exc:
                problem = exc.details.get(KEY_PROBLEM)
                if problem not in ("refused", "quota"):
                    raise
                await self.keys.bench(key, problem, exc)
                last = exc
                continue
            self.keys.answered(key)
            return without_secrets(answer)
        if last is not None and (len(self.keys.keys) == 1 or not asked):
            raise last  # a pool of one: the provider's own words say it best (or ours: no key could be sent)
        raise await self.keys.none_left(self.refusal_hint(), last)

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        """One request to the provider with this key (None for keyless providers)."""
        raise NotImplementedError

    # -- helpers for provider modules ----------------------------------------------

    def upstream_count(self, request: SearchRequest) -> int:
        """How many results to ask for: more when weblens must drop some by domain itself."""
        local = (request.include_domains and "include_domains" not in self.native_params(request)) or (
            request.exclude_domains and "exclude_domains" not in self.native_params(request)
        )
        return max(request.max_results, UPSTREAM_MAX_RESULTS) if local else request.max_results

    def refusal_hint(self) -> str:
        """What to do when the upstream refuses us (which key to set)."""
        return setting_hint(self.name, self.requires or "api_key")

    async def send(self, method: str, path: str, **kwargs: Any) -> HttpReply:
        """One request under a hard deadline; an error status becomes a weblens error."""
        url = self._urls.get(path)
        if url is None:
            base = httpx.URL(str(self.settings.require(self.name, "base_url")))
            # the path joins the base's path; a query the base carries (`?token=…`) is kept
            url = self._urls[path] = base.copy_with(path=base.path.rstrip("/") + path)
        if kwargs.get("params") is not None:  # httpx would replace the base's query, not add to it
            url = url.copy_merge_params(kwargs.pop("params"))
        client = self._client()
        timeout = self.config.timeout
        started = time.perf_counter()
        outcome = "upstream_error"
        try:
            async with asyncio.timeout(timeout):
                with translate_errors(self.name):
                    async with client.stream(method, url, timeout=timeout, **kwargs) as response:
                        body = await self._read(response)
                        reply = HttpReply(response.status_code, response.headers, body, _decode(body, response))
            if reply.status >= 300:
                exc = self.error(reply) if reply.status >= 400 else self.redirected(reply)
                outcome = exc.code
                raise exc
            outcome = "ok"
        except TimeoutError:
            outcome = "timeout"
            raise ToolTimeoutError(f"{self.name} did not answer within {timeout:g} s") from None
        finally:  # every request to the provider is counted once, by outcome (429s as rate_limited)
            if self.metrics is not None:
                self.metrics.upstream_call(self.name, outcome, time.perf_counter() - started)
        return reply

    async def send_json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        reply = await self.send(method, path, **kwargs)
        try:
            data = json.loads(reply.body)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, nested too deeply, a 5 000-digit number
            raise UpstreamError(
                f"{self.name} sent a malformed answer (not JSON, HTTP {reply.status})", status=reply.status
            ) from None
        if not isinstance(data, dict):
            raise UpstreamError(f"{self.name} sent an answer of the wrong shape", status=reply.status)
        return data

    def error(self, reply: HttpReply) -> WeblensError:
        detail = describe_error(reply.body)
        said = f": {detail}" if detail else ""
        exc: WeblensError
        if reply.status in self.auth_statuses:
            exc = NotConfiguredError(
                f"{self.name} refused the request (HTTP {reply.status}){said}; {self.refusal_hint()}"
            )
            exc.details[KEY_PROBLEM] = "refused"
        elif reply.status in self.quota_statuses:
            exc = self.quota_error(reply)
        else:
            exc = error_for_status(reply.status, provider=self.name, detail=detail, headers=reply.headers)
        exc.details.setdefault("status", reply.status)
        return exc

    def redirected(self, reply: HttpReply) -> WeblensError:
        """A redirect is not followed (it would carry the key to wherever it points): say where it
        points, so a base URL that moved (`http://` to `https://`, a new path) is easy to fix."""
        location = mask_url(redact_text(reply.headers.get("location", "")))[:_DETAIL_MAX_CHARS] or "nowhere"
        return UpstreamError(
            f"{self.name} answered HTTP {reply.status}, a redirect to {location}, which weblens does not "
            f"follow with your credentials; if the API moved there, {setting_hint(self.name, 'base_url')}",
            status=reply.status,
            retryable=False,
            details={"status": reply.status},
        )

    def quota_error(self, reply: HttpReply, retry_after_s: float | None = None) -> WeblensError:
        """The key's plan limit is reached: not retryable with this key, maybe with another."""
        detail = describe_error(reply.body)
        said = f": {detail}" if detail else ""
        exc = RateLimitedError(
            f"{self.name} plan limit reached (HTTP {reply.status}){said}",
            retryable=False,
            retry_after_s=retry_after_s if retry_after_s is not None else parse_retry_after(reply.headers),
            details={"status": reply.status, KEY_PROBLEM: "quota"},
        )
        return exc

    def results(
        self,
        items: Any,
        limit: int,
        *,
        title: str = "title",
        url: str = "url",
        snippet: Iterable[str] = ("snippet",),
        date: Iterable[str] = (),
        extras: Iterable[str] = (),
    ) -> list[SearchResult]:
        """Map a provider's result list onto `SearchResult`, skipping entries without an http(s) URL.

        A `javascript:`, `file:`, `data:` or malformed URL would reach clients as a link."""
        found: list[SearchResult] = []
        for item in items if isinstance(items, list) else []:
            link = web_url(item.get(url)) if isinstance(item, Mapping) else None
            if link is None:
                continue
            found.append(
                SearchResult(
                    title=str(item.get(title) or ""),
                    url=link,
                    snippet=_first(item, snippet) or "",
                    published_at=_first(item, date),
                    position=len(found) + 1,
                    provider=self.name,
                    extras={key: item[key] for key in extras if item.get(key) not in (None, "", [], {})},
                )
            )
            if len(found) >= limit:
                break
        return found

    async def _read(self, response: httpx.Response) -> bytes:
        """The body, inflated in bounded steps: a gzip bomb stops at the cap, not after a chunk's 1 000×."""
        return await read_answer(response, MAX_BODY_BYTES, self.name, "not a search answer")


def without_secrets(answer: ProviderAnswer) -> ProviderAnswer:
    """`answer` with known secrets (a key the provider echoed) masked and lone surrogates replaced,
    before anyone caches or reads it; then titles, snippets and dates cut to `MAX_*_CHARS` (after
    masking, so no cut leaves half a key). Copied field by field: validating again would unescape twice."""
    results = [
        result.model_copy(
            update={
                "title": shortened(redact_values(result.title), MAX_TITLE_CHARS),
                "url": redact_values(result.url),
                "snippet": shortened(redact_values(result.snippet), MAX_SNIPPET_CHARS),
                "published_at": _date(redact_values(result.published_at)),
                "extras": redact_values(result.extras),
            }
        )
        for result in answer.results
    ]
    return answer.model_copy(update={"results": results, "extras": redact_values(answer.extras)})


def _date(value: str | None) -> str | None:
    return None if value is None else shortened(value, MAX_DATE_CHARS)


def _unsendable(key: str) -> str | None:
    """Why `key` cannot go in an HTTP header, else None: a character pasted with it (a curly quote,
    a zero-width space, a line break) would otherwise fail as "an answer weblens could not read"."""
    for position, char in enumerate(key, start=1):
        if not " " <= char <= "~":
            code = f"U+{ord(char):04X}"
            return (
                f"contains {unicodedata.name(char, 'a control character')} ({code}) at character {position}, "
                "which an HTTP header cannot carry (pasted with the key?)"
            )
    return None


def _first(item: Mapping[str, Any], keys: Iterable[str]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _decode(body: bytes, response: httpx.Response) -> str:
    try:
        return body.decode(response.charset_encoding or "utf-8", "replace")
    except LookupError:  # a charset label Python does not know (`charset=bogus`): read it as UTF-8
        return body.decode("utf-8", "replace")
