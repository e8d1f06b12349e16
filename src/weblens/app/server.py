"""The Starlette application `weblens serve` runs: health, readiness, metrics, the chat API (SSE),
sessions, the page.

Routes and lifespans are lists, so other parts (the MCP gateway's `/mcp` mount) add
theirs in `create_app` without touching the rest. Without a configured model the
server still starts: the page, health and MCP work, and the chat API says what to set.
Requests with a foreign `Host` or `Origin` are refused (DNS rebinding, cross-site POSTs).
When session storage fails (full disk, PostgreSQL down) only the routes that need it say
so, with a 503 JSON error; search, fetch, the tools panel and `/mcp` keep working.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from weblens._version import __version__
from weblens.agent.llm import ChatModel
from weblens.agent.loop import Agent
from weblens.app.answers import Answers
from weblens.app.chat import ChatService
from weblens.app.connect import MODEL_RECIPES
from weblens.app.crawls import CrawlApi
from weblens.app.responses import error_response as _error
from weblens.app.tool_panel import ToolPanel
from weblens.config import Settings
from weblens.errors import NotConfiguredError, NotFoundError, WeblensError
from weblens.mcp.http import MCP_PATH, is_loopback, is_wildcard, mcp_mount, security_settings
from weblens.metrics import CONTENT_TYPE, Metrics
from weblens.redact import redact_text
from weblens.result import ToolResult
from weblens.runtime import Runtime
from weblens.sites.jobs import open_crawl_jobs
from weblens.store.sessions import TITLE_MAX_CHARS, SessionStore, StorageError
from weblens.tools.catalog import default_toolset
from weblens.toolset import Toolset

__all__ = ["create_app"]

STATIC_DIR = Path(__file__).parent / "static"
logger = logging.getLogger("weblens.app")
Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]
_BODY_SLACK_BYTES = 64 * 1024
READY_TIMEOUT_S = 3.0
"""How long /ready waits for one backend's check before calling it down."""
MAX_JSON_DEPTH = 64
"""Deeper request bodies are refused (a JSON bomb would exhaust the parser's recursion)."""
MAX_INT_DIGITS = 4300
"""Python's own limit for converting digits to an int (CVE-2020-10735)."""


class _BadRequest(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _body_limit(settings: Settings) -> int:
    # one character may take 12 bytes as JSON (an escaped surrogate pair); the slack covers the other fields
    return settings.server.max_message_chars * 12 + _BODY_SLACK_BYTES


def _invalid(message: str) -> _BadRequest:
    return _BadRequest(400, "validation_error", f"the request body {message}")


def _parse_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:  # int() would raise a ValueError that advises sys.set_int_max_str_digits
        raise _invalid(f"has an integer of {len(text.lstrip('-'))} digits; the limit is {MAX_INT_DIGITS}")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _invalid(f"has a number out of range: {text[:40]}")
    return value


def _parse_constant(name: str) -> Any:
    raise _invalid(f"is not valid JSON: {name} is not a JSON value")


def _check_tree(body: Any) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH and strings that are not Unicode text (a lone
    surrogate such as `"\\ud800"` cannot be stored, sent to a model or encoded as UTF-8)."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as exc:
                    bad = value[exc.start]
                    raise _invalid(f"has a lone surrogate (\\u{ord(bad):04x}), which is not Unicode text") from None
            continue
        if isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise _invalid(f"is nested deeper than {MAX_JSON_DEPTH} levels")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)


async def _json_object(request: Request, limit: int, *, empty: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body as a JSON object, read no further than `limit` bytes; `empty` stands for no body.

    Whatever the body holds, the answer is the value or a 4xx saying what is wrong with it, never a
    500: JSON is UTF-8 (RFC 8259), without NaN or Infinity, nested at most MAX_JSON_DEPTH deep."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise _BadRequest(413, "too_large", f"the request body is larger than {limit} bytes")
    if not raw and empty is not None:
        return empty
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"is not UTF-8 (byte {exc.start} is not valid)") from None
    try:
        body = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise _invalid(f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise _invalid(f"is nested deeper than {MAX_JSON_DEPTH} levels") from None
    _check_tree(body)
    if not isinstance(body, dict):
        raise _BadRequest(400, "validation_error", "the request body must be a JSON object")
    return body


def _string_field(body: dict[str, Any], name: str, *, required: bool, limit: int) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise _BadRequest(400, "validation_error", f"`{name}` must be a string")
    if required and not value.strip():
        raise _BadRequest(400, "validation_error", f"`{name}` must not be empty")
    if len(value) > limit:
        raise _BadRequest(413, "too_large", f"`{name}` is {len(value)} characters; the limit is {limit}")
    return value


def _matches(value: str, allowed: list[str]) -> bool:
    """`value` is in `allowed`, where an entry ending in `:*` stands for any port."""
    value = value.lower()
    return any(value == a or (a.endswith(":*") and value.startswith(a[:-1])) for a in allowed)


class _RequestGuard:
    """Refuses what a browser sends on behalf of another site: a foreign `Origin` (any web
    page may POST to 127.0.0.1 without a preflight) or a foreign `Host` (DNS rebinding would
    let it read the sessions). `/mcp` keeps the gateway's own checks."""

    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        self.app = app
        host = settings.server.host
        # On an address other machines can reach, the API needs the token (the page itself does not).
        self.token: str | None = None
        self.locked = not is_loopback(host)
        if self.locked and settings.mcp.token is not None:
            self.token = settings.mcp.token.get_secret_value()
        # on a wildcard bind every name of the machine is valid; the Origin must still be this server
        security = None if is_wildcard(host) else security_settings(host, settings)
        self.hosts = security.allowed_hosts if security is not None else None
        self.origins = security.allowed_origins if security is not None else list(settings.mcp.allowed_origins)

    def _unauthorised(self, path: str, headers: Headers) -> Response | None:
        if not self.locked or not path.startswith("/api/"):
            return None
        if self.token is None:
            return _error(401, "not_configured", "this server is reachable from other machines: set WEBLENS_MCP_TOKEN")
        scheme, _, given = headers.get("authorization", "").strip().partition(" ")
        # the scheme is case-insensitive (RFC 9110 §11.1), as the MCP endpoint already takes it
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            return _error(401, "not_configured", "send the server's token as 'Authorization: Bearer <token>'")
        return None

    def _refusal(self, headers: Headers) -> Response | None:
        host = headers.get("host", "")
        if self.hosts is not None and not _matches(host, self.hosts):
            return _error(421, "blocked", f"this server does not answer for the host name {host!r}")
        origin = headers.get("origin")
        if origin and not (origin.lower().partition("://")[2] == host.lower() or _matches(origin, self.origins)):
            return _error(403, "blocked", f"requests from {origin!r} are not allowed (cross-site)")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] != MCP_PATH:
            headers = Headers(scope=scope)
            refusal = self._refusal(headers) or self._unauthorised(scope["path"], headers)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _Api:
    """The HTTP face of the chat service and the session store."""

    def __init__(
        self, settings: Settings, store: SessionStore, chat: ChatService | None, why: str, answers: Answers
    ) -> None:
        self.settings = settings
        self.store = store
        self.chat = chat
        self.why_no_chat = why
        self.body_limit = _body_limit(settings)
        self.answers = answers

    async def read_json(self, request: Request) -> dict[str, Any]:
        return await _json_object(request, self.body_limit, empty={})

    async def _session(self, session_id: str) -> Any:
        return await self.store.get(session_id)

    async def status(self, request: Request) -> JSONResponse:
        tools = self.chat.agent.tools.names if self.chat is not None else []
        ready = self.chat is not None
        recipes = [] if ready else [{"name": name, "settings": line} for name, line in MODEL_RECIPES]
        model = self.settings.llm.model if ready else None
        return JSONResponse(
            {
                "version": __version__,
                "chat": ready,
                "reason": self.why_no_chat,
                "tools": tools,
                "connect": recipes,
                "model": model,
            }
        )

    async def chat_message(self, request: Request) -> Response:
        body = await _json_object(request, self.body_limit)
        message = _string_field(body, "message", required=True, limit=self.settings.server.max_message_chars)
        session_id = _string_field(body, "session_id", required=False, limit=TITLE_MAX_CHARS)
        if self.chat is None:
            return _error(503, "not_configured", self.why_no_chat)
        assert message is not None
        if session_id:
            session = await self._session(session_id)
        else:
            session = await self.store.create(first_message=message)
        return await self.answers.start(session, message)

    async def list_sessions(self, request: Request) -> JSONResponse:
        search = request.query_params.get("q", "")[:TITLE_MAX_CHARS]
        sessions = await self.store.sessions(search)
        running = await self.answers.running([s.id for s in sessions])
        return JSONResponse({"sessions": [{**s.model_dump(), "running": s.id in running} for s in sessions]})

    async def create_session(self, request: Request) -> JSONResponse:
        body = await _json_object(request, self.body_limit, empty={})
        title = _string_field(body, "title", required=False, limit=TITLE_MAX_CHARS) or ""
        session = await self.store.create(title)
        return JSONResponse(session.model_dump(), status_code=201)

    async def get_session(self, request: Request) -> JSONResponse:
        session_id = request.path_params["session_id"]
        session = await self._session(session_id)
        messages = await self.store.messages(session_id)
        stored = [m.model_dump() for m in messages]
        running = session_id in await self.answers.running([session_id])
        return JSONResponse({**session.model_dump(), "running": running, "messages": stored})

    async def rename_session(self, request: Request) -> JSONResponse:
        body = await _json_object(request, self.body_limit)
        title = _string_field(body, "title", required=True, limit=TITLE_MAX_CHARS)
        assert title is not None
        session = await self.store.rename(request.path_params["session_id"], title)
        return JSONResponse(session.model_dump())

    async def delete_session(self, request: Request) -> Response:
        await self.store.delete(request.path_params["session_id"])
        return Response(status_code=204)


async def health(request: Request) -> JSONResponse:
    """Liveness: the process answers. Touches no backend, so it stays cheap when one is down."""
    return JSONResponse({"status": "ok", "version": __version__})


async def _check(check: Callable[[], Any]) -> str | None:
    """None when the check passes, else why it failed (one line, secrets masked)."""
    try:
        await asyncio.wait_for(check(), READY_TIMEOUT_S)
    except TimeoutError:
        return f"no answer within {READY_TIMEOUT_S:g} s"
    except WeblensError as exc:
        return redact_text(exc.message)
    except Exception as exc:  # a check from elsewhere (a Redis client) may raise its own types
        return redact_text(f"{type(exc).__name__}: {exc}".splitlines()[0])
    return None


def _readiness(runtime: Runtime) -> Callable[[Request], Any]:
    async def ready(request: Request) -> JSONResponse:
        """Readiness: every backend check of the runtime, run at once; 503 naming what is down."""
        names = list(runtime.readiness_checks)
        failures = await asyncio.gather(*(_check(runtime.readiness_checks[name]) for name in names))
        checks = {
            name: {"status": "ok"} if why is None else {"status": "down", "error": why}
            for name, why in zip(names, failures, strict=True)
        }
        down = [name for name, why in zip(names, failures, strict=True) if why is not None]
        body: dict[str, Any] = {"status": "down" if down else "ready", "checks": checks}
        if down:
            body["error"] = {"code": "upstream_error", "message": f"not ready: {', '.join(down)} unreachable"}
        return JSONResponse(body, status_code=503 if down else 200)

    return ready


def _metrics_route(metrics: Metrics) -> Callable[[Request], Any]:
    async def render(request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return render


class _CountRequests:
    """Counts every HTTP request by route template (a bounded label) and status, with its latency."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                route = scope.get("route")
                name = getattr(route, "path", None) or ("/mcp" if scope["path"] == MCP_PATH else "unmatched")
                self.metrics.http_request(scope["method"], name, status[0], time.perf_counter() - started)
            await send(message)

        await self.app(scope, receive, sending)


async def index(request: Request) -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _BadRequest)
    return _error(exc.status, exc.code, exc.message)


async def _not_found(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, NotFoundError)
    return _error(404, exc.code, exc.message)


async def _storage_failed(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StorageError)
    return _error(503, exc.code, f"saved sessions are unavailable right now: {redact_text(exc.message)}")


async def _internal(request: Request, exc: Exception) -> Response:
    """A bug is a JSON error in the API's shape; the traceback goes to the server's log only."""
    logger.error("%s %s failed: %s", request.method, request.url.path, type(exc).__name__)
    return _error(500, "internal_error", "the server failed to answer this request; its log says why")


def _chat_service(settings: Settings, store: SessionStore, toolset: Toolset) -> tuple[ChatService | None, str]:
    """The chat service over a view of `toolset` (`llm.tools`), or None and why (no model configured)."""
    try:
        model = ChatModel.from_settings(settings)
    except NotConfiguredError as exc:
        return None, exc.message
    agent = Agent.from_settings(model, toolset, settings)
    return ChatService(store, agent), ""


def _compose(lifespans: list[Lifespan]) -> Lifespan:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for each in lifespans:
                await stack.enter_async_context(each(app))
            yield

    return lifespan


def create_app(
    settings: Settings, *, toolset: Toolset | None = None, runtime: Runtime | None = None, warm: bool = False
) -> Starlette:
    """Build the server app from settings.

    One toolset serves both faces: chat sees `llm.tools` of it, `/mcp` sees `mcp.tools`, so
    a search through either shares one router, cache and set of rate limits. Without
    `runtime` the app builds one and closes it at shutdown; `toolset` replaces the built-in
    tools (tests, embedding). `warm` starts the page-reading worker processes as soon as the
    server runs (`weblens serve`), so the first fetch waits for none."""
    own_runtime = runtime is None
    runtime = runtime if runtime is not None else Runtime.from_settings(settings)
    tools = toolset if toolset is not None else default_toolset(runtime)
    metrics = runtime.metrics

    def count_call(name: str, result: ToolResult) -> None:
        outcome = "ok" if result.error is None else result.error.code
        metrics.tool_call(name, outcome, result.duration_ms / 1000.0)

    tools.observe(count_call)
    store = runtime.sessions
    chat, why = _chat_service(settings, store, tools)
    api = _Api(settings, store, chat, why, Answers(chat, runtime.backends.answers))
    panel = ToolPanel(tools.only(settings.llm.tools), api.read_json)
    shared = runtime.backends
    jobs = open_crawl_jobs(settings, runtime.fetcher, redis=shared.redis, slots=shared.slots)
    crawls = CrawlApi(jobs, api.read_json)

    @asynccontextmanager
    async def chat_lifespan(app: Starlette) -> AsyncIterator[None]:
        warming = asyncio.create_task(runtime.workers.warm()) if warm else None
        listening = asyncio.create_task(api.answers.listen())  # Stops asked of other replicas
        try:
            await store.open()  # migrations run at start-up; a replica without its database still serves the rest
        except StorageError as exc:
            logger.warning(
                "session storage is unavailable at start-up (chat answers 503 until it is back): %s",
                redact_text(exc.message),
            )
        try:
            async with asyncio.timeout(READY_TIMEOUT_S * 3):
                await crawls.jobs.start()  # resumes the jobs a stopped server left unfinished
        except Exception as exc:  # a crawl-jobs file or Redis down: the rest still serves
            logger.warning("crawl jobs did not start: %s", redact_text(f"{type(exc).__name__}: {exc}"))
        try:
            yield
        finally:
            await crawls.jobs.aclose()
            if warming is not None:
                warming.cancel()
            listening.cancel()
            await asyncio.gather(listening, return_exceptions=True)
            await api.answers.runs.aclose()
            if chat is not None and isinstance(chat.agent.model, ChatModel):
                await chat.agent.model.aclose()
            if own_runtime:
                await runtime.aclose()

    routes: list[BaseRoute] = [
        Route("/health", health),
        Route("/ready", _readiness(runtime)),
        Route("/metrics", _metrics_route(metrics)),
        Route("/", index),
        Route("/api/status", api.status),
        Route("/api/chat", api.chat_message, methods=["POST"]),
        Route("/api/sessions", api.list_sessions, methods=["GET"]),
        Route("/api/sessions", api.create_session, methods=["POST"]),
        Route("/api/sessions/{session_id}", api.get_session, methods=["GET"]),
        Route("/api/sessions/{session_id}", api.rename_session, methods=["PATCH"]),
        Route("/api/sessions/{session_id}", api.delete_session, methods=["DELETE"]),
        Route("/api/sessions/{session_id}/stream", api.answers.follow, methods=["GET"]),
        Route("/api/sessions/{session_id}/stop", api.answers.stop, methods=["POST"]),
        Route("/api/tools", panel.list, methods=["GET"]),
        Route("/api/tools/{name}", panel.run, methods=["POST"]),
        *crawls.routes(),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    lifespans: list[Lifespan] = [chat_lifespan]
    mcp = mcp_mount(settings, toolset=tools)
    if mcp is not None:
        routes.append(Route(MCP_PATH, mcp.app))
        lifespans.append(mcp.app_lifespan)
    app = Starlette(
        routes=routes,
        lifespan=_compose(lifespans),
        middleware=[Middleware(_CountRequests, metrics=metrics), Middleware(_RequestGuard, settings=settings)],
        exception_handlers={
            _BadRequest: _bad_request,
            NotFoundError: _not_found,
            StorageError: _storage_failed,
            Exception: _internal,
        },
    )
    app.state.settings = settings
    app.state.runtime = runtime
    app.state.toolset = tools
    app.state.sessions = store
    app.state.chat = chat
    app.state.end_answers = api.answers.runs.aclose  # for the server: answers' streams end at Ctrl-C, not after it
    return app
