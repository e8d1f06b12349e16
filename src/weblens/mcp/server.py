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
tool is doing (the provider being asked, bytes received). The same steps, and weblens' own
warnings during the call (a provider that failed, a key refused), are sent as log messages
(`notifications/message`) at the levels the client asked for: `logging/setLevel` for the
connection (clients before protocol 2026-07-28), or per request in `_meta`. A client's
`notifications/cancelled` cancels the handler (the SDK's default), which cancels the
tool and closes its upstream requests; no later provider is asked. The tool runs as its own
asyncio task, cancelled once and awaited: the SDK's anyio cancellation would interrupt every
`await` of the tool's cleanup too (a browser page would stay open, its request running).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, get_args

import anyio
import mcp.types as types
from mcp.server.connection import allowed_log_levels
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS, is_version_at_least

from weblens._version import __version__
from weblens.context import ToolContext
from weblens.mcp.stdio import stdio_streams
from weblens.progress import Progress, watching
from weblens.redact import redact_text
from weblens.result import ToolResult
from weblens.schema import without_absent
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
    "description": "`result`: the tool's structured result, any JSON value (null if none)",
    "required": ["result"],
}
"""For tools that declare no output model: their data is wrapped as `{"result": ...}`."""

CLEANUP_TIMEOUT_S = 15.0
"""How long a cancelled call may take to clean up (close its browser page, its connections)."""

logger = logging.getLogger("weblens.mcp")
T = TypeVar("T")


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


def _structured(tool: Tool[Any], data: Any, text: str, schema: dict[str, Any] | None) -> tuple[Any, list[str]]:
    """`data` as structuredContent: checked against `schema` (the declared outputSchema), a null
    it declares as an absent property left out, its large strings that the text holds replaced."""
    if tool.output_schema is not None:
        data = without_absent(data, schema if schema is not None else declare(tool).output_schema or {})
    moved: list[str] = []
    if isinstance(data, dict):
        moved = [k for k, v in data.items() if isinstance(v, str) and len(v) >= LARGE_TEXT_CHARS and v in text]
        if moved:
            data = {k: (MOVED if k in moved else v) for k, v in data.items()}
    if tool.output_schema is None:
        return {"result": data}, moved
    return data, moved


def to_call_result(
    tool: Tool[Any], result: ToolResult, output_schema: dict[str, Any] | None = None, *, links: bool = True
) -> types.CallToolResult:
    """A weblens result as an MCP result: text, structuredContent, sources as resource links.
    `output_schema`: the tool's declared one, when the caller has it at hand; `links=False`
    leaves the links out (the text names the sources too), for clients that predate them."""
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
        for source in (result.sources if links else ())
        if (link := web_url(source.url)) is not None
    )
    structured, moved = _structured(tool, result.data, result.text, output_schema)
    if moved:
        meta[f"{META_PREFIX}in_text"] = moved
    return types.CallToolResult(content=content, structured_content=structured, is_error=False, _meta=meta)


LOG_LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)
"""The MCP log levels, least severe first (RFC 5424's order, as the spec lists them)."""
DEFAULT_LOG_LEVEL: types.LoggingLevel = "warning"
"""What a client that never sent `logging/setLevel` hears: a tool's warnings, not its every step."""
PROGRESS_LOG_LEVEL: types.LoggingLevel = "info"
PROGRESS_LOGGER = "weblens.progress"
LOG_LEVEL_STATE = f"{META_PREFIX}log_level"
"""Where a connection's `logging/setLevel` is kept (the SDK's per-connection state)."""
_LOG_BACKLOG = 100
"""At most this many log messages wait to be sent per call; later ones are counted, not kept."""
_PYTHON_TO_MCP: tuple[tuple[int, types.LoggingLevel], ...] = (
    (logging.CRITICAL, "critical"),
    (logging.ERROR, "error"),
    (logging.WARNING, "warning"),
    (logging.INFO, "info"),
)


def _mcp_level(levelno: int) -> types.LoggingLevel:
    return next((level for floor, level in _PYTHON_TO_MCP if levelno >= floor), "debug")


def _connection_state(ctx: Any) -> dict[str, Any]:
    """State that lives as long as the client's connection: the whole session on stdio, one POST
    on stateless HTTP. The SDK keeps it on its `Connection`, which a low-level handler reaches
    only through the request's session."""
    state: dict[str, Any] = ctx.session._connection.state
    return state


def _levels_to_send(ctx: Any) -> frozenset[types.LoggingLevel]:
    """The log levels this request's client asked to hear. A 2026-07-28 client opts in per
    request (`_meta`, checked by the SDK); an earlier one sets a level for its connection with
    `logging/setLevel`, and hears `DEFAULT_LOG_LEVEL` and above until it does."""
    allowed = allowed_log_levels(ctx.protocol_version, ctx.meta)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return allowed
    floor = _connection_state(ctx).get(LOG_LEVEL_STATE, DEFAULT_LOG_LEVEL)
    return allowed & frozenset(LOG_LEVELS[LOG_LEVELS.index(floor) :])


class _CallReporter(logging.Handler):
    """What the client hears while one call runs: its progress (coalesced to one step per
    interval) as `notifications/progress` when it sent a token, and as log messages at
    `PROGRESS_LOG_LEVEL`; weblens' own log records of the call (a provider that failed, a key
    refused) as log messages at their level. Only the levels the client asked for are sent."""

    def __init__(self, ctx: Any, *, progress: bool, levels: frozenset[types.LoggingLevel]) -> None:
        super().__init__()
        self.ctx = ctx
        self.progress = progress
        self.levels = levels
        self.latest: Progress | None = None
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.dropped = 0
        self.changed = anyio.Event()
        self.sent = 0
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()

    def __call__(self, progress: Progress) -> None:
        self.latest = progress
        self.changed.set()

    def emit(self, record: logging.LogRecord) -> None:
        """A weblens log record; kept when it was logged by this call (its task or one it started)."""
        if _reporter.get() is not self:
            return
        level = _mcp_level(record.levelno)
        if level not in self.levels:
            return
        try:
            entry = (level, record.name, redact_text(record.getMessage()))
        except Exception:  # a record whose arguments do not fit its format: logging's own report
            self.handleError(record)
            return
        if threading.get_ident() == self.thread:
            self._log(*entry)
        else:  # a thread the call started (contextvars are copied into it): hand it to the loop
            self.loop.call_soon_threadsafe(self._log, *entry)

    def _log(self, level: types.LoggingLevel, name: str, text: str) -> None:
        if len(self.logs) >= _LOG_BACKLOG:
            self.dropped += 1
            return
        self.logs.append(types.LoggingMessageNotificationParams(level=level, logger=name, data=text))
        self.changed.set()

    async def _send_logs(self) -> None:
        logs, self.logs = self.logs, []
        if self.dropped:
            text = f"{self.dropped} more log message(s) of this call were not sent"
            logs.append(types.LoggingMessageNotificationParams(level="warning", logger=logger.name, data=text))
            self.dropped = 0
        with anyio.CancelScope(shield=True):  # taken from the queue: not lost when the call ends mid-way
            for params in logs:
                await self.ctx.session.send_notification(
                    types.LoggingMessageNotification(params=params), related_request_id=self.ctx.request_id
                )

    async def send_pending(self) -> None:
        """Send what is still waiting: the log messages, and the last step as one."""
        progress, self.latest = self.latest, None
        if progress is not None and PROGRESS_LOG_LEVEL in self.levels:
            self._log(PROGRESS_LOG_LEVEL, PROGRESS_LOGGER, progress.message)
        await self._send_logs()

    async def run(self) -> None:
        while True:
            await self.changed.wait()
            self.changed = anyio.Event()
            await self._send_logs()
            progress, self.latest = self.latest, None
            if progress is not None:
                if self.progress:
                    self.sent += 1  # progress must increase: count the steps, say the bytes in the message
                    await self.ctx.session.report_progress(self.sent, None, progress.message)
                if PROGRESS_LOG_LEVEL in self.levels:
                    self._log(PROGRESS_LOG_LEVEL, PROGRESS_LOGGER, progress.message)
                    await self._send_logs()
            await anyio.sleep(PROGRESS_INTERVAL_S)


_reporter: ContextVar[_CallReporter | None] = ContextVar("weblens_mcp_reporter", default=None)


@asynccontextmanager
async def _reporting(ctx: Any, params: types.CallToolRequestParams) -> AsyncIterator[None]:
    """Tell the client how the work in this block goes, as far as it asked (a progress token, log levels)."""
    progress, levels = (params.meta or {}).get("progress_token") is not None, _levels_to_send(ctx)
    if not (progress or levels):  # nobody listens: no handler, no task (a 2026-07-28 client by default)
        yield
        return
    reporter = _CallReporter(ctx, progress=progress, levels=levels)
    token = _reporter.set(reporter)
    source = logging.getLogger("weblens")
    source.addHandler(reporter)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(reporter.run)
            try:
                with watching(reporter):
                    yield
            finally:
                group.cancel_scope.cancel()
        await reporter.send_pending()  # what was logged at the end still arrives before the result
    finally:
        source.removeHandler(reporter)
        _reporter.reset(token)


async def _cancellable(work: Coroutine[Any, Any, T]) -> T:
    """`work` as an asyncio task, cancelled the asyncio way when the SDK cancels the request.

    anyio (the SDK) cancels level-triggered: every `await` inside the cancelled scope fails,
    those of a `finally` block too, so weblens' cleanup (closing a browser context, which
    ends the page's upstream request) would never run. Here the task is cancelled once and
    its cleanup awaited (bounded by `CLEANUP_TIMEOUT_S`), shielded from the SDK's scope."""
    task = asyncio.ensure_future(work)  # the context (progress and log reporting) is copied into it
    try:
        return await asyncio.shield(task)
    except BaseException:
        task.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLEANUP_TIMEOUT_S):
            await asyncio.wait({task})
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: the call is over, its late failure is not news
        raise


RESOURCE_LINKS_SINCE = "2025-06-18"
"""The protocol that added `resource_link` content. Clients of earlier ones (the Python SDK 1.9
and the TypeScript SDK 1.11, for two) validate content against a closed list of types and fail
the whole call on one they do not know; the SDK's server sends every handshake version the same."""


def _knows_links(version: str) -> bool:
    return version in MODERN_PROTOCOL_VERSIONS or is_version_at_least(version, RESOURCE_LINKS_SINCE)


class _Declared(NamedTuple):
    """The gateway's tools, built once: their MCP declarations, input and output schemas by name."""

    tools: Toolset
    declared: list[types.Tool]
    inputs: dict[str, dict[str, Any]]
    outputs: dict[str, dict[str, Any] | None]


ToolsetSource = Toolset | Callable[[], Toolset]
"""The tools, or how to build them when first needed (so `initialize` is answered at once)."""


def create_server(tools: ToolsetSource, *, name: str = SERVER_NAME) -> Server[Any]:
    """An SDK `Server` whose tools are `tools`'; run it over stdio or streamable HTTP.

    Given a function, the toolset is built on the first `tools/list` or `tools/call`.
    """
    built: list[_Declared] = []

    def toolset() -> _Declared:
        if not built:
            found = tools if isinstance(tools, Toolset) else tools()
            declared = [declare(tool) for tool in found]
            inputs = {tool.name: tool.input_schema for tool in declared}
            built.append(_Declared(found, declared, inputs, {tool.name: tool.output_schema for tool in declared}))
        return built[0]

    if isinstance(tools, Toolset):
        toolset()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=toolset().declared)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        found = toolset()
        tool = found.tools.get(params.name)
        if tool is None:
            known = ", ".join(found.tools.names) or "(none)"
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool {params.name!r}; available: {known}")
        async with _reporting(ctx, params):
            result = await _cancellable(tool.execute(params.arguments or {}, ToolContext(agent_name="mcp")))
        return to_call_result(tool, result, found.outputs.get(tool.name), links=_knows_links(ctx.protocol_version))

    async def set_logging_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        _connection_state(ctx)[LOG_LEVEL_STATE] = params.level
        return types.EmptyResult()

    with warnings.catch_warnings():
        # Logging is deprecated from protocol 2026-07-28 on, but clients of the versions before it
        # (the MCP Inspector, the conformance suite) set levels with it; the SDK answers only those.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return Server(
            name,
            version=__version__,
            instructions=INSTRUCTIONS,
            # A direct lookup: without it the SDK re-runs tools/list on every call to check Mcp-Param headers.
            get_tool_input_schema=lambda tool_name: toolset().inputs.get(tool_name),
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_set_logging_level=set_logging_level,
        )


async def serve_stdio(server: Server[Any], *, max_bytes: int) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes stdin; a message
    over `max_bytes` is refused."""
    async with stdio_streams(max_bytes) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
