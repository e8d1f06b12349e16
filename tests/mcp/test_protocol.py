"""The gateway's protocol answers over streamable HTTP, as the official SDK's server gives them:
version negotiation, methods it does not serve, messages it cannot serve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, KNOWN_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from tests.mcp.test_http import INITIALIZE, body_of, post

from weblens._version import __version__

COMPLETION = {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}}


@pytest.fixture
def url(gateway_settings: Callable[..., Any], serve_http: Callable[..., Any]) -> str:
    return str(serve_http(gateway_settings()).url())


def initialize(url: str, version: str) -> dict[str, Any]:
    response = post(url, {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}})  # type: ignore[dict-item]
    assert response.status_code == 200, response.text
    result: dict[str, Any] = body_of(response)["result"]
    return result


def test_every_handshake_version_is_agreed_and_any_other_gets_the_latest(url: str) -> None:
    for version in HANDSHAKE_PROTOCOL_VERSIONS:  # 2024-11-05 included
        assert initialize(url, version)["protocolVersion"] == version
    for version in ("2099-01-01", "2026-07-28", "not-a-version"):  # 2026-07-28 has no handshake: server/discover
        assert initialize(url, version)["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    result = initialize(url, LATEST_HANDSHAKE_VERSION)
    assert result["serverInfo"] == {"name": "weblens", "version": __version__}
    assert result["capabilities"] == {"logging": {}, "tools": {"listChanged": False}}
    assert result["instructions"]


@pytest.mark.parametrize(
    "method", ["resources/list", "resources/templates/list", "prompts/list", "completion/complete"]
)
def test_a_method_it_does_not_serve_is_method_not_found(url: str, method: str) -> None:
    """The capabilities do not offer them; the SDK's low-level server answers -32601 (some clients,
    Claude Desktop among them, ask anyway and carry on)."""
    params = COMPLETION if method == "completion/complete" else {}
    answer = body_of(post(url, {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}))
    assert answer["id"] == 3 and answer["error"]["code"] == -32601


def test_a_batch_is_refused_with_a_sentence(url: str) -> None:
    response = post(url, [INITIALIZE, {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    assert response.status_code == 400
    answers = response.json()  # a batch's answer is an array: each request refused by its id
    assert [answer["id"] for answer in answers] == [1, 2]
    for answer in answers:  # a sentence, not a pydantic dump
        assert answer["error"]["code"] == -32600 and "batches are not supported" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": [1]}, "params"),
        ({"jsonrpc": "2.0", "id": 6}, "method"),
        ({"id": 6, "method": "ping"}, "jsonrpc"),
    ],
)
def test_a_malformed_request_is_refused_with_its_id_and_a_sentence(url: str, message: Any, says: str) -> None:
    response = post(url, message)
    assert response.status_code == 400
    answer = body_of(response)
    assert answer["id"] == 6 and answer["error"]["code"] == -32600
    assert says in answer["error"]["message"] and "validation error" not in answer["error"]["message"]


def test_ping_and_a_notification(url: str) -> None:
    assert body_of(post(url, {"jsonrpc": "2.0", "id": "p", "method": "ping"})) == {
        "jsonrpc": "2.0",
        "id": "p",
        "result": {},
    }
    assert post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202


def test_an_unknown_protocol_version_header_is_refused_naming_the_known_ones(url: str) -> None:
    response = post(url, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, **{"MCP-Protocol-Version": "2025-13-01"})
    assert response.status_code == 400  # the spec's answer
    answer = body_of(response)
    assert answer["id"] == 4 and answer["error"]["code"] == -32022
    assert "'2025-13-01'" in answer["error"]["message"] and "2025-06-18" in answer["error"]["message"]
    assert answer["error"]["data"] == {"supported": list(KNOWN_PROTOCOL_VERSIONS), "requested": "2025-13-01"}


def test_a_future_enveloped_request_still_gets_the_sdks_own_refusal(url: str) -> None:
    """A client of a later stateless revision reads the SDK's structured answer to pick a version it shares."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}
    message = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta}}
    answer = body_of(post(url, message, **{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"}))
    assert answer["id"] == 5 and answer["error"]["code"] == -32022
    assert "2026-07-28" in answer["error"]["data"]["supported"]
