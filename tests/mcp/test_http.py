"""HTTP safety of the gateway: bearer token, Host/Origin checks, body limit, loopback by default."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcp.client.client import Client
from typer.testing import CliRunner

from weblens.cli import app
from weblens.errors import NotConfiguredError
from weblens.mcp.client import RemoteServer
from weblens.mcp.http import is_loopback, mcp_http_app
from weblens.toolset import Toolset

TOKEN = "s3cret-token-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(url: str, body: Any = INITIALIZE, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(url, content=content, headers={**MCP_HEADERS, **headers}, timeout=10)


@pytest.fixture
def gateway(gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]) -> Callable[..., str]:
    def start(**mcp: Any) -> str:
        return str(serve_http(gateway_settings(mcp=mcp)).url())

    return start


def body_of(response: httpx.Response) -> Any:
    """The JSON-RPC message in a plain JSON or a one-event SSE response."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line.removeprefix("data:").strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_plain_initialize_works(gateway: Callable[..., str]) -> None:
    response = post(gateway())
    assert response.status_code == 200
    assert body_of(response)["result"]["serverInfo"]["name"] == "weblens"


def test_token_required_when_set(gateway: Callable[..., str]) -> None:
    url = gateway(token=TOKEN)
    missing = post(url)
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    told = missing.json()["error_description"]  # what to set and what to send, not a bare "Authentication required"
    assert "WEBLENS_MCP_TOKEN" in told and "Authorization: Bearer <token>" in told
    assert "WEBLENS_MCP_TOKEN" in missing.headers["www-authenticate"]
    wrong = post(url, Authorization="Bearer not-the-token")
    assert wrong.status_code == 401
    assert TOKEN not in wrong.text and TOKEN not in missing.text
    assert post(url, Authorization=f"Bearer {TOKEN}").status_code == 200


async def test_official_client_with_the_token(gateway: Callable[..., str]) -> None:
    url = gateway(token=TOKEN)
    async with RemoteServer.http(url, token=TOKEN) as remote:
        assert "get_weather" in [tool.name for tool in await remote.tools()]
    with pytest.raises(Exception):  # noqa: B017 - without the token the SDK client cannot even connect
        async with Client(url):
            pass


HOST_ORIGIN_CASES: list[tuple[dict[str, str], int]] = [
    ({"Origin": "http://evil.example"}, 403),
    ({"Origin": "http://127.0.0.1.evil.example:8000"}, 403),
    ({"Origin": "null"}, 403),
    ({"Host": "evil.example"}, 421),
    ({"Host": "evil.example:80"}, 421),
    ({"Origin": "http://localhost:5173"}, 200),
    ({"Origin": "http://127.0.0.1"}, 200),
    ({"Origin": "https://app.example"}, 200),  # listed in mcp.allowed_origins
]


def test_host_and_origin_checks(gateway: Callable[..., str]) -> None:
    url = gateway(allowed_origins=["https://app.example"])  # one server for every case
    answers = [(headers, post(url, **headers).status_code) for headers, _ in HOST_ORIGIN_CASES]
    assert answers == [(headers, status) for headers, status in HOST_ORIGIN_CASES]


def test_origin_is_checked_for_token_holders_too(gateway: Callable[..., str]) -> None:
    url = gateway(token=TOKEN)
    assert post(url, Authorization=f"Bearer {TOKEN}", Origin="http://evil.example").status_code == 403


def test_request_body_limit(gateway: Callable[..., str]) -> None:
    url = gateway(max_body_bytes=2048)
    big = {**INITIALIZE, "params": {**INITIALIZE["params"], "padding": "x" * 4096}}  # type: ignore[dict-item]
    assert post(url, big).status_code == 413
    assert post(url).status_code == 200


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False),
])
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])
def test_refuses_a_reachable_address_without_a_token(gateway_settings: Callable[..., Any], host: str) -> None:
    with pytest.raises(NotConfiguredError, match="WEBLENS_MCP_TOKEN"):
        mcp_http_app(gateway_settings(), host=host, toolset=Toolset())
    assert mcp_http_app(gateway_settings(mcp={"token": TOKEN}), host=host, toolset=Toolset()).app is not None


def test_cli_refuses_a_reachable_address_without_a_token() -> None:
    out = CliRunner().invoke(app, ["mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "1"])
    assert out.exit_code == 2  # a bad setting (README: exit codes)
    assert "not_configured" in out.output and "WEBLENS_MCP_TOKEN" in out.output and "Traceback" not in out.output


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_cli_http_binds_loopback_by_default(gateway_env: dict[str, str]) -> None:
    port = free_port()
    env = {**os.environ, **gateway_env, "WEBLENS_MCP_PORT": str(port)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "weblens", "mcp", "--transport", "http"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                response = post(f"http://127.0.0.1:{port}/mcp")
                break
            except httpx.ConnectError:
                assert proc.poll() is None and time.monotonic() < deadline, "weblens mcp did not start"
                time.sleep(0.1)
        assert response.status_code == 200
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
        if listening:  # `ss` is there: the socket is bound to loopback only
            assert listening.split()[3] == f"127.0.0.1:{port}"  # the local address column
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/mcp" in err


@pytest.mark.parametrize(
    "raw_id",
    [b"1.5", b'{"a": 1}', b"NaN", b"null", b"true", b"[1]"],
    ids=["float", "object", "nan", "null", "bool", "array"],
)
def test_a_request_with_an_invalid_id_is_answered_invalid_request(gateway: Callable[..., str], raw_id: bytes) -> None:
    url = gateway()
    body = json.dumps({**INITIALIZE, "id": "X"}).encode().replace(b'"X"', raw_id)
    response = post(url, body)
    assert response.status_code == 400
    error = body_of(response)
    assert error["jsonrpc"] == "2.0" and error["id"] is None
    assert error["error"]["code"] == -32600 and "id" in error["error"]["message"]
    assert post(url, {**INITIALIZE, "id": "req-7"}).status_code == 200  # strings and integers still answer
    assert body_of(post(url, {**INITIALIZE, "id": 8}))["id"] == 8
