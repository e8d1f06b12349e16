"""What an operator's probes and Prometheus see: /health, /ready and /metrics."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from weblens import Settings
from weblens.app.server import create_app
from weblens.runtime import Runtime
from weblens.testing import Reply, ServedApp
from weblens.testing.providers import FakeBrave


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def test_ready_lists_each_backend_and_health_stays_cheap(
    make_settings: Callable[..., Settings], database_url: str | None
) -> None:
    server = ServedApp(create_app(make_settings(database_url=database_url)))
    try:
        async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
            assert (await http.get("/health")).json()["status"] == "ok"
            ready = await http.get("/ready")
    finally:
        server.stop()
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready"
    if database_url is None:
        assert body["checks"] == {"sqlite": {"status": "ok"}}  # the sessions file; state is in-process
    else:
        assert body["checks"] == {"postgresql": {"status": "ok"}}


async def test_metrics_count_requests_tool_calls_upstream_calls_429s_and_cache_hits(tmp_path: Path) -> None:
    async with FakeBrave() as brave:
        settings = Settings(
            brave={"base_url": brave.url(), "api_key": brave.api_key},
            search={"provider": ["brave"]},
            data_dir=tmp_path / "data",
        )
        brave.queue(brave.search_path, Reply(status=429, headers={"Retry-After": "0"}, body={"error": "slow down"}))
        server = ServedApp(create_app(settings))  # the production wiring
        try:
            async with httpx.AsyncClient(base_url=server.url(), timeout=30) as http:
                for query in ("tea", "tea", "coffee"):
                    ran = await http.post("/api/tools/web_search", json={"arguments": {"query": query}})
                    assert ran.status_code == 200 and ran.json()["ok"] is True, ran.text
                assert (await http.post("/api/tools/web_search", json={"arguments": {}})).json()["ok"] is False
                response = await http.get("/metrics")
        finally:
            server.stop()
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    seen = _samples(response.text)
    assert seen[("weblens_tool_calls_total", (("outcome", "ok"), ("tool", "web_search")))] == 3
    assert seen[("weblens_tool_calls_total", (("outcome", "validation_error"), ("tool", "web_search")))] == 1
    assert seen[("weblens_tool_call_seconds_count", (("tool", "web_search"),))] == 4
    assert seen[("weblens_upstream_rate_limited_total", (("provider", "brave"),))] == 1
    assert seen[("weblens_upstream_calls_total", (("outcome", "rate_limited"), ("provider", "brave")))] == 1
    assert seen[("weblens_upstream_calls_total", (("outcome", "ok"), ("provider", "brave")))] == 2
    assert seen[("weblens_cache_lookups_total", (("namespace", "search"), ("result", "hit")))] == 1
    assert seen[("weblens_cache_lookups_total", (("namespace", "search"), ("result", "miss")))] == 2
    route = (("method", "POST"), ("route", "/api/tools/{name}"), ("status", "200"))
    assert seen[("weblens_http_requests_total", route)] == 4
    assert seen[("weblens_http_request_seconds_count", (("route", "/api/tools/{name}"),))] == 4
    assert brave.count() == 3


def test_each_runtime_has_its_own_registry() -> None:
    one, two = Runtime(Settings()), Runtime(Settings())
    one.metrics.tool_call("web_search", "ok", 0.1)
    assert b'weblens_tool_calls_total{outcome="ok",tool="web_search"} 1.0' in one.metrics.render()
    assert b"weblens_tool_calls_total{" not in two.metrics.render()
