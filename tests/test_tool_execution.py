"""Timeouts that cancel for real, retries, cancellation and approval, against a real local server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from weblens import CancelSignal, Retry, ToolContext, define_tool
from weblens.net import create_client, error_for_status, translate_errors
from weblens.testing import FakeServer, Reply
from weblens.tool import deadline_paused


class Params(BaseModel):
    path: str = "/"


@pytest.fixture
async def server() -> AsyncIterator[FakeServer]:
    async with FakeServer() as fake:
        fake.route("GET", "/ok", Reply(body={"ok": True}))
        fake.route("GET", "/slow", Reply(body={"ok": True}, delay_s=10))
        yield fake


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with create_client() as made:
        yield made


def http_tool(server: FakeServer, client: httpx.AsyncClient, **options: Any) -> Any:
    async def get(params: Params) -> Any:
        with translate_errors("test upstream"):
            response = await client.get(server.url(params.path))
        if response.status_code >= 400:
            raise error_for_status(response.status_code, provider="test upstream", headers=response.headers)
        return response.json()

    return define_tool(name="get", description="GET a path.", input_schema=Params, execute=get, **options)


async def wait_for(predicate: Any, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


async def test_timeout_closes_the_in_flight_request(server: FakeServer, client: httpx.AsyncClient) -> None:
    tool = http_tool(server, client, timeout=0.3)
    started = time.monotonic()
    result = await tool.execute({"path": "/slow"})
    assert time.monotonic() - started < 2
    assert result.error is not None and result.error.code == "timeout"
    assert "0.3 s" in result.error.message
    await wait_for(lambda: server.disconnects == 1)  # the server saw the client hang up


async def test_retry_honours_retry_after_and_counts_attempts(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.queue("/ok", Reply(status=429, headers={"Retry-After": "0.3"}), Reply(status=503))
    tool = http_tool(server, client, retry=Retry(max_attempts=3, delay=0.01))
    result = await tool.execute({"path": "/ok"})
    assert result.ok and result.data == {"ok": True}
    assert result.attempts == 3
    first, second, _ = server.requests
    assert second.received_at - first.received_at >= 0.28  # waited as Retry-After said


async def test_retry_is_bounded_by_max_attempts(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.queue("/ok", *[Reply(status=500) for _ in range(5)])
    result = await http_tool(server, client, retry=Retry(max_attempts=2, delay=0.01)).execute({"path": "/ok"})
    assert result.error is not None and result.error.code == "upstream_error"
    assert result.attempts == 2 and server.count("/ok") == 2


async def test_non_retryable_failures_are_not_retried(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.queue("/ok", Reply(status=401), Reply(status=200, body={}))
    result = await http_tool(server, client, retry=Retry(max_attempts=3, delay=0.01)).execute({"path": "/ok"})
    assert result.error is not None and result.error.code == "not_configured"
    assert result.attempts == 1 and server.count("/ok") == 1


async def test_no_retry_when_the_wait_would_pass_the_timeout(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.queue("/ok", Reply(status=429, headers={"Retry-After": "30"}))
    started = time.monotonic()
    result = await http_tool(server, client, timeout=1, retry=Retry(max_attempts=3)).execute({"path": "/ok"})
    assert time.monotonic() - started < 1
    assert result.error is not None and result.error.code == "rate_limited"
    assert result.error.retry_after_s == 30


async def test_cancel_signal_ends_the_call_as_cancelled(server: FakeServer, client: httpx.AsyncClient) -> None:
    signal = CancelSignal()
    tool = http_tool(server, client)
    asyncio.get_running_loop().call_later(0.2, signal.cancel, "user pressed stop")
    result = await tool.execute({"path": "/slow"}, ToolContext(cancel=signal))
    assert result.error is not None and result.error.code == "cancelled"
    assert result.error.message == "user pressed stop"
    await wait_for(lambda: server.disconnects == 1)
    # the task that ran the call is usable afterwards (the cancellation was absorbed)
    assert (await tool.execute({"path": "/ok"})).ok


async def test_an_already_cancelled_signal_runs_nothing(server: FakeServer, client: httpx.AsyncClient) -> None:
    signal = CancelSignal()
    signal.cancel()
    result = await http_tool(server, client).execute({"path": "/ok"}, ToolContext(cancel=signal))
    assert result.error is not None and result.error.code == "cancelled"
    assert server.count() == 0


async def test_outside_cancellation_still_propagates(server: FakeServer, client: httpx.AsyncClient) -> None:
    task = asyncio.create_task(http_tool(server, client).execute({"path": "/slow"}))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


class ApproveParams(BaseModel):
    target: str


async def test_approval_is_asked_after_validation() -> None:
    ran: list[str] = []
    asked: list[tuple[str, dict[str, Any]]] = []

    async def delete(params: ApproveParams) -> str:
        ran.append(params.target)
        return "deleted"

    tool = define_tool(
        name="delete", description="Delete.", input_schema=ApproveParams, execute=delete, needs_approval=True
    )

    no_approver = await tool.execute({"target": "a"})
    assert no_approver.error is not None and no_approver.error.code == "approval_required"

    async def deny(name: str, args: dict[str, Any]) -> bool:
        asked.append((name, args))
        return False

    denied = await tool.execute({"target": "b"}, ToolContext(approve=deny))
    assert denied.error is not None and denied.error.code == "approval_required"

    invalid = await tool.execute({}, ToolContext(approve=deny))
    assert invalid.error is not None and invalid.error.code == "validation_error"
    assert asked == [("delete", {"target": "b"})]  # invalid calls never reach the approver

    approved = await tool.execute({"target": "c"}, ToolContext(approve=lambda name, args: True))
    assert approved.ok and approved.text == "deleted"
    assert ran == ["c"]


async def test_tracer_gets_a_span_per_call() -> None:
    from contextlib import contextmanager

    spans: list[dict[str, Any]] = []

    class Span:
        def __init__(self) -> None:
            self.attributes: dict[str, Any] = {}

        def set_attribute(self, key: str, value: Any) -> None:
            self.attributes[key] = value

    class Tracer:
        @contextmanager
        def start_as_current_span(self, name: str, **kwargs: Any) -> Any:
            span = Span()
            yield span
            spans.append({"name": name, **span.attributes})

    async def noop(params: Params) -> str:
        return "x"

    tool = define_tool(name="noop", description="d", input_schema=Params, execute=noop)
    await tool.execute({}, ToolContext(tracer=Tracer()))
    assert spans == [{"name": "tool noop", "weblens.tool": "noop", "weblens.outcome": "ok"}]


async def test_time_waiting_for_something_shared_is_not_counted_and_a_timeout_says_what_was() -> None:
    async def queued(params: Params) -> Any:
        with deadline_paused("a free worker"):
            await asyncio.sleep(0.5)  # longer than the whole deadline, and not this call's doing
        if params.path == "/slow":
            await asyncio.sleep(10)
        return {"ok": True}

    tool = define_tool(name="queued", description="Waits its turn.", input_schema=Params, execute=queued, timeout=0.3)
    served = await tool.execute({"path": "/"})
    late = await tool.execute({"path": "/slow"})
    assert served.ok, served.error
    assert late.error is not None and late.error.code == "timeout"
    assert "did not finish within 0.3 s (wall-clock time since the call started;" in late.error.message
    assert "waiting for a free worker not counted" in late.error.message
    details = late.error.details
    assert details["measured"] == "wall_clock" and details["timeout_s"] == 0.3 and details["not_counted_s"] >= 0.45
