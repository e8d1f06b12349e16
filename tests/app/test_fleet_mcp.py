"""/mcp behind a load balancer that does not stick a client to one replica.

Successive requests of one client alternate between two replicas (`RoundRobin`): with
the SDK's own client (the current, sessionless protocol) and with a client speaking the
2025-06-18 handshake (session ids), as most MCP hosts in the field still do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.client import Client

from weblens import Settings
from weblens.app.server import create_app
from weblens.testing import ServedApp
from weblens.testing.balancer import RoundRobin

from .conftest import search_toolset

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LEGACY = "2025-06-18"


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[RoundRobin, ServedApp]]:
    replicas = [
        ServedApp(
            create_app(
                Settings(data_dir=tmp_path / f"replica{i}", mcp={"tools": ["web_search"]}), toolset=search_toolset()
            )
        )
        for i in range(2)
    ]
    balancer = RoundRobin([replica.url() for replica in replicas])
    front = ServedApp(balancer)
    yield balancer, front
    front.stop()
    for replica in replicas:
        replica.stop()


async def test_the_sdk_client_alternating_between_two_replicas_succeeds(fleet: tuple[RoundRobin, ServedApp]) -> None:
    balancer, front = fleet
    async with Client(front.url("/mcp")) as client:
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["web_search"]
        for query in ("first", "second", "third", "fourth"):
            result = await client.call_tool("web_search", {"query": query})
            assert not result.is_error and f"results for {query}" in str(result.content)
    assert min(balancer.served) >= 3  # both replicas really answered
    assert all(status < 400 for status in balancer.statuses), balancer.statuses


def _message(response: httpx.Response) -> Any:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


async def test_a_2025_handshake_client_alternating_between_two_replicas_succeeds(
    fleet: tuple[RoundRobin, ServedApp],
) -> None:
    balancer, front = fleet
    headers = dict(HEADERS)
    async with httpx.AsyncClient(base_url=front.url(), timeout=20) as http:

        async def rpc(method: str, params: dict[str, Any], id_: int | None) -> Any:
            body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
            if id_ is not None:
                body["id"] = id_
            response = await http.post("/mcp", json=body, headers=headers)
            assert response.status_code < 400, (method, response.status_code, response.text)
            if "mcp-session-id" in response.headers:
                headers["mcp-session-id"] = response.headers["mcp-session-id"]
            return _message(response) if id_ is not None else None

        init = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "legacy", "version": "1"}}
        assert (await rpc("initialize", init, 1))["result"]["protocolVersion"] == LEGACY
        headers["mcp-protocol-version"] = LEGACY
        await rpc("notifications/initialized", {}, None)
        assert [t["name"] for t in (await rpc("tools/list", {}, 2))["result"]["tools"]] == ["web_search"]
        for n, query in enumerate(("first", "second", "third"), start=3):
            result = (await rpc("tools/call", {"name": "web_search", "arguments": {"query": query}}, n))["result"]
            assert not result["isError"] and f"results for {query}" in json.dumps(result)
    assert min(balancer.served) >= 3
