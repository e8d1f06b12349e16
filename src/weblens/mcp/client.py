"""Remote MCP tools as weblens `Tool`s, so one `Toolset` mixes local and remote tools.

    async with RemoteServer.stdio("npx", ["-y", "some-mcp-server"]) as notion, \\
               RemoteServer.http("http://127.0.0.1:8765/mcp", token="...") as other:
        toolset = Toolset([*default_toolset(runtime), *await notion.tools(), *await other.tools()])

A remote tool keeps the server's input and output schemas. Its calls go through the
tool core (timeout, logging, one `ToolResult`): an `isError` result, a protocol error,
a dead connection or a timeout all become weblens error results, never exceptions.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, contextmanager
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import anyio
import mcp.types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict

from weblens.context import ToolContext
from weblens.errors import (
    ERROR_CODES,
    ToolTimeoutError,
    ToolValidationError,
    UpstreamError,
    WeblensError,
)
from weblens.net.urls import web_url
from weblens.result import Source, ToolResult
from weblens.tool import DEFAULT_TIMEOUT_S, Tool

__all__ = ["RemoteServer", "RemoteTool", "from_call_result"]

_BRIEF_CHARS = 120
_BRIEF_KEY = "weblens/brief"
_ERROR_KEY = "weblens/error"

logger = logging.getLogger("weblens.mcp")
T = TypeVar("T")


class RemoteArgs(BaseModel):
    """Any JSON object: the remote server validates its own arguments."""

    model_config = ConfigDict(extra="allow")


def _without_userinfo(url: str) -> str:
    """A URL fit for logs and messages: no `user:password@`."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])) if "@" in parts.netloc else url


@contextmanager
def _translated(what: str) -> Iterator[None]:
    """The one place the MCP client's failures become weblens errors."""
    try:
        yield
    except WeblensError:
        raise
    except MCPError as exc:
        if exc.code == types.REQUEST_TIMEOUT:
            raise ToolTimeoutError(f"{what} timed out") from None
        if exc.code == types.INVALID_PARAMS:
            issue = {"field": "(arguments)", "message": exc.message, "type": "remote"}
            raise ToolValidationError(f"{what} refused the arguments: {exc.message}", [issue]) from None
        retryable = exc.code == types.CONNECTION_CLOSED
        raise UpstreamError(f"{what} failed: {exc.message}", retryable=retryable) from None
    except TimeoutError:
        raise ToolTimeoutError(f"{what} timed out") from None
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
        raise UpstreamError(f"{what}: the connection is closed ({type(exc).__name__})", retryable=True) from None
    except Exception as exc:  # transport errors (HTTP, process) surface as many foreign types
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions and isinstance(exc.exceptions[0], Exception):
            exc = exc.exceptions[0]  # the SDK's task groups wrap the failure that matters
        raise UpstreamError(f"{what} failed: {type(exc).__name__}: {exc}", retryable=True) from None


def _error_from(result: types.CallToolResult, text: str, tool: str) -> ToolResult:
    """An `isError` result; a weblens gateway's own error code is kept."""
    error = (result.meta or {}).get(_ERROR_KEY)
    if isinstance(error, dict) and error.get("code") in ERROR_CODES and isinstance(error.get("message"), str):
        return ToolResult.failure(
            error["code"],
            error["message"],
            retryable=bool(error.get("retryable")),
            retry_after_s=error.get("retry_after_s"),
            details=error.get("details") if isinstance(error.get("details"), dict) else None,
        )
    return ToolResult.failure("upstream_error", f"remote tool {tool} failed: {text or '(no message)'}")


def from_call_result(result: types.CallToolResult, tool: str = "tool") -> ToolResult:
    """An MCP tool result as a weblens `ToolResult`: text, structured data, resource links as sources."""
    texts: list[str] = []
    sources: list[Source] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ResourceLink):
            link = web_url(str(block.uri))  # a remote `file:` or `javascript:` link is no source to cite
            if link is not None:
                sources.append(Source(title=block.title or block.name, url=link))
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            texts.append(resource.text if isinstance(resource, types.TextResourceContents) else f"[{resource.uri}]")
        else:
            texts.append(f"[{block.type} content]")
    text = "\n\n".join(texts)
    if result.is_error:
        return _error_from(result, text, tool)
    meta = result.meta or {}
    brief = meta.get(_BRIEF_KEY)
    if not isinstance(brief, str):
        first = text.strip().splitlines()[0] if text.strip() else ""
        brief = first if len(first) <= _BRIEF_CHARS else first[: _BRIEF_CHARS - 1] + "…"
    return ToolResult.success(text, data=result.structured_content, sources=sources, brief=brief)


class RemoteTool(Tool[RemoteArgs]):
    """A tool that lives on an MCP server, callable like any local tool."""

    params = RemoteArgs

    def __init__(self, server: RemoteServer, declared: types.Tool, *, name: str, timeout: float) -> None:
        self._server = server
        self._declared = declared
        self.remote_name = declared.name
        super().__init__(
            name=name, description=declared.description or declared.title or declared.name, timeout=timeout
        )

    @cached_property
    def json_schema(self) -> dict[str, Any]:
        return dict(self._declared.input_schema)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        return dict(self._declared.output_schema) if self._declared.output_schema is not None else None

    async def run(self, params: RemoteArgs, ctx: ToolContext) -> ToolResult:
        result = await self._server.call(self.remote_name, params.model_dump(), timeout=self.timeout)
        return from_call_result(result, self.name)


class RemoteServer:
    """One MCP server (a stdio command or an HTTP URL), connected while used as an async context manager."""

    def __init__(
        self,
        target: str | StdioServerParameters,
        *,
        headers: Mapping[str, str] | None = None,
        prefix: str = "",
        timeout: float = DEFAULT_TIMEOUT_S,
        label: str | None = None,
    ) -> None:
        self._target = target
        self._headers = dict(headers or {})
        self.prefix = prefix
        self.timeout = timeout
        self.label = label or (_without_userinfo(target) if isinstance(target, str) else Path(target.command).name)
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        **options: Any,
    ) -> RemoteServer:
        """A server this process starts and talks to over stdin/stdout."""
        params = StdioServerParameters(command=command, args=list(args), env=dict(env) if env else None, cwd=cwd)
        return cls(params, **options)

    @classmethod
    def http(
        cls, url: str, *, token: str | None = None, headers: Mapping[str, str] | None = None, **options: Any
    ) -> RemoteServer:
        """A server at a streamable HTTP URL, with an optional bearer token."""
        merged = dict(headers or {})
        if token:
            merged["Authorization"] = f"Bearer {token}"
        return cls(url, headers=merged, **options)

    def __repr__(self) -> str:
        return f"<RemoteServer {self.label!r}>"

    async def __aenter__(self) -> RemoteServer:
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._owner = asyncio.create_task(self._own(ready), name=f"mcp connection {self.label}")
        with _translated(f"connecting to MCP server {self.label}"):
            self._client = await ready
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._client = None
        if self._owner is not None:
            self._closing.set()
            await asyncio.wait({self._owner})
            self._owner = None

    async def _own(self, ready: asyncio.Future[Client]) -> None:
        """Hold the connection in a task of its own: when the SDK's transport fails it tears
        down its task group, and that must end this task, not the caller's."""
        try:
            async with AsyncExitStack() as stack:
                if isinstance(self._target, str):
                    http = await stack.enter_async_context(create_mcp_http_client(headers=self._headers))
                    client = Client(streamable_http_client(self._target, http_client=http))
                else:
                    client = Client(self._target)
                ready.set_result(await stack.enter_async_context(client))
                await self._closing.wait()
        except BaseException as exc:  # reported to the waiting caller, or logged
            if not ready.done():
                ready.set_exception(exc)
            elif not self._closing.is_set():
                logger.warning("MCP server %s connection ended: %s", self.label, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None

    def _connected(self) -> Client:
        if self._client is None:
            raise UpstreamError(f"MCP server {self.label} is not connected", retryable=False)
        return self._client

    async def _while_connected(self, work: Awaitable[T], what: str) -> T:
        """Await `work`, failing fast if the connection dies meanwhile."""
        task = asyncio.ensure_future(work)
        assert self._owner is not None
        try:
            await asyncio.wait({task, self._owner}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
        if task.cancelled():
            raise UpstreamError(f"{what}: the connection to MCP server {self.label} was lost", retryable=True)
        with _translated(what):
            return task.result()

    async def tools(self) -> list[Tool[Any]]:
        """Every tool the server lists, as weblens tools (names get `prefix`)."""
        client = self._connected()
        declared: list[types.Tool] = []
        cursor: str | None = None
        what = f"listing the tools of {self.label}"
        while True:
            page = await self._while_connected(client.list_tools(cursor=cursor), what)
            declared.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return [RemoteTool(self, d, name=f"{self.prefix}{d.name}", timeout=self.timeout) for d in declared]

    async def call(self, name: str, arguments: dict[str, Any], *, timeout: float | None = None) -> types.CallToolResult:
        """Call a remote tool; failures of the connection or protocol raise weblens errors."""
        client = self._connected()
        call = client.call_tool(name, arguments, read_timeout_seconds=timeout or self.timeout)
        return await self._while_connected(call, f"MCP tool {name} on {self.label}")
