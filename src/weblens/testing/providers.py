"""Fake search providers: real local servers that speak Brave's, Tavily's, Serper's,
SearXNG's and DuckDuckGo's protocols from recorded-shape fixtures, and misbehave on demand.

    with FakeBrave(requests_per_second=20) as brave:
        settings = Settings(**brave.settings())
        brave.rate_limit(retry_after=1)          # the next search gets a 429
        brave.malformed(); brave.huge(mb=8)      # ...then a broken body, then 8 MB
        brave.bomb(mb=256)                       # ...then 256 kB of gzip that inflates to 256 MB
        brave.nested(); brave.echo_key()         # ...then JSON 100 000 levels deep, then the key echoed
        response = await weblens.search("q", settings=settings)

Each fake checks the key the way its provider does and answers a bad key with that
provider's documented error body; `requests_per_second` makes it answer 429 to requests
that arrive too close together, like Brave's free tier (`pace_tolerance=0`: closer than the
limit by any amount, as a provider enforcing the account's limit exactly).

A fake also speaks the provider's optional parameters: `received(request)` reads back
what a request asked for in weblens' words (`time_range`, `country`, `include_domains`,
...), and a fake whose provider filters domains itself (Tavily, Serper's `site:`)
applies those filters to its answer. `answer_with([...])` serves your own hits in the
provider's format; several keys (`api_keys=`) make a pool, and `revoke(key)` /
`exhaust(key)` make one key refused or spent the way the provider says so.
"""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from typing import Any, ClassVar
from urllib.parse import parse_qsl, quote, urlsplit

from weblens.policy.domains import host_in, normalise_host
from weblens.search.providers.brave import BRAVE_COUNTRIES, BRAVE_LANGUAGES
from weblens.search.providers.tavily import TAVILY_COUNTRIES
from weblens.testing.pages import gzip_bomb
from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = [
    "FakeBrave",
    "FakeDuckDuckGo",
    "FakeSearxng",
    "FakeSerper",
    "FakeTavily",
    "Hit",
    "ProviderFake",
    "fixture",
    "fixture_json",
]

DEFAULT_KEY = "test-key-0123456789"
BRAVE_MAX_QUERY_CHARS = 400
BRAVE_MAX_QUERY_WORDS = 50
TAVILY_MAX_QUERY_CHARS = 400
"""The query limits the real APIs enforce (Brave: 422 VALIDATION; Tavily: 400 "Query is too long")."""
_BANGS = ("w", "g", "gh", "yt", "a", "ddg")
"""A few of DuckDuckGo's thousands of !bangs, for the fake's redirects."""
SEARXNG_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[a-zA-Z]{2})?$")
"""SearXNG's VALID_LANGUAGE_CODE: any other `language` is a 400."""
_MIB = 1024 * 1024
Hit = dict[str, str]
"""One result to serve: {"title", "url", "snippet"} (and optionally "date")."""
_TIME_CODES: dict[str, str] = {"d": "day", "w": "week", "m": "month", "y": "year"}


def _reverse(mapping: dict[str, str], value: str | None) -> str | None:
    return mapping.get(value) if value is not None else None


def _domain_filtered(items: list[Any], url_key: str, include: Sequence[str], exclude: Sequence[str]) -> list[Any]:
    """What a provider that filters by domain (subdomains included) would return."""
    if not include and not exclude:
        return items
    include = [normalise_host(d) for d in include]
    exclude = [normalise_host(d) for d in exclude]
    kept = []
    for item in items:
        host = normalise_host(urlsplit(str(item.get(url_key, ""))).hostname or "")
        if include and not any(host_in(host, d) for d in include):
            continue
        if any(host_in(host, d) for d in exclude):
            continue
        kept.append(item)
    return kept


def fixture(name: str) -> bytes:
    """A packaged fixture body (invented content in the provider's documented shape)."""
    return (resources.files("weblens.testing") / "fixtures" / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture(name))


class ProviderFake(FakeServer):
    """A provider's endpoints answering from fixtures; misbehaviours queue on `search_path`."""

    provider: ClassVar[str]
    search_path: ClassVar[str]
    method: ClassVar[str] = "POST"
    ok_fixture: ClassVar[str]
    content_type: ClassVar[str] = "application/json"
    rate_limit_fixture: ClassVar[str | None] = None
    needs_key: ClassVar[bool] = True
    url_key: ClassVar[str] = "url"
    honours_domains: ClassVar[bool] = False
    """Whether the provider filters results by domain itself (so the fake does too)."""

    def __init__(
        self,
        *,
        api_key: str = DEFAULT_KEY,
        api_keys: Sequence[str] | None = None,
        latency_s: float = 0.0,
        requests_per_second: float | None = None,
        pace_tolerance: float = 0.5,
    ) -> None:
        """`pace_tolerance`: the fraction of `1/requests_per_second` a request may arrive early and still be served."""
        super().__init__(latency_s=latency_s)
        self.api_keys = list(api_keys) if api_keys else [api_key]
        self.api_key = self.api_keys[0]
        self._revoked: set[str] = set()
        self._exhausted: set[str] = set()
        self._hits: list[Hit] | None = None
        self._echoes = 0
        self.min_interval_s = 1.0 / requests_per_second if requests_per_second else 0.0
        self.pace_tolerance = pace_tolerance
        self.rejected = 0
        """Requests answered 429 because they came too fast."""
        self._last_arrival: float | None = None
        self._pace_lock = threading.Lock()
        for method, path, name in self.endpoints():
            self.route(method, path, self._handler(name))

    def reset(self) -> None:
        """Forget requests, queued misbehaviour, pacing, custom hits and key states, so one
        fake can serve many tests."""
        super().reset()
        with self._pace_lock:
            self.rejected = 0
            self._last_arrival = None
        self._revoked.clear()
        self._exhausted.clear()
        self._hits = None
        self._echoes = 0

    # -- answers, keys and parameters -------------------------------------------------

    def answer_with(self, hits: Sequence[Hit] | None) -> None:
        """Serve these hits (in the provider's format) to the next searches; None: the fixtures again."""
        self._hits = [dict(hit) for hit in hits] if hits is not None else None

    def revoke(self, key: str) -> None:
        """From now on `key` is refused the way the provider refuses a bad key."""
        self._revoked.add(key)

    def exhaust(self, key: str) -> None:
        """From now on `key` is answered the way the provider says a key's quota is spent."""
        self._exhausted.add(key)

    def echo_key(self, times: int = 1) -> None:
        """The next `times` successful answers carry the presented key, as a careless provider
        (or a debugging proxy) might: in a first hit's title, URL and snippet, and in a top-level field."""
        if not self.needs_key:
            raise TypeError(f"{type(self).__name__} takes no key to echo")
        with self._pace_lock:
            self._echoes += times

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        """What `request` asked for, in weblens' words (query, count, time_range, country, ...)."""
        raise NotImplementedError

    @property
    def last_received(self) -> dict[str, Any]:
        return self.received(self.requests[-1])

    def quota_refusal(self) -> Reply:
        """The provider's answer for a key whose plan limit is reached."""
        return Reply(status=402, body={"error": "payment required"})

    def items(self, data: Any) -> list[Any]:
        """The result list inside a parsed answer."""
        return list(data.get("results") or []) if isinstance(data, dict) else []

    def with_items(self, data: Any, items: list[Any]) -> Any:
        return {**data, "results": items}

    def native_item(self, hit: Hit) -> dict[str, Any]:
        """A hit in the provider's own result shape."""
        return {"title": hit["title"], "url": hit["url"], "content": hit.get("snippet", "")}

    def body_for(self, name: str, request: RecordedRequest) -> bytes:
        """The answer to a search: the fixture (or `answer_with` hits), filtered as the provider would."""
        data = fixture_json(name)
        if self._hits is not None:
            data = self.with_items(data, [self.native_item(hit) for hit in self._hits])
        if self.honours_domains:
            asked = self.received(request)
            kept = _domain_filtered(
                self.items(data), self.url_key, asked.get("include_domains", []), asked.get("exclude_domains", [])
            )
            data = self.with_items(data, kept)
        return json.dumps(data, ensure_ascii=False).encode()

    # -- what a subclass says about its protocol --------------------------------------

    def endpoints(self) -> list[tuple[str, str, str]]:
        return [(self.method, self.search_path, self.ok_fixture)]

    def presented_key(self, request: RecordedRequest) -> str | None:
        raise NotImplementedError

    def refusal(self) -> Reply:
        """The provider's answer to a missing or wrong key."""
        raise NotImplementedError

    def ok_headers(self) -> dict[str, str]:
        """Headers on a successful answer (Brave reports its rate-limit windows here)."""
        return {}

    def invalid(self, request: RecordedRequest) -> Reply | None:
        """The provider's answer to a request it does not take (a query too long, a code not in
        its lists), else None."""
        return None

    def settings(self) -> dict[str, Any]:
        """Keyword arguments for `Settings(...)` pointing weblens at this fake (all its keys as a pool)."""
        section: dict[str, Any] = {"base_url": self.url()}
        if self.needs_key:
            section["api_key"] = ",".join(self.api_keys)
        return {self.provider: section}

    # -- misbehaving on demand (each applies to the next `times` search requests) ------

    def misbehave(self, reply: Reply, times: int = 1) -> None:
        self.queue(self.search_path, *[reply] * times)

    def fail(self, status: int, body: Any = None, *, headers: dict[str, str] | None = None, times: int = 1) -> None:
        self.misbehave(Reply(status=status, body=body if body is not None else b"", headers=headers or {}), times)

    def rate_limit(self, retry_after: float | None = None, *, times: int = 1) -> None:
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        self.misbehave(self._too_many(headers), times)

    def malformed(self, times: int = 1) -> None:
        self.misbehave(Reply(body=b'{"results": [ {"title": "half', content_type=self.content_type), times)

    def nested(self, depth: int = 100_000, *, status: int = 200, times: int = 1) -> None:
        """A JSON answer nested `depth` levels deep: past what a recursive parser can follow."""
        body = b'{"results": ' + b"[" * depth + b"]" * depth + b"}"
        self.misbehave(Reply(status=status, body=body, content_type="application/json"), times)

    def truncated(self, times: int = 1) -> None:
        body = fixture(self.ok_fixture)
        self.misbehave(Reply(body=body[: len(body) // 2], content_type=self.content_type), times)

    def slow(self, delay_s: float, times: int = 1) -> None:
        self.misbehave(Reply(body=fixture(self.ok_fixture), content_type=self.content_type, delay_s=delay_s), times)

    def drip(self, chunk_bytes: int = 16, interval_s: float = 0.5, times: int = 1) -> None:
        body = fixture(self.ok_fixture)
        self.misbehave(Reply(body=body, content_type=self.content_type, drip=(chunk_bytes, interval_s)), times)

    def huge(self, mb: int = 8, times: int = 1) -> None:
        def chunks() -> Iterator[bytes]:
            yield b'{"results": ["'
            for _ in range(mb):
                yield b"x" * _MIB
            yield b'"]}'

        self.misbehave(Reply(chunks=chunks, content_type=self.content_type), times)

    def bomb(self, mb: int = 256, times: int = 1) -> None:
        """A gzip body (Content-Encoding: gzip) of about `mb` kB that inflates to `mb` MB."""
        headers = {"Content-Encoding": "gzip"}
        self.misbehave(Reply(body=gzip_bomb(mb * _MIB), content_type=self.content_type, headers=headers), times)

    def empty_202(self, times: int = 1) -> None:
        self.misbehave(Reply(status=202, body=b"", content_type="text/html; charset=utf-8"), times)

    # -- serving ----------------------------------------------------------------------

    def _too_many(self, headers: dict[str, str]) -> Reply:
        body: Any = fixture_json(self.rate_limit_fixture) if self.rate_limit_fixture else "Too Many Requests"
        return Reply(status=429, body=body, headers=headers)

    def _too_fast(self, request: RecordedRequest) -> bool:
        if not self.min_interval_s:
            return False
        with self._pace_lock:
            last, self._last_arrival = self._last_arrival, request.received_at
            if last is not None and request.received_at - last < self.min_interval_s * (1 - self.pace_tolerance):
                self.rejected += 1
                return True
        return False

    def _handler(self, name: str) -> Callable[[RecordedRequest], Reply]:
        def handle(request: RecordedRequest) -> Reply:
            if self.needs_key:
                key = self.presented_key(request)
                if key not in self.api_keys or key in self._revoked:
                    return self.refusal()
                if key in self._exhausted:
                    return self.quota_refusal()
            if self._too_fast(request):
                return self._too_many({"X-RateLimit-Reset": "1"})
            refused = self.invalid(request)
            if refused is not None:
                return refused
            body = self.body_for(name, request)
            if self._take_echo():
                body = self._with_key(body, str(self.presented_key(request)))
            return Reply(body=body, content_type=self.content_type, headers=self.ok_headers())

        return handle

    def _take_echo(self) -> bool:
        with self._pace_lock:
            if self._echoes <= 0:
                return False
            self._echoes -= 1
            return True

    def _with_key(self, body: bytes, key: str) -> bytes:
        data = json.loads(body)
        hit = {"title": f"Signed in with {key}", "url": f"https://echo.example/?api_key={key}", "snippet": key}
        data = self.with_items(data, [self.native_item(hit), *self.items(data)])
        data["debug"] = {"api_key": key, "note": f"request authenticated by {key}"}
        data["answer"] = f"(answered for key {key})"
        return json.dumps(data, ensure_ascii=False).encode()


class FakeBrave(ProviderFake):
    provider = "brave"
    method = "GET"
    search_path = "/res/v1/web/search"
    ok_fixture = "brave_web_ok.json"
    rate_limit_fixture = "brave_error_429_rate_limited.json"

    def endpoints(self) -> list[tuple[str, str, str]]:
        return [*super().endpoints(), ("GET", "/res/v1/news/search", "brave_news_ok.json")]

    def presented_key(self, request: RecordedRequest) -> str | None:
        return request.headers.get("x-subscription-token")

    def ok_headers(self) -> dict[str, str]:
        per_second = f"{1 / self.min_interval_s:g}" if self.min_interval_s else "50"
        return {
            "X-RateLimit-Limit": f"{per_second}, 15000",
            "X-RateLimit-Policy": f"{per_second};w=1, 15000;w=2592000",
            "X-RateLimit-Remaining": f"{per_second}, 14000",
            "X-RateLimit-Reset": "1, 1419704",
        }

    def refusal(self) -> Reply:
        return Reply(status=401, body=fixture_json("brave_error_422_token_invalid.json"))

    def invalid(self, request: RecordedRequest) -> Reply | None:
        """Brave takes at most 400 characters and 50 words, and `country` and `search_lang` from
        its lists; anything else is a 422 VALIDATION naming the parameter."""
        query = request.query.get("q", "")
        country, language = request.query.get("country"), request.query.get("search_lang")
        problem: dict[str, Any] | None = None
        if len(query) > BRAVE_MAX_QUERY_CHARS or len(query.split()) > BRAVE_MAX_QUERY_WORDS:
            problem = {"type": "string_too_long", "loc": ["query", "q"], "msg": "Query too long", "input": query}
        elif country is not None and country not in {*BRAVE_COUNTRIES, "ALL"}:
            problem = {"type": "enum", "loc": ["query", "country"], "msg": "Input should be ...", "input": country}
        elif language is not None and language not in BRAVE_LANGUAGES:
            problem = {"type": "enum", "loc": ["query", "search_lang"], "msg": "Input should be ...", "input": language}
        if problem is None:
            return None
        error = {"status": 422, "code": "VALIDATION", "detail": "Unable to validate request parameter(s)"}
        return Reply(status=422, body={"type": "ErrorResponse", "error": {**error, "meta": {"errors": [problem]}}})

    def quota_refusal(self) -> Reply:
        body = fixture_json("brave_error_429_rate_limited.json")
        body["error"].update(code="QUOTA_LIMITED", detail="Request quota exceeded for plan.")
        return Reply(status=429, body=body, headers={"X-RateLimit-Reset": "1, 86400"})

    def items(self, data: Any) -> list[Any]:
        if isinstance(data, dict) and isinstance(data.get("web"), dict):
            return list(data["web"].get("results") or [])
        return super().items(data)

    def with_items(self, data: Any, items: list[Any]) -> Any:
        if isinstance(data.get("web"), dict):
            return {**data, "web": {**data["web"], "results": items}}
        return super().with_items(data, items)

    def native_item(self, hit: Hit) -> dict[str, Any]:
        item = {"type": "search_result", "title": hit["title"], "url": hit["url"], "description": hit.get("snippet")}
        return {**item, "page_age": hit["date"]} if hit.get("date") else item

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        q = request.query
        found = {
            "query": q.get("q"),
            "count": int(q.get("count", "20")),
            "country": q.get("country"),
            "language": q.get("search_lang"),
            "safesearch": q.get("safesearch"),
            "time_range": _reverse({"pd": "day", "pw": "week", "pm": "month", "py": "year"}, q.get("freshness")),
            "topic": "news" if request.path.endswith("/news/search") else None,
        }
        return {key: value for key, value in found.items() if value is not None}


class FakeTavily(ProviderFake):
    provider = "tavily"
    search_path = "/search"
    ok_fixture = "tavily_search_ok.json"
    rate_limit_fixture = "tavily_error_429.json"

    def presented_key(self, request: RecordedRequest) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            return auth.removeprefix("Bearer ")
        body = request.json() if request.body else None
        return body.get("api_key") if isinstance(body, dict) else None

    honours_domains = True

    def refusal(self) -> Reply:
        return Reply(status=401, body=fixture_json("tavily_error_401.json"))

    def invalid(self, request: RecordedRequest) -> Reply | None:
        body = request.json() if request.body else None
        body = body if isinstance(body, dict) else {}
        query, country = body.get("query"), body.get("country")
        if isinstance(query, str) and len(query) > TAVILY_MAX_QUERY_CHARS:
            error = f"Query is too long. Max query length is {TAVILY_MAX_QUERY_CHARS} characters."
            return Reply(status=400, body={"detail": {"error": error}})
        if country is not None and country not in TAVILY_COUNTRIES:
            error = "Invalid country. Must be a valid country name from the list of supported countries."
            return Reply(status=400, body={"detail": {"error": error}})
        return None

    def quota_refusal(self) -> Reply:
        return Reply(status=432, body=fixture_json("tavily_error_432.json"))

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        body = request.json() or {}
        found = {
            "query": body.get("query"),
            "count": body.get("max_results"),
            "include_domains": body.get("include_domains"),
            "exclude_domains": body.get("exclude_domains"),
            "time_range": _TIME_CODES.get(str(body.get("time_range")), body.get("time_range")),
            "country": body.get("country"),
            "topic": "news" if body.get("topic") == "news" else None,
        }
        return {key: value for key, value in found.items() if value is not None}


class FakeSerper(ProviderFake):
    provider = "serper"
    search_path = "/search"
    ok_fixture = "serper_search_ok.json"

    def endpoints(self) -> list[tuple[str, str, str]]:
        extra = [("POST", "/news", "serper_news_ok.json"), ("POST", "/images", "serper_images_ok.json")]
        return [*super().endpoints(), *extra]

    def presented_key(self, request: RecordedRequest) -> str | None:
        return request.headers.get("x-api-key")

    url_key = "link"
    honours_domains = True

    def refusal(self) -> Reply:
        return Reply(status=403, body=fixture_json("serper_error_403.json"))

    def quota_refusal(self) -> Reply:
        return Reply(status=400, body=fixture_json("serper_error_400.json"))

    def items(self, data: Any) -> list[Any]:
        key = next((k for k in ("organic", "news", "images") if k in data), "organic")
        return list(data.get(key) or [])

    def with_items(self, data: Any, items: list[Any]) -> Any:
        key = next((k for k in ("organic", "news", "images") if k in data), "organic")
        return {**data, key: items}

    def native_item(self, hit: Hit) -> dict[str, Any]:
        item = {"title": hit["title"], "link": hit["url"], "snippet": hit.get("snippet", "")}
        return {**item, "date": hit["date"]} if hit.get("date") else item

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        body = request.json() or {}
        words, include, exclude = [], [], []
        for word in str(body.get("q", "")).split():
            if word.startswith("site:"):
                include.append(word.removeprefix("site:"))
            elif word.startswith("-site:"):
                exclude.append(word.removeprefix("-site:"))
            elif word != "OR" or not include:
                words.append(word)
        tbs = str(body.get("tbs", ""))
        found = {
            "query": " ".join(words),
            "count": body.get("num"),
            "include_domains": include or None,
            "exclude_domains": exclude or None,
            "country": body.get("gl"),
            "language": body.get("hl"),
            "time_range": _TIME_CODES.get(tbs.removeprefix("qdr:")) if tbs else None,
            "topic": "news" if request.path == "/news" else None,
        }
        return {key: value for key, value in found.items() if value is not None}


class FakeSearxng(ProviderFake):
    """Answers 403 (HTML) to requests without `format=json`, as a default instance does."""

    provider = "searxng"
    method = "GET"
    search_path = "/search"
    ok_fixture = "searxng_ok.json"
    needs_key = False

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        q = request.query
        language, _, region = str(q.get("language", "")).partition("-")
        found = {
            "query": q.get("q"),
            "language": language or None,
            "country": region.upper() or None,
            "time_range": q.get("time_range"),
            "safesearch": _reverse({"0": "off", "1": "moderate", "2": "strict"}, q.get("safesearch")),
            "topic": "news" if q.get("categories") == "news" else None,
        }
        return {key: value for key, value in found.items() if value is not None}

    def engines_fail(self, *reasons: tuple[str, str], times: int = 1) -> None:
        """The next answers have no results because the instance's engines failed, as SearXNG
        says it: HTTP 200 with `unresponsive_engines` such as `("google", "Suspended: CAPTCHA")`."""
        body = {**fixture_json(self.ok_fixture), "results": [], "answers": [], "infoboxes": [], "suggestions": []}
        body["unresponsive_engines"] = [list(reason) for reason in reasons]
        self.misbehave(Reply(body=body), times)

    def _handler(self, name: str) -> Callable[[RecordedRequest], Reply]:
        serve = super()._handler(name)

        def handle(request: RecordedRequest) -> Reply:
            if request.query.get("format") != "json":
                return Reply(status=403, body="<h1>403 Forbidden</h1>", content_type="text/html")
            language = request.query.get("language")
            if language is not None and not SEARXNG_LANGUAGE.fullmatch(language) and language not in ("auto", "all"):
                return Reply(status=400, body={"error": f'Invalid value "{language}" for parameter language'})
            return serve(request)

        return handle


class FakeDuckDuckGo(ProviderFake):
    """`POST /html/`; `anomaly()` serves the 202 bot-check page, `no_results()` an empty page."""

    provider = "duckduckgo"
    search_path = "/html/"
    ok_fixture = "duckduckgo_html_ok.html"
    content_type = "text/html; charset=utf-8"
    needs_key = False

    def _too_many(self, headers: dict[str, str]) -> Reply:
        return Reply(status=202, body=fixture("duckduckgo_html_anomaly.html"), content_type=self.content_type)

    def anomaly(self, times: int = 1) -> None:
        self.misbehave(self._too_many({}), times)

    def invalid(self, request: RecordedRequest) -> Reply | None:
        """A query with a !bang (`!w python`, `python w!`), a lone `!` or a leading `\\` is sent
        elsewhere with a 303, as DuckDuckGo does (here for a few real bangs)."""
        query = dict(parse_qsl(request.body.decode("utf-8", "replace"))).get("q", "")
        words = query.split()
        bangs = {f"!{bang}" for bang in _BANGS} | {f"{bang}!" for bang in _BANGS} | {"!"}
        if query.startswith("\\") or any(word.lower() in bangs for word in words):
            return Reply(status=303, body=b"", headers={"Location": f"https://www.google.com/search?q={quote(query)}"})
        return None

    def received(self, request: RecordedRequest) -> dict[str, Any]:
        form = dict(parse_qsl(request.body.decode("utf-8", "replace")))
        region = form.get("kl")
        found = {
            "query": form.get("q"),
            "region": region if region and region != "wt-wt" else None,
            "time_range": _TIME_CODES.get(form.get("df", "")),
            "safesearch": _reverse({"1": "strict", "-1": "moderate", "-2": "off"}, form.get("kp")),
        }
        return {key: value for key, value in found.items() if value is not None}

    def body_for(self, name: str, request: RecordedRequest) -> bytes:
        if self._hits is None:
            return fixture(name)
        blocks = [
            '<div class="result results_links web-result"><div class="links_main result__body">'
            f'<h2 class="result__title"><a class="result__a" href="{html.escape(hit["url"])}">'
            f"{html.escape(hit['title'])}</a></h2>"
            f'<a class="result__snippet" href="{html.escape(hit["url"])}">{html.escape(hit.get("snippet", ""))}</a>'
            "</div></div>"
            for hit in self._hits
        ]
        if not blocks:
            return fixture("duckduckgo_html_empty.html")
        page = '<!DOCTYPE html><html><body><div id="links" class="results">' + "".join(blocks) + "</div></body></html>"
        return page.encode()

    def no_results(self, times: int = 1) -> None:
        self.misbehave(Reply(body=fixture("duckduckgo_html_empty.html"), content_type=self.content_type), times)
