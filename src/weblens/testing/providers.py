"""Fake search providers: real local servers that speak Brave's, Tavily's, Serper's,
SearXNG's and DuckDuckGo's protocols from recorded-shape fixtures, and misbehave on demand.

    with FakeBrave(requests_per_second=20) as brave:
        settings = Settings(**brave.settings())
        brave.rate_limit(retry_after=1)          # the next search gets a 429
        brave.malformed(); brave.huge(mb=8)      # ...then a broken body, then 8 MB
        response = await weblens.search("q", settings=settings)

Each fake checks the key the way its provider does and answers a bad key with that
provider's documented error body; `requests_per_second` makes it answer 429 to requests
that arrive too close together, like Brave's free tier.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any, ClassVar

from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = [
    "FakeBrave",
    "FakeDuckDuckGo",
    "FakeSearxng",
    "FakeSerper",
    "FakeTavily",
    "ProviderFake",
    "fixture",
    "fixture_json",
]

DEFAULT_KEY = "test-key-0123456789"
_MIB = 1024 * 1024


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

    def __init__(
        self, *, api_key: str = DEFAULT_KEY, latency_s: float = 0.0, requests_per_second: float | None = None
    ) -> None:
        super().__init__(latency_s=latency_s)
        self.api_key = api_key
        self.min_interval_s = 1.0 / requests_per_second if requests_per_second else 0.0
        self.rejected = 0
        """Requests answered 429 because they came too fast."""
        self._last_arrival: float | None = None
        self._pace_lock = threading.Lock()
        for method, path, name in self.endpoints():
            self.route(method, path, self._handler(name))

    def reset(self) -> None:
        """Forget requests, queued misbehaviour and pacing, so one fake can serve many tests."""
        super().reset()
        with self._pace_lock:
            self.rejected = 0
            self._last_arrival = None

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

    def settings(self) -> dict[str, Any]:
        """Keyword arguments for `Settings(...)` pointing weblens at this fake."""
        section: dict[str, Any] = {"base_url": self.url()}
        if self.needs_key:
            section["api_key"] = self.api_key
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
            if last is not None and request.received_at - last < self.min_interval_s * 0.5:
                self.rejected += 1
                return True
        return False

    def _handler(self, name: str) -> Callable[[RecordedRequest], Reply]:
        def handle(request: RecordedRequest) -> Reply:
            if self.needs_key and self.presented_key(request) != self.api_key:
                return self.refusal()
            if self._too_fast(request):
                return self._too_many({"X-RateLimit-Reset": "1"})
            return Reply(body=fixture(name), content_type=self.content_type, headers=self.ok_headers())

        return handle


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

    def refusal(self) -> Reply:
        return Reply(status=401, body=fixture_json("tavily_error_401.json"))


class FakeSerper(ProviderFake):
    provider = "serper"
    search_path = "/search"
    ok_fixture = "serper_search_ok.json"

    def endpoints(self) -> list[tuple[str, str, str]]:
        extra = [("POST", "/news", "serper_news_ok.json"), ("POST", "/images", "serper_images_ok.json")]
        return [*super().endpoints(), *extra]

    def presented_key(self, request: RecordedRequest) -> str | None:
        return request.headers.get("x-api-key")

    def refusal(self) -> Reply:
        return Reply(status=403, body=fixture_json("serper_error_403.json"))


class FakeSearxng(ProviderFake):
    """Answers 403 (HTML) to requests without `format=json`, as a default instance does."""

    provider = "searxng"
    method = "GET"
    search_path = "/search"
    ok_fixture = "searxng_ok.json"
    needs_key = False

    def _handler(self, name: str) -> Callable[[RecordedRequest], Reply]:
        serve = super()._handler(name)

        def handle(request: RecordedRequest) -> Reply:
            if request.query.get("format") != "json":
                return Reply(status=403, body="<h1>403 Forbidden</h1>", content_type="text/html")
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

    def no_results(self, times: int = 1) -> None:
        self.misbehave(Reply(body=fixture("duckduckgo_html_empty.html"), content_type=self.content_type), times)
