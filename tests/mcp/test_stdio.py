"""`weblens mcp` over stdio as clients of every kind write to it: each request gets an answer
(never silence, which leaves a client waiting forever), stdout carries only JSON-RPC, and the
process ends cleanly when the client closes stdin."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from tests.mcp.conftest import RawStdio

ANSWER_S = 10.0
PING = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'


@pytest.fixture
def gateway(raw_stdio: Callable[..., RawStdio]) -> RawStdio:
    started = raw_stdio(WEBLENS_MCP_MAX_BODY_BYTES="100000")
    assert started.initialize()["result"]["serverInfo"]["name"] == "weblens"
    return started


def answers(gateway: RawStdio, count: int) -> list[Any]:
    return [gateway.receive(ANSWER_S) for _ in range(count)]


def test_line_endings_blank_lines_and_content_length_frames_are_read(gateway: RawStdio) -> None:
    gateway.write(b"\n   \n" + PING % 1 + b"\r\n")  # blank lines are skipped, CRLF is a line end
    framed = PING % 2
    gateway.write(b"Content-Length: %d\r\n\r\n%s" % (len(framed), framed))  # LSP-style framing, no newline after
    gateway.write(PING % 3 + b"\n")
    assert [(a["id"], a["result"]) for a in answers(gateway, 3)] == [(1, {}), (2, {}), (3, {})]
    assert gateway.close() == 0
    assert "Content-Length framing" in gateway.stderr()


@pytest.mark.parametrize(
    ("line", "code", "answer_id", "says"),
    [
        (b"{not json", -32700, None, "Parse error"),
        (b'{"id": 7, "method": "ping"}', -32600, 7, "jsonrpc"),  # no "jsonrpc": "2.0"
        (b'{"jsonrpc": "2.0", "id": 7.5, "method": "ping"}', -32600, None, "id must be a string or an integer"),
        (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, None, "id must be a string or an integer"),
        (b'{"jsonrpc": "2.0", "id": 7}', -32600, 7, "method"),
        (b'"ping"', -32600, None, "JSON object"),
    ],
)
def test_a_malformed_message_is_answered_not_dropped(
    gateway: RawStdio, line: bytes, code: int, answer_id: int | None, says: str
) -> None:
    gateway.write(line + b"\n" + PING % 1 + b"\n")
    refused, ping = answers(gateway, 2)
    assert refused["id"] == answer_id and refused["error"]["code"] == code and says in refused["error"]["message"]
    assert ping == {"jsonrpc": "2.0", "id": 1, "result": {}}  # the session goes on
    assert gateway.close() == 0
    assert "stdin:" in gateway.stderr()  # the server's log says what it refused


def test_a_batch_is_refused_request_by_request(gateway: RawStdio) -> None:
    batch = [json.loads(PING % 5), {"jsonrpc": "2.0", "method": "notifications/initialized"}, json.loads(PING % 6)]
    gateway.send(batch)
    refused = answers(gateway, 2)
    assert [a["id"] for a in refused] == [5, 6]
    assert all(a["error"]["code"] == -32600 and "batches are not supported" in a["error"]["message"] for a in refused)


def test_an_oversized_message_is_refused_and_not_kept(gateway: RawStdio) -> None:
    huge = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"think","arguments":{"thought":"'
    gateway.write(huge + b"x" * 1_000_000 + b'"}}}\n' + PING % 1 + b"\n")
    refused, ping = answers(gateway, 2)
    assert refused["error"] == {"code": -32600, "message": "Invalid Request: message too large"}
    assert ping["id"] == 1
    assert gateway.close() == 0
    assert "mcp.max_body_bytes" in gateway.stderr()
