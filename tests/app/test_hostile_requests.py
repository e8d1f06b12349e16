"""Every malformed request to the chat API is a 4xx JSON error in the API's shape, quickly, never a 500."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from weblens import Settings
from weblens.testing.llm import ScriptedLLM, Turn

BOMB = b'{"message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
DEEP_BUT_PARSEABLE = b'{"message": "hi", "x": ' + b"[" * 500 + b"]" * 500 + b"}"
BODIES = {
    "json bomb": BOMB,
    "deep nesting": DEEP_BUT_PARSEABLE,
    "huge integer": b'{"message": "hi", "session_id": ' + b"9" * 5000 + b"}",
    "integer just over the limit": b'{"message": "hi", "n": -' + b"1" * 4301 + b"}",
    "lone surrogate": b'{"message": "\\ud800 hello"}',
    "lone surrogate in a key": b'{"\\udfff": 1, "message": "hi"}',
    "UTF-8 encoded surrogate": b'{"message": "\xed\xa0\x80"}',
    "invalid UTF-8": b'{"message": "caf\xe9"}',
    "UTF-16": '{"message": "hi"}'.encode("utf-16"),
    "NaN": b'{"message": "hi", "n": NaN}',
    "infinite number": b'{"message": "hi", "n": 1e999}',
    "truncated": b'{"message": "hi"',
    "not an object": b'["message"]',
    "empty": b"",
}
ROUTES = [("POST", "/api/chat"), ("POST", "/api/sessions"), ("POST", "/api/tools/web_search")]


def assert_json_4xx(response: httpx.Response) -> dict[str, Any]:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:500])
    error = response.json()["error"]
    assert set(error) == {"code", "message"} and error["code"] and error["message"]
    assert "Traceback" not in response.text
    return dict(error)


@pytest.mark.parametrize("route", ROUTES, ids=[path for _, path in ROUTES])
@pytest.mark.parametrize("name", list(BODIES))
async def test_a_malformed_body_is_a_4xx_json_error(
    name: str, route: tuple[str, str], client: httpx.AsyncClient, llm: ScriptedLLM
) -> None:
    method, path = route
    if name == "empty" and path != "/api/chat":
        pytest.skip("an empty body is a valid request there (no fields)")
    response = await client.request(method, path, content=BODIES[name], headers={"content-type": "application/json"})
    error = assert_json_4xx(response)
    assert error["code"] == "validation_error"
    assert "set_int_max_str_digits" not in error["message"]  # no advice meant for Python programmers
    assert llm.sent == []


async def test_the_messages_say_what_is_wrong(client: httpx.AsyncClient) -> None:
    async def message(body: bytes) -> str:
        return str(assert_json_4xx(await client.post("/api/chat", content=body))["message"])

    assert "nested deeper than 64 levels" in await message(BOMB)
    assert "5000 digits" in await message(BODIES["huge integer"])
    assert "lone surrogate (\\ud800)" in await message(BODIES["lone surrogate"])
    assert "not UTF-8" in await message(BODIES["invalid UTF-8"])


async def test_after_hostile_bodies_the_server_still_chats(
    client: httpx.AsyncClient, chat: Callable[..., Any], llm: ScriptedLLM
) -> None:
    for body in BODIES.values():
        await client.post("/api/chat", content=body)
    llm.add(Turn(text="Still here."))
    events = await chat("hello")
    assert events[-1].event == "done" and events[-1].data["answer"] == "Still here."


async def test_hostile_paths_and_queries_are_not_500s(client: httpx.AsyncClient) -> None:
    for path in ("/api/sessions/%ED%A0%80", "/api/sessions/%FF%FE", "/api/sessions/" + "a" * 5000):
        response = await client.get(path)
        assert_json_4xx(response)
    raw = await client.get("/api/sessions?q=%ED%A0%80%FF")
    assert raw.status_code == 200 and raw.json()["sessions"] == []


def raw_exchange(port: int, request: bytes, *, wait_s: float) -> tuple[bytes, float]:
    """Send `request` on a raw socket and read until the server closes; (what came back, seconds)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as sock:
        sock.sendall(request)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
    return received, time.monotonic() - start


@pytest.mark.parametrize("path", ["/api/chat", "/api/sessions", "/mcp"])
def test_a_lying_content_length_is_a_408_soon(
    path: str, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(server={"body_timeout_s": 1.0}))
    body = b'{"message": "hi"}'
    request = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body) + 100}\r\n\r\n"
    ).encode() + body
    received, took = raw_exchange(server.port, request, wait_s=15)
    head, _, payload = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), received[:300]
    assert json.loads(payload)["error"]["code"] == "timeout"
    assert took < 10  # the body timeout (1 s) with a wide margin for a loaded machine; the connection is closed


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
async def test_the_auth_scheme_is_case_insensitive(
    scheme: str, serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(server={"host": "0.0.0.0"}, mcp={"token": "s3cret-token"}))
    async with httpx.AsyncClient(base_url=server.url()) as http:
        ok = await http.get("/api/sessions", headers={"authorization": f"{scheme} s3cret-token"})
        assert ok.status_code == 200, ok.text
        wrong = await http.get("/api/sessions", headers={"authorization": f"{scheme} s3cret-tokem"})
        assert wrong.status_code == 401
        other = await http.get("/api/sessions", headers={"authorization": "Basic s3cret-token"})
        assert other.status_code == 401
