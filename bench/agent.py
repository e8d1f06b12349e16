"""The agent loop and the chat server, driven by the scripted model. Prints medians of several rounds:

- loop overhead per step: an answer's wall time minus the time spent waiting on the model
  and in tools, divided by its model calls (target < 2 ms). Each answer is one
  `web_search` call and one final answer (two model calls).
- one model stream (`ChatModel.stream`, ~60 chunks: a tool call, then an answer): wall
  time and CPU of this process (the client) and of the scripted model (the server) per
  stream, for weblens' own chunk reader beside the SDK's typed chunks (the path before,
  kept below as `SdkTypedModel`: the baseline, interleaved in the same run)
- one chat stream through the chat server (POST /api/chat, SSE until `done`): wall time
  and the chat server's CPU per stream, again beside a server on the SDK's typed chunks
- 50 concurrent chat streams on one server: all complete, every user and assistant
  message saved; wall time for the batch.

The scripted model (and, for the second part, the chat server) run in child processes,
so their event loops do not compete with the one being measured.

    .venv/bin/python bench/agent.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import httpx
from pydantic import BaseModel

from procstat import cpu_seconds
from weblens import Source, ToolResult, Toolset, define_tool
from weblens.agent import Agent, ChatModel, ModelTurn, ToolCall, ToolResultEvent
from weblens.agent.events import Usage

MODEL_LATENCY_S = 0.005
ROUNDS = 5
ANSWERS_PER_ROUND = 40
STREAMS = 50
STREAM_ROUNDS = 3
SINGLE_STREAMS = 20
TARGET_MS = 2.0
TIMEOUT_S = 60.0


class Query(BaseModel):
    query: str


async def _search(params: Query) -> ToolResult:
    sources = [Source(title=f"Result {i}", url=f"https://example.com/{i}") for i in range(5)]
    return ToolResult.success(f"5 results for {params.query}", sources=sources, brief="5 results")


def toolset() -> Toolset:
    return Toolset([define_tool(name="web_search", description="Search the web", input_schema=Query, execute=_search)])


class SdkTypedModel(ChatModel):
    """The path before: the SDK turns every streamed chunk into typed objects (the baseline)."""

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> AsyncGenerator[str | ModelTurn, None]:
        turn = ModelTurn()
        calls: dict[int, ToolCall] = {}
        kwargs: dict[str, Any] = {"tools": list(tools)} if tools else {}
        stream = await self._client.chat.completions.create(
            model=self.model, messages=list(messages), stream=True, stream_options={"include_usage": True}, **kwargs
        )  # type: ignore[call-overload]
        async with stream:
            async for chunk in stream:
                if chunk.usage is not None:
                    turn.usage = Usage(**chunk.usage.model_dump(include={"prompt_tokens", "completion_tokens",
                                                                         "total_tokens"}))  # fmt: skip
                for choice in chunk.choices:
                    if choice.delta.content:
                        turn.text += choice.delta.content
                        yield choice.delta.content
                    for fragment in choice.delta.tool_calls or ():
                        call = calls.setdefault(fragment.index, ToolCall(id="", name=""))
                        call.id = fragment.id or call.id
                        if fragment.function is not None:
                            call.name += fragment.function.name or ""
                            call.arguments += fragment.function.arguments or ""
                    if choice.finish_reason:
                        turn.finish_reason = choice.finish_reason
        turn.tool_calls = [calls[i] for i in sorted(calls)]
        yield turn


# -- child processes -------------------------------------------------------------------


def serve_model() -> None:
    """Child: a scripted model that searches once, then answers citing [1] and [2]."""
    from weblens.testing.llm import ScriptedLLM, Turn, call

    def respond(body: dict[str, Any]) -> Turn:
        if body["messages"][-1]["role"] == "tool":
            return Turn(text="Here is what the search found: the first result [1] and the second [2]. " * 3)
        return Turn(tool_calls=[call("web_search", {"query": body["messages"][-1]["content"][:40]})])

    model = ScriptedLLM(responder=respond, latency_s=MODEL_LATENCY_S).start()
    print(model.base_url, flush=True)
    sys.stdin.read()


def serve_app(model_url: str, data_dir: str, path: str = "weblens") -> None:
    """Child: the chat server with the bench toolset, on a free port (`path` "sdk": the SDK's typed chunks)."""
    import socket

    import uvicorn

    from weblens import Settings
    from weblens.agent import llm
    from weblens.app.server import create_app

    if path == "sdk":  # the baseline server: every ChatModel it builds reads the stream the old way
        llm.ChatModel.stream = SdkTypedModel.stream  # type: ignore[method-assign]

    settings = Settings(data_dir=data_dir, llm={"base_url": model_url, "model": "scripted"}, cache={"enabled": False})
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(create_app(settings, toolset=toolset()), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


def child(*args: str) -> tuple[subprocess.Popen[str], str]:
    """A child process running this file with `args`; returns it and the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, __file__, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


# -- part 1: loop overhead ---------------------------------------------------------------


class TimedModel:
    """Passes the stream through, adding up the time spent waiting on the model."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.waiting_s = 0.0
        self.calls = 0

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> AsyncGenerator[str | ModelTurn, None]:
        self.calls += 1
        inner = self.model.stream(messages, tools)
        while True:
            started = time.perf_counter()
            try:
                piece = await anext(inner)
            except StopAsyncIteration:
                self.waiting_s += time.perf_counter() - started
                return
            self.waiting_s += time.perf_counter() - started
            yield piece


async def loop_overhead(model_url: str) -> list[float]:
    """Per-round median overhead per step, in ms."""
    model = ChatModel(base_url=model_url, model="scripted", timeout=TIMEOUT_S)
    tools = toolset()
    per_round = []
    try:
        for _ in range(ROUNDS):
            samples = []
            for i in range(ANSWERS_PER_ROUND):
                timed = TimedModel(model)
                agent = Agent(timed, tools)
                tool_s = 0.0
                started = time.perf_counter()
                async for event in agent.run(f"question {i}"):
                    if isinstance(event, ToolResultEvent):
                        tool_s += event.duration_ms / 1000
                total = time.perf_counter() - started
                samples.append((total - timed.waiting_s - tool_s) / timed.calls * 1000)
            per_round.append(statistics.median(samples))
    finally:
        await model.aclose()
    return per_round


# -- part 2: one stream, weblens' reader beside the SDK's typed chunks -------------------

MESSAGES = [{"role": "user", "content": "what is new in AI"}]
TOOLS = [{"type": "function", "function": {"name": "web_search", "parameters": Query.model_json_schema()}}]


async def one_model_stream(model: ChatModel, tools: bool) -> int:
    pieces = 0
    async for piece in model.stream(MESSAGES if tools else [*MESSAGES, {"role": "tool", "content": "x"}],
                                    TOOLS if tools else ()):  # fmt: skip
        pieces += isinstance(piece, str)
    return pieces


async def model_streams(model_url: str, model_pid: int) -> dict[str, dict[str, list[float]]]:
    """Per variant: wall ms, client CPU ms and model-server CPU ms per stream (rounds interleaved)."""
    variants: dict[str, ChatModel] = {
        name: cls(base_url=model_url, model="scripted", timeout=TIMEOUT_S)
        for name, cls in (("weblens", ChatModel), ("sdk", SdkTypedModel))
    }
    figures: dict[str, dict[str, list[float]]] = {name: {"wall": [], "client": [], "server": []} for name in variants}
    try:
        for model in variants.values():  # warm up: connections, imports
            await one_model_stream(model, tools=False)
        for _ in range(ROUNDS):
            for name, model in variants.items():
                server, client, started = cpu_seconds(model_pid), time.process_time(), time.perf_counter()
                for i in range(SINGLE_STREAMS):
                    await one_model_stream(model, tools=i % 2 == 0)  # a tool call, then an answer, alternately
                per = 1000 / SINGLE_STREAMS
                figures[name]["wall"].append((time.perf_counter() - started) * per)
                figures[name]["client"].append((time.process_time() - client) * per)
                figures[name]["server"].append((cpu_seconds(model_pid) - server) * per)
    finally:
        for model in variants.values():
            await model.aclose()
    return figures


async def chat_streams(apps: dict[str, tuple[str, int]]) -> dict[str, dict[str, list[float]]]:
    """Per chat server: wall ms and server CPU ms per /api/chat stream, one at a time (interleaved)."""
    figures: dict[str, dict[str, list[float]]] = {name: {"wall": [], "server": []} for name in apps}
    clients = {name: httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S) for name, (url, _) in apps.items()}
    try:
        for http in clients.values():
            await one_stream(http, 0)
        for _ in range(ROUNDS):
            for name, http in clients.items():
                pid = apps[name][1]
                server, started = cpu_seconds(pid), time.perf_counter()
                for n in range(SINGLE_STREAMS // 3):
                    await one_stream(http, n)
                per = 1000 / (SINGLE_STREAMS // 3)
                figures[name]["wall"].append((time.perf_counter() - started) * per)
                figures[name]["server"].append((cpu_seconds(pid) - server) * per)
    finally:
        for http in clients.values():
            await http.aclose()
    return figures


def show(title: str, figures: dict[str, dict[str, list[float]]]) -> None:
    labels = {"weblens": "weblens' chunk reader", "sdk": "SDK typed chunks (before)"}
    print(title)
    for name, columns in figures.items():
        cells = ", ".join(f"{column} {statistics.median(values):.1f} ms" for column, values in columns.items())
        print(f"  {labels[name]:<28} {cells}")
    before, after = figures["sdk"]["wall"], figures["weblens"]["wall"]
    print(f"  wall time: {statistics.median(before):.1f} -> {statistics.median(after):.1f} ms per stream")


# -- part 3: concurrent chat streams -----------------------------------------------------


async def one_stream(http: httpx.AsyncClient, n: int) -> tuple[str | None, float]:
    started = time.perf_counter()
    session = None
    async with http.stream("POST", "/api/chat", json={"message": f"concurrent question {n}"}) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("event: done"):
                session = "done"
            if session == "done" and line.startswith("data:"):
                session = json.loads(line[5:])["session_id"]
                break
    return session, time.perf_counter() - started


async def concurrent_streams(app_url: str) -> tuple[float, list[float], int, int]:
    """(median single-stream time, batch wall times, streams completed, answers saved)."""
    limits = httpx.Limits(max_connections=STREAMS * 2)
    walls = []
    completed = saved = 0
    async with httpx.AsyncClient(base_url=app_url, timeout=TIMEOUT_S, limits=limits) as http:
        single = statistics.median([(await one_stream(http, -n))[1] for n in range(1, 6)])
        await asyncio.gather(*(one_stream(http, -n) for n in range(STREAMS)))  # warm up: connections
        for _ in range(STREAM_ROUNDS):
            started = time.perf_counter()
            outcomes = await asyncio.gather(*(one_stream(http, n) for n in range(STREAMS)))
            walls.append(time.perf_counter() - started)
            sessions = [s for s, _ in outcomes if s not in (None, "done")]
            completed += len(sessions)
            for session_id in sessions:
                messages = (await http.get(f"/api/sessions/{session_id}")).json()["messages"]
                ok = [(m["role"], m["status"]) for m in messages] == [("user", "complete"), ("assistant", "complete")]
                saved += ok and bool(messages[1]["sources"])
    return single, walls, completed, saved


async def main() -> None:
    model_process, model_url = child("--serve-model")
    print(f"medians of {ROUNDS} rounds, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        overhead = await loop_overhead(model_url)
        print(
            f"loop overhead per step: median {statistics.median(overhead):.3f} ms "
            f"(rounds: {', '.join(f'{o:.3f}' for o in overhead)}; target < {TARGET_MS} ms)"
        )
        show(
            "one model stream (ChatModel.stream, ~30 chunks), per stream: wall, CPU of this client, "
            "CPU of the scripted model",
            await model_streams(model_url, model_process.pid),
        )
        with tempfile.TemporaryDirectory() as data_dir, tempfile.TemporaryDirectory() as sdk_dir:
            app_process, app_url = child("--serve-app", model_url, data_dir)
            sdk_process, sdk_url = child("--serve-app", model_url, sdk_dir, "sdk")
            try:
                await wait_ready(app_url)
                await wait_ready(sdk_url)
                show(
                    "one chat stream (POST /api/chat: a search, then the answer), per stream: wall, "
                    "CPU of the chat server",
                    await chat_streams({"weblens": (app_url, app_process.pid), "sdk": (sdk_url, sdk_process.pid)}),
                )
                single, walls, completed, saved = await concurrent_streams(app_url)
            finally:
                for process in (app_process, sdk_process):
                    process.terminate()
                    process.wait()
        total = STREAMS * STREAM_ROUNDS
        print(f"one chat stream alone: median {single * 1000:.0f} ms")
        print(
            f"{STREAMS} concurrent chat streams: median batch {statistics.median(walls) * 1000:.0f} ms "
            f"(rounds: {', '.join(f'{w * 1000:.0f}' for w in walls)}); "
            f"completed {completed}/{total}, saved {saved}/{total}"
        )
    finally:
        assert model_process.stdin is not None
        model_process.stdin.close()
        model_process.wait()


async def wait_ready(url: str) -> None:
    async with httpx.AsyncClient(base_url=url) as http:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                if (await http.get("/health")).status_code == 200:
                    return
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    raise RuntimeError("the chat server did not start")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve-model"]:
        serve_model()
    elif sys.argv[1:2] == ["--serve-app"]:
        serve_app(*sys.argv[2:5])
    else:
        asyncio.run(main())
