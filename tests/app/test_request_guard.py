"""The chat API refuses cross-site requests (CSRF) and foreign Host names (DNS rebinding)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from weblens import Settings
from weblens.testing.llm import ScriptedLLM, Turn


async def test_a_cross_site_post_is_refused_and_runs_nothing(
    llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    async with httpx.AsyncClient(base_url=server.url()) as http:
        # what any web page can send to 127.0.0.1 without a CORS preflight
        response = await http.post(
            "/api/chat",
            content=b'{"message": "spend the owner\'s tokens"}',
            headers={"content-type": "text/plain", "origin": "https://evil.example"},
        )
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "blocked"
        assert (await http.get("/api/sessions")).json()["sessions"] == []
    assert llm.sent == []


async def test_a_rebound_host_name_cannot_read_the_sessions(
    serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings())
    async with httpx.AsyncClient(base_url=server.url()) as http:
        assert (await http.post("/api/sessions", json={"title": "private"})).status_code == 201
        response = await http.get("/api/sessions", headers={"host": f"evil.example:{server.port}"})
        assert response.status_code == 421, response.text
        assert response.json()["error"]["code"] == "blocked"


async def test_the_page_itself_and_same_origin_calls_pass(
    llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    llm.add(Turn(text="hi"))
    server = serve(make_settings())
    async with httpx.AsyncClient(base_url=server.url()) as http:
        for origin in (server.url(), f"http://localhost:{server.port}"):
            assert (await http.get("/", headers={"origin": origin})).status_code == 200
        response = await http.post("/api/chat", json={"message": "hello"}, headers={"origin": server.url()})
        assert response.status_code == 200 and "event: done" in response.text
        host = {"host": f"localhost:{server.port}"}
        assert (await http.get("/api/sessions", headers=host)).status_code == 200


async def test_the_bound_address_is_a_valid_host_name(
    serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(server={"host": "127.0.0.2"}))
    async with httpx.AsyncClient(base_url=server.url()) as http:
        response = await http.get("/api/sessions", headers={"host": f"127.0.0.2:{server.port}"})
        assert response.status_code == 200, response.text


async def test_on_a_reachable_address_the_api_needs_the_token(
    llm: ScriptedLLM, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    # settings say 0.0.0.0 (other machines can reach it); the test server itself listens on loopback
    server = serve(make_settings(server={"host": "0.0.0.0"}, mcp={"token": "s3cret-token"}))
    async with httpx.AsyncClient(base_url=server.url()) as http:
        assert (await http.get("/")).status_code == 200  # the page loads and asks for the token
        assert (await http.get("/health")).status_code == 200
        refused = await http.get("/api/sessions")
        assert refused.status_code == 401 and "Bearer" in refused.json()["error"]["message"]
        wrong = await http.get("/api/sessions", headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = await http.get("/api/sessions", headers={"authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200 and ok.json()["sessions"] == []
        # a crawl job makes the server fetch for hours: no token, no job
        job = await http.post("/api/crawls", json={"url": "https://example.com/"})
        assert job.status_code == 401 and (await http.get("/api/crawls")).status_code == 401
        listed = await http.get("/api/crawls", headers={"authorization": "Bearer s3cret-token"})
        assert listed.status_code == 200, listed.text
    assert llm.sent == []


async def test_on_a_reachable_address_without_a_token_the_api_stays_shut(
    serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(server={"host": "0.0.0.0"}))
    async with httpx.AsyncClient(base_url=server.url()) as http:
        response = await http.get("/api/sessions")
        assert response.status_code == 401 and "WEBLENS_MCP_TOKEN" in response.json()["error"]["message"]
