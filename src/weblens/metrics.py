"""Prometheus metrics for one `Runtime`: its own registry, never the process-global one.

Recorded in a few places only: the HTTP middleware (requests), `Toolset.call` (tool calls
by tool and outcome), the search router (upstream calls and 429s by provider, cache hits).
`GET /metrics` renders `Metrics.render()`. prometheus_client (over a second to import on a
loaded machine) is imported when a first figure is recorded, not by every CLI command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The counters and histograms weblens keeps; labels are bounded sets (routes, tools, providers)."""

    def __init__(self) -> None:
        self._registry: CollectorRegistry | None = None

    @property
    def registry(self) -> CollectorRegistry:
        if self._registry is None:
            self._build()
        assert self._registry is not None
        return self._registry

    def _build(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self._registry = r = CollectorRegistry(auto_describe=True)
        self.http_requests = Counter(
            "weblens_http_requests", "HTTP requests served", ["method", "route", "status"], registry=r
        )
        self.http_latency = Histogram(
            "weblens_http_request_seconds",
            "Time to the response's headers",
            ["route"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.tool_calls = Counter("weblens_tool_calls", "Tool calls", ["tool", "outcome"], registry=r)
        self.tool_latency = Histogram(
            "weblens_tool_call_seconds", "Tool call duration", ["tool"], buckets=_LATENCY_BUCKETS, registry=r
        )
        self.upstream_calls = Counter(
            "weblens_upstream_calls", "Requests to search providers", ["provider", "outcome"], registry=r
        )
        self.upstream_429 = Counter(
            "weblens_upstream_rate_limited",
            "Search provider answers asking to slow down (429)",
            ["provider"],
            registry=r,
        )
        self.upstream_latency = Histogram(
            "weblens_upstream_seconds",
            "Search provider call duration",
            ["provider"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.cache_lookups = Counter("weblens_cache_lookups", "Cache lookups", ["namespace", "result"], registry=r)
        self.renders = Counter("weblens_renders", "Browser renders and screenshots", ["outcome"], registry=r)
        self.render_latency = Histogram(
            "weblens_render_seconds", "Browser render duration", buckets=_LATENCY_BUCKETS, registry=r
        )
        self.browser_open_pages = Gauge("weblens_browser_open_pages", "Browser pages open now", registry=r)
        self.browser_restarts = Counter(
            "weblens_browser_restarts", "Browsers replaced (recycled or crashed)", ["reason"], registry=r
        )
        self.browser_rss_bytes = Gauge(
            "weblens_browser_rss_bytes", "Resident memory of the launched browser's processes", registry=r
        )

    def tool_call(self, tool: str, outcome: str, seconds: float) -> None:
        self.registry  # noqa: B018 - built on first use
        self.tool_calls.labels(tool, outcome).inc()
        self.tool_latency.labels(tool).observe(seconds)

    def upstream_call(self, provider: str, outcome: str, seconds: float) -> None:
        self.registry  # noqa: B018 - built on first use
        self.upstream_calls.labels(provider, outcome).inc()
        self.upstream_latency.labels(provider).observe(seconds)
        if outcome == "rate_limited":
            self.upstream_429.labels(provider).inc()

    def cache_lookup(self, namespace: str, hit: bool) -> None:
        self.registry  # noqa: B018 - built on first use
        self.cache_lookups.labels(namespace, "hit" if hit else "miss").inc()

    def render_done(self, outcome: str, seconds: float) -> None:
        self.registry  # noqa: B018 - built on first use
        self.renders.labels(outcome).inc()
        self.render_latency.observe(seconds)

    def browser_pages(self, open_now: int) -> None:
        self.registry  # noqa: B018 - built on first use
        self.browser_open_pages.set(open_now)

    def browser_restart(self, reason: str) -> None:
        self.registry  # noqa: B018 - built on first use
        self.browser_restarts.labels(reason).inc()

    def browser_rss(self, rss: int) -> None:
        self.registry  # noqa: B018 - built on first use
        self.browser_rss_bytes.set(rss)

    def http_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.registry  # noqa: B018 - built on first use
        self.http_requests.labels(method, route, str(status)).inc()
        self.http_latency.labels(route).observe(seconds)

    def render(self) -> bytes:
        from prometheus_client.exposition import generate_latest

        return generate_latest(self.registry)
