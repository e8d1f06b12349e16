"""The MCP gateway: a weblens `Toolset` served through the official SDK's low-level `Server`.

The gateway adapts, it does not implement: `tools/list` is the toolset's MCP schemas,
`tools/call` is `Toolset.call`. A result is readable text, `structuredContent` (the
data) and its sources as `resource_link` blocks. A tool's own failure (bad arguments
included) comes back as an `isError` result whose text and `_meta["weblens/error"]`
carry the weblens error code; only an unknown tool name is a protocol error, as the
MCP spec asks. The low-level server is used rather than
`MCPServer` because the schemas, `structuredContent` and `isError` must be exactly
what the weblens tool declares and returns, with no second validation layer.

A call whose client sent a progress token gets `notifications/progress` with what the
tool is doing (the provider being asked, bytes received). A client's
`notifications/cancelled` cancels the handler (the SDK's default), which cancels the
tool and closes its upstream requests; no later provider is asked.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from weblens._version import __version__
from weblens.context import ToolContext
from weblens.progress import Progress, watching
from weblens.result import ToolResult
from weblens.tool import Tool
from weblens.toolset import Toolset

if TYPE_CHECKING:
    from weblens.runtime import Runtime

__all__ = [
    "ERROR_KEY",
    "GENERIC_OUTPUT_SCHEMA",
    "LARGE_TEXT_CHARS",
    "SERVER_NAME",
    "create_server",
    "declare",
    "gateway_toolset",
    "gateway_view",
    "serve_stdio",
    "to_call_result",
]

SERVER_NAME = "weblens"
INSTRUCTIONS = (
    "weblens gives you the web: search it, read pages as clean markdown and get the weather. "
    "Results carry their sources; cite them (title and URL) when you use them."
)
LARGE_TEXT_CHARS = 4096
"""A string field of the data this long that the text already carries is not sent twice
(e.g. a fetched page's content); `_meta["weblens/in_text"]` names such fields."""
MOVED = "(sent once, in the text content)"
META_PREFIX = "weblens/"
ERROR_KEY = f"{META_PREFIX}error"
"""Where an error result's code, message and details travel (`_meta`)."""
PROGRESS_INTERVAL_S = 0.1
"""At most one progress notification per interval; in between only the latest step is kept."""
GENERIC_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"result": {"description": "the tool's structured result, if any"}},
    "required": ["result"],
}
"""For tools that declare no output model: their data is wrapped as `{"result": ...}`."""

logger = logging.getLogger("weblens.mcp")


def gateway_toolset(runtime: Runtime, enabled: Iterable[str] | None = None) -> Toolset:
    """The tools the gateway exposes: `settings.mcp.tools` unless `enabled` is given.

    A tool whose provider has no key is not built by its factory, so it is not listed.
    """
    from weblens.tools import default_toolset  # the tools' libraries load when the tools are built

    names = list(enabled) if enabled is not None else runtime.settings.mcp.tools
    return gateway_view(default_toolset(runtime), names)


def gateway_view(toolset: Toolset, enabled: Iterable[str]) -> Toolset:
    """`toolset` limited to `enabled`, warning about enabled names it does not hold."""
    view = toolset.only(enabled)
    for name in view.unavailable:
        logger.warning("MCP tool %s is enabled but not available (not configured or unknown); not listing it", name)
    return view


def declare(tool: Tool[Any]) -> types.Tool:
    """The MCP declaration of a weblens tool: name, description, input and output schemas."""
    schema = tool.schema("mcp")
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=schema["inputSchema"],
        output_schema=schema.get("outputSchema", GENERIC_OUTPUT_SCHEMA),
    )


def _structured(tool: Tool[Any], data: Any, text: str) -> tuple[Any, list[str]]:
    """`data` as structuredContent, its large strings that the text already holds replaced."""
    moved: list[str] = []
    if isinstance(data, dict):
        moved = [k for k, v in data.items() if isinstance(v, str) and len(v) >= LARGE_TEXT_CHARS and v in text]
        if moved:
            data = {k: (MOVED if k in moved else v) for k, v in data.items()}
    if tool.output_schema is None:
        return {"result": data}, moved
    return data, moved


def to_call_result(tool: Tool[Any], result: ToolResult) -> types.CallToolResult:
    """A weblens result as an MCP result: text, structuredContent, sources as resource links."""
    from weblens.net.urls import web_url  # here: the `weblens.net` package loads httpx, which `initialize` never needs

    meta: dict[str, Any] = {
        f"{META_PREFIX}brief": result.brief,
        f"{META_PREFIX}duration_ms": round(result.duration_ms, 3),
        f"{META_PREFIX}attempts": result.attempts,
    }
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    if result.error is not None:
        # Not as structuredContent: clients check that against the tool's outputSchema even on errors.
        meta[ERROR_KEY] = result.error.model_dump(mode="json")
        return types.CallToolResult(content=content, is_error=True, _meta=meta)
    content.extend(types.ImageContent(type="image", data=i.data, mime_type=i.mime_type) for i in result.images)
    content.extend(  # only http(s) sources become links a client may render (never `javascript:`, `file:`)
        types.ResourceLink(uri=link, name=source.title or link, title=source.title or None)
        for source in result.sources
        if (link := web_url(source.url)) is not None
    )
    structured, moved = _structured(tool, result.data, result.text)
    if moved:
        meta[f"{META_PREFIX}in_text"] = moved
    return types.CallToolResult(content=content, structured_content=structured, is_error=False, _meta=meta)


class _ProgressSender:
    """Forwards a call's progress to the client, coalesced to one notification per interval."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.latest: Progress | None = None
        self.changed = anyio.Event()
        self.sent = 0

    def __call__(self, progress: Progress) -> None:
        self.latest = progress
        self.changed.set()

    async def run(self) -> None:
        while True:
            await self.changed.wait()
            self.changed = anyio.Event()
            progress, self.latest = self.latest, None
            if progress is not None:
                self.sent += 1  # progress must increase: count the steps, say the bytes in the message
                await self.ctx.session.report_progress(self.sent, None, progress.message)
            await anyio.sleep(PROGRESS_INTERVAL_S)


@asynccontextmanager
async def _progress_for(ctx: Any, params: types.CallToolRequestParams) -> AsyncIterator[None]:
    """Report the progress of the work in this block when the client asked for it (a progress token)."""
    meta = params.meta or {}
    if meta.get("progress_token") is None:
        yield
        return
    sender = _ProgressSender(ctx)
    async with anyio.create_task_group() as group:
        group.start_soon(sender.run)
        try:
            with watching(sender):
                yield
        finally:
            group.cancel_scope.cancel()


ToolsetSource = Toolset | Callable[[], Toolset]
"""The tools, or how to build them when first needed (so `initialize` is answered at once)."""


def create_server(tools: ToolsetSource, *, name: str = SERVER_NAME) -> Server[Any]:
    """An SDK `Server` whose tools are `tools`'; run it over stdio or streamable HTTP.

    Given a function, the toolset is built on the first `tools/list` or `tools/call`.
    """
    built: list[tuple[Toolset, list[types.Tool], dict[str, dict[str, Any]]]] = []

    def toolset() -> tuple[Toolset, list[types.Tool], dict[str, dict[str, Any]]]:
        if not built:
            found = tools if isinstance(tools, Toolset) else tools()
            declared = [declare(tool) for tool in found]
            built.append((found, declared, {tool.name: tool.input_schema for tool in declared}))
        return built[0]

    if isinstance(tools, Toolset):
        toolset()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=toolset()[1])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        found = toolset()[0]
        tool = found.get(params.name)
        if tool is None:
            known = ", ".join(found.names) or "(none)"
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool {params.name!r}; available: {known}")
        async with _progress_for(ctx, params):
            result = await tool.execute(params.arguments or {}, ToolContext(agent_name="mcp"))
        return to_call_result(tool, result)

    return Server(
        name,
        version=__version__,
        instructions=INSTRUCTIONS,
        # A direct lookup: without it the SDK re-runs tools/list on every call to check Mcp-Param headers.
        get_tool_input_schema=lambda tool_name: toolset()[2].get(tool_name),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
