"""Hostile inputs and a harness that runs them: for the fuzz tests and `bench/fuzz.py`.

Three surfaces, each with a `hypothesis` strategy and a check that classifies one case:

- tool arguments (`arguments(tool)`) through `Tool.execute()`;
- provider answers (`provider_replies(name)`) served by the provider fakes to the router;
- pages (`pages()`) given to `weblens.fetch.extract.extract`.

An outcome is "ok", an error code, "crash" (an exception escaped, or a code outside the
closed set), "internal" (`internal_error` for bad input) or "hang" (slower than the bound).
Needs `hypothesis` (a dev dependency): import this module only in tests and benchmarks.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from weblens.errors import ERROR_CODES, WeblensError
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer
from weblens.testing.providers import (
    FakeBrave,
    FakeDuckDuckGo,
    FakeSearxng,
    FakeSerper,
    FakeTavily,
    ProviderFake,
    fixture,
    fixture_json,
)
from weblens.testing.server import Reply

__all__ = [
    "BAD_OUTCOMES",
    "FUZZ_DOMAIN",
    "PAGE_BOUND_S",
    "TOOL_BOUND_S",
    "Fakes",
    "Tally",
    "arguments",
    "field_names",
    "json_values",
    "page_outcome",
    "pages",
    "provider_replies",
    "required_names",
    "search_outcome",
    "tool_outcome",
]

BAD_OUTCOMES = ("crash", "hang", "internal")
FUZZ_DOMAIN = "fuzz.test"
"""Every name fetched in a fuzz run is under this domain and resolves to 127.0.0.1; the
domain policy refuses everything else, so no generated URL can reach the internet."""

NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "\ud800",
    "a\udfffb",
    "\u202e\u200b\ufeff",
    "💩" * 50,
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "data:text/html,<b>x</b>",
    "http://[::1",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd20:ce::254]/",
    "http://user:password@127.0.0.1/",
    f"http://page.{FUZZ_DOMAIN}/article",
    f"https://x.{FUZZ_DOMAIN}:0/",
    "ftp://example.com/",
    "%00%ff",
    "../../etc/passwd",
    "x" * 5_000,
    "<!--" * 2_000,
    "<" * 5_000,
    "\n" * 500,
    "NaN",
    "-1",
    "1e309",
    "2026-13-45",
    "Ζ" * 300,
    "United States",
    "Berlin",
    "de",
    "site:example.com OR",
]
_HTML_PIECES = [
    "<html>",
    "<head>",
    "<title>",
    "</title>",
    "<body>",
    "<div class='result'>",
    "<a class='result__a' href='",
    "'>",
    "</a>",
    "<p>",
    "</div>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<script>",
    "</script>",
    "<style>",
    "<meta charset='bogus'>",
    "<meta http-equiv='refresh' content='0;url=javascript:x'>",
    '<p title="',
    "&#",
    "&amp;",
    "&#x110000;",
    "<table><tr><td>",
    "<pre><code>",
    "<svg><foreignObject>",
    "<noscript>",
    "<article>",
    "<h1>",
    "\x00",
    "\ud800",
    "cf-mitigated",
    "__NEXT_DATA__",
]
_FLOOD_PIECES = ["<!--", "<div>", "<a href='", '<p title="x" ', "&#", "<![CDATA[", "<script>", "<title>", "<", "<b><i>"]
_CONTENT_TYPES = [
    "text/html; charset=utf-8",
    "text/html",
    "text/html; charset=bogus",
    "text/plain",
    "text/markdown",
    "application/json",
    "application/xhtml+xml",
    "application/pdf",
    "application/octet-stream",
    "",
]
_STATUSES = [200, 200, 200, 200, 200, 202, 400, 401, 402, 403, 404, 418, 422, 429, 432, 500, 502, 503]
_PROVIDER_FIXTURES = {
    "tavily": "tavily_search_ok.json",
    "brave": "brave_web_ok.json",
    "serper": "serper_search_ok.json",
    "searxng": "searxng_ok.json",
    "duckduckgo": "duckduckgo_html_ok.html",
}


# -- strategies -------------------------------------------------------------------------------


TOOL_BOUND_S = 60.0
"""How long one tool call may take before it counts as a hang: generous for a loaded 2-core
machine; the tools' own timeouts are shorter."""
PAGE_BOUND_S = 20.0
"""How long extracting one generated page may take before it counts as a hang."""


def fuzz_settings(examples: int, *, derandomize: bool = True) -> Any:
    """Hypothesis settings for a fuzz run: no per-example deadline (the bounds above are
    checked per case) and no example database; derandomized for CI, random and without
    shrinking for the long run in `bench/fuzz.py`."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        phases=list(Phase) if derandomize else [Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


def _nested(depth: int, kind: str) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON-like values with hostile leaves: lone surrogates, huge and odd numbers, URLs, floods."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=40),
        st.sampled_from(NASTY_STRINGS),
    )
    keys = st.text(max_size=12) | st.sampled_from(["url", "title", "query", "results", "\ud800"])
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=max_leaves,
    )


def _deep_text(depth: int, opener: str) -> str:
    if opener == "[":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "null" + "}" * depth


def _raw_argument_texts() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.text(max_size=200),
        st.binary(max_size=200),
        st.builds(_deep_text, st.integers(60, 200_000), st.sampled_from(["[", "{"])),
        st.integers(4_301, 20_000).map(lambda n: '{"query": "q", "max_results": ' + "9" * n + "}"),
        st.sampled_from(['{"query": "\\ud800"}', '{"url": "\\udfff"}', "null", "[]", '"query"', "{", "\xff"]),
    )


def arguments(field_names: list[str], required: list[str] | None = None) -> st.SearchStrategy[Any]:
    """Arguments for a tool with these fields: plausible ones (the required fields as text, the
    others hostile), its own names with hostile values, unknown names, raw text and bytes, deep
    nesting, huge integers, lone surrogates."""
    known = st.sampled_from(field_names) if field_names else st.just("query")
    keys = known | st.text(max_size=10)
    words = st.text(min_size=1, max_size=60) | st.sampled_from(NASTY_STRINGS)
    plausible = st.fixed_dictionaries(
        {name: words for name in required or []},
        optional={name: json_values() for name in field_names if name not in (required or [])},
    )
    return st.one_of(
        plausible,
        plausible,
        plausible,
        st.fixed_dictionaries({name: words for name in required or []}),
        st.dictionaries(known, json_values(), max_size=len(field_names) or 1),
        st.dictionaries(keys, json_values(), max_size=6),
        st.fixed_dictionaries({}, optional={name: json_values() for name in field_names}),
        _raw_argument_texts(),
        st.builds(lambda name, depth: {name: _nested(depth, "dict")}, known, st.integers(60, 5_000)),
        st.builds(lambda name, n: {name: 7**n}, known, st.integers(6_000, 9_000)),
        st.just({(1, 2): "tuple key"}),
        st.none(),
    )


def _slots(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in a JSON tree, found without recursion."""
    found: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            found.append((node, key))
            stack.append(value)
    return found


def _mutated(base: Any, changes: list[tuple[int, Any]]) -> Any:
    data = json.loads(json.dumps(base))
    for index, value in changes:
        slots = _slots(data)
        if not slots:
            return value
        container, key = slots[index % len(slots)]
        container[key] = value
    return data


def _dumps(value: Any) -> bytes:
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except ValueError:  # NaN is fine for json.dumps; a huge integer is not
        return b"{}"


def _html_body(pieces: list[str]) -> bytes:
    return "".join(pieces).encode("utf-8", "surrogatepass")


def provider_replies(name: str) -> st.SearchStrategy[Reply]:
    """Answers a provider's parser must survive: its own fixture with parts replaced by hostile
    values, random JSON, bytes, deep nesting, huge numbers, tag soup; under any status."""
    base = fixture_json(_PROVIDER_FIXTURES[name]) if name != "duckduckgo" else None
    bodies = [
        st.binary(max_size=500),
        json_values(max_leaves=30).map(_dumps),
        st.builds(lambda depth: _deep_text(depth, "[").encode(), st.integers(60, 200_000)),
        st.integers(4_301, 20_000).map(lambda n: b'{"results": [{"title": ' + b"9" * n + b"}]}"),
        st.lists(st.sampled_from(_HTML_PIECES) | st.text(max_size=20), max_size=80).map(_html_body),
    ]
    if base is not None:
        changes = st.lists(st.tuples(st.integers(0, 10_000), json_values()), min_size=1, max_size=6)
        bodies.append(changes.map(lambda c: _dumps(_mutated(base, c))))
    else:
        page = fixture(_PROVIDER_FIXTURES[name]).decode()
        cut = st.tuples(st.integers(0, len(page)), st.lists(st.sampled_from(_HTML_PIECES), max_size=10))
        bodies.append(cut.map(lambda c: (page[: c[0]] + "".join(c[1]) + page[c[0] :]).encode("utf-8", "surrogatepass")))
    return st.builds(
        lambda body, status, kind, retry: Reply(
            status=status, body=body, content_type=kind, headers={"Retry-After": retry} if retry else {}
        ),
        st.one_of(*bodies),
        st.sampled_from(_STATUSES),
        st.sampled_from(["application/json", "text/html; charset=utf-8", "text/plain", "application/json; charset=x"]),
        st.sampled_from(["", "", "0", "-5", "1e9", "Wed, 21 Oct 2015 07:28:00 GMT", "soon"]),
    )


def pages() -> st.SearchStrategy[tuple[bytes, str]]:
    """(body, content type) pairs extraction must survive: tag soup, floods, unclosed nesting, bytes."""
    bodies = st.one_of(
        st.lists(st.sampled_from(_HTML_PIECES) | st.text(max_size=30), max_size=300).map(_html_body),
        st.builds(lambda piece, n: (piece * n).encode(), st.sampled_from(_FLOOD_PIECES), st.integers(1, 40_000)),
        st.builds(lambda n: ("<div>" * n + "x" + "</div>" * (n // 2)).encode(), st.integers(1, 50_000)),
        st.builds(lambda n: ("<p " + 'a="b" ' * n + ">x</p>").encode(), st.integers(1, 20_000)),
        st.binary(max_size=3_000),
        json_values(max_leaves=30).map(_dumps),
        st.just(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF"),
    )
    return st.tuples(bodies, st.sampled_from(_CONTENT_TYPES))


# -- checks -----------------------------------------------------------------------------------


def _classify_code(code: str) -> str:
    if code not in ERROR_CODES:
        return "crash"
    return "internal" if code == "internal_error" else code


async def tool_outcome(tool: Any, args: Any, *, bound_s: float) -> str:
    """One call through `execute()`: its outcome (see the module docstring)."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(bound_s):
            result = await tool.execute(args)
    except TimeoutError:
        return "hang"
    except Exception:
        return "crash"
    if time.monotonic() - started > bound_s:
        return "hang"
    return "ok" if result.error is None else _classify_code(result.error.code)


async def search_outcome(router: Any, fake: ProviderFake, reply: Reply, request: Any, *, bound_s: float) -> str:
    """One search of `fake`'s provider (alone) while the fake serves `reply`."""
    fake.reset()
    fake.misbehave(reply)
    try:
        async with asyncio.timeout(bound_s):
            await router.search(request, provider=fake.provider, use_cache=False)
    except TimeoutError:
        return "hang"
    except WeblensError as exc:
        return _classify_code(exc.code)
    except Exception:
        return "crash"
    return "ok"


def page_outcome(body: bytes, content_type: str, *, bound_s: float) -> str:
    """One extraction of `body`; a page that takes longer than `bound_s` is a hang."""
    from weblens.fetch.extract import extract

    started = time.monotonic()
    try:
        extract(body, content_type, f"https://page.{FUZZ_DOMAIN}/")
    except WeblensError as exc:
        outcome = _classify_code(exc.code)
    except Exception:
        outcome = "crash"
    else:
        outcome = "ok"
    return "hang" if time.monotonic() - started > bound_s else outcome


# -- running ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Outcomes per surface, with one example of each bad outcome to reproduce it."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    examples: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, surface: str, outcome: str, case: Any) -> None:
        per = self.counts.setdefault(surface, {})
        per[outcome] = per.get(outcome, 0) + 1
        if outcome in BAD_OUTCOMES:
            self.examples.setdefault(surface, {}).setdefault(outcome, repr(case)[:300])

    def bad(self, surface: str) -> tuple[int, int, int]:
        per = self.counts.get(surface, {})
        return per.get("crash", 0), per.get("hang", 0), per.get("internal", 0)


class Fakes:
    """Every upstream a fuzz run needs, on 127.0.0.1: the five providers, Open-Meteo and a page server,
    with settings that reach them and nothing else (names under `FUZZ_DOMAIN` resolve to 127.0.0.1)."""

    def __init__(self) -> None:
        self.providers: dict[str, ProviderFake] = {
            "tavily": FakeTavily(),
            "brave": FakeBrave(),
            "serper": FakeSerper(),
            "searxng": FakeSearxng(),
            "duckduckgo": FakeDuckDuckGo(),
        }
        self.weather = FakeOpenMeteo()
        self.pages = PageServer()
        self._stack = ExitStack()

    def __enter__(self) -> Fakes:
        for server in (*self.providers.values(), self.weather, self.pages):
            self._stack.enter_context(server)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def settings_values(self, data_dir: Any) -> dict[str, Any]:
        values: dict[str, Any] = {
            "data_dir": data_dir,
            "cache": {"enabled": False},
            "weather": self.weather.weather_settings(),
            "fetch": {"allowed_hosts": [self.pages.host], "timeout": 10.0},
            "policy": {"allow_domains": [FUZZ_DOMAIN, "127.0.0.1"]},
            # no breaker, no waiting, no benched key: every case reaches the parser
            "search": {
                "breaker_failures": 1_000_000,
                "max_retry_after_s": 0.0,
                "key_cooldown_s": 0.0,
                "key_quota_cooldown_s": 0.0,
            },
        }
        for fake in self.providers.values():
            values.update(fake.settings())
        for name in ("brave", "duckduckgo"):
            values[name]["requests_per_second"] = 1_000_000.0
        for name in self.providers:
            values[name]["timeout"] = 5.0
        return values

    @staticmethod
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]


def field_names(tool: Any) -> list[str]:
    """The parameter names of a tool, for `arguments`."""
    return list(tool.params.model_fields)


def required_names(tool: Any) -> list[str]:
    """The required parameter names of a tool, for `arguments`."""
    return [name for name, spec in tool.params.model_fields.items() if spec.is_required()]
