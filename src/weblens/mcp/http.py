"""The gateway over streamable HTTP at `/mcp`, safe by default.

- binds 127.0.0.1 unless told otherwise, and refuses a non-loopback address without a
  bearer token (`WEBLENS_MCP_TOKEN`);
- checks `Host` and `Origin` (DNS-rebinding protection from the MCP spec) with the
  SDK's `TransportSecuritySettings`: loopback names plus `mcp.allowed_origins`;
- answers CORS (preflight included) for exactly those origins, so a client running in a
  browser page (the MCP Inspector's "Direct" connection) can call it; the preflight
  carries no token, so CORS sits outside the bearer check;
- requires `Authorization: Bearer <token>` when a token is set (the SDK's bearer
  middleware, with a constant-time comparison);
- refuses request bodies over `mcp.max_body_bytes` with 413;
- answers a request whose `id` is not a string or an integer, and a JSON-RPC batch, with
  `-32600 Invalid Request` (the SDK would take the first for a notification and never reply);
- keeps no session between requests (stateless streamable HTTP): each POST is served on
  its own, so memory does not grow with the clients that ever said `initialize`, and
  replicas behind a load balancer need not stick a client to one of them. Progress
  notifications travel in the POST's own response stream; there is no GET stream (405).

Responses may stream (SSE) rather than always being plain JSON: on that path the SDK
watches for the client hanging up, so a client's cancel or timeout cancels the tool
call and closes its upstream request instead of leaving the work running. A client that
accepts only `application/json` gets a plain JSON body instead (see `_NegotiateAccept`).

`mcp_http_app` returns the ASGI app and its lifespan, so `weblens serve` can mount the
same endpoint; `standalone_app` wraps them for `weblens mcp --transport http`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import check_accept_headers
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from weblens.config import Settings, setting_hint
from weblens.errors import NotConfiguredError
from weblens.mcp.messages import Refusal, invalid_request, read_message, usable_id
from weblens.mcp.server import create_server, gateway_toolset, gateway_view
from weblens.runtime import Runtime
from weblens.toolset import Toolset

__all__ = [
    "MCP_PATH",
    "UNAUTHORIZED",
    "McpHttp",
    "check_bind",
    "is_loopback",
    "is_wildcard",
    "mcp_http_app",
    "mcp_mount",
    "security_settings",
    "standalone_app",
]

MCP_PATH = "/mcp"
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARD_HOSTS = ("0.0.0.0", "::", "")
_TOKEN_CLIENT = "weblens-mcp-token"

logger = logging.getLogger("weblens.mcp")


@dataclass(frozen=True)
class McpHttp:
    """The `/mcp` endpoint: an ASGI app (path-agnostic) and the lifespan it needs running."""

    app: ASGIApp
    lifespan: Callable[[], AbstractAsyncContextManager[None]]
    session_manager: StreamableHTTPSessionManager

    def app_lifespan(self, app: object) -> AbstractAsyncContextManager[None]:
        """The lifespan in Starlette's signature, for a host app's list of lifespans."""
        return self.lifespan()


class _StaticToken:
    """The SDK's `TokenVerifier` for one shared secret."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token="", client_id=_TOKEN_CLIENT, scopes=[])
        return None


UNAUTHORIZED = (
    "Authentication required: send 'Authorization: Bearer <token>' with the token the server was started with "
    "(WEBLENS_MCP_TOKEN)"
)
"""What a client without the right token reads (a 401's body and WWW-Authenticate), instead of
the SDK's bare "Authentication required": which setting holds the token, which header carries it."""


class _RequireToken(RequireAuthMiddleware):
    """The SDK's bearer check, with a 401 that says how to authenticate."""

    async def _send_auth_error(self, send: Send, status_code: int, error: str, description: str) -> None:
        await super()._send_auth_error(send, status_code, error, UNAUTHORIZED if status_code == 401 else description)


class _PostOnly:
    """Stateless, the endpoint has nothing to stream on a GET nor a session to DELETE: both are
    405 (which the spec allows), not a stream that would stay open with nothing to say."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "POST":
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Method Not Allowed: use POST"}}
            await JSONResponse(body, status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        await self.app(scope, receive, send)


_BOTH = b"application/json, text/event-stream"
_NOT_JSON = object()


class _NegotiateAccept:
    """The spec has a client accept both JSON and an event stream; the SDK answers 406 to one
    that names only one of them. Real clients do: Anthropic's connector proxy (Claude.ai's
    remote servers) accepts only `text/event-stream`, many plain JSON-RPC clients only
    `application/json`. So the former is served the usual stream, the latter one JSON body
    (from a second SDK manager in JSON mode; such a call is not cancelled by hanging up).
    A client accepting neither still gets the SDK's 406."""

    def __init__(self, streaming: ASGIApp, plain: ASGIApp) -> None:
        self.streaming = streaming
        self.plain = plain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            has_json, has_sse = check_accept_headers(Request(scope))
            if has_sse and not has_json:
                headers = [(name, value) for name, value in scope["headers"] if name != b"accept"]
                scope = {**scope, "headers": [*headers, (b"accept", _BOTH)]}
            elif has_json and not has_sse:
                await self.plain(scope, receive, send)
                return
        await self.streaming(scope, receive, send)


def _unknown_version(scope: Scope, message: object) -> types.JSONRPCError | None:
    """An `MCP-Protocol-Version` header naming no version this server knows, on a request that does
    not carry the 2026-07-28 envelope: the SDK would answer that the envelope is missing, which
    tells a client of the handshake era nothing. This answer names the versions it can use."""
    header = Headers(scope=scope).get(MCP_PROTOCOL_VERSION_HEADER)
    if header is None or header in KNOWN_PROTOCOL_VERSIONS:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta:
        return None  # a 2026-07-28-era request: the SDK's structured refusal is the one its client reads
    supported = list(KNOWN_PROTOCOL_VERSIONS)
    text = f"Unsupported MCP-Protocol-Version {header!r}: send one of {', '.join(supported)} (what initialize agreed)"
    data = types.UnsupportedProtocolVersionErrorData(supported=supported, requested=header).model_dump(mode="json")
    error = types.ErrorData(code=types.UNSUPPORTED_PROTOCOL_VERSION, message=text, data=data)
    return types.JSONRPCError(jsonrpc="2.0", id=usable_id(message), error=error)


class _ValidIds:
    """The SDK reads a request whose `id` is a float, an object, null or NaN as a notification:
    202 and no answer, so its client waits forever. Here such a message is JSON-RPC's
    `-32600 Invalid Request`, and so is a batch or a malformed message (the SDK's answer is a
    dump of pydantic errors): `weblens.mcp.messages`, as on stdio. An unknown
    `MCP-Protocol-Version` is a 400 naming the known ones (`_unknown_version`).
    The body is read (up to `max_bytes`, the SDK's own 413 beyond) and handed on unchanged."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        size = 0
        more = True
        while more and size <= self.max_bytes:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            more = message.get("more_body", False)

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        if not more and size <= self.max_bytes:
            body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
            try:
                parsed = json.loads(body)
            except (ValueError, RecursionError):  # the SDK answers what is not JSON
                parsed = _NOT_JSON
            errors: list[types.JSONRPCError] = []
            if parsed is not _NOT_JSON:
                read = read_message(parsed)
                if isinstance(read, Refusal):
                    # a malformed notification gets no answer on stdio; an HTTP request needs one
                    errors = list(read) or [invalid_request(None, f"Invalid Request: {read.reason}")]
                elif (unknown := _unknown_version(scope, parsed)) is not None:
                    errors = [unknown]
            if errors:
                dumped = [error.model_dump(mode="json", by_alias=True, exclude_unset=True) for error in errors]
                reply = dumped if isinstance(parsed, list) else dumped[0]  # a batch's answer is an array
                await JSONResponse(reply, status_code=400)(scope, replay, send)
                return
        await self.app(scope, replay, send)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: addresses other machines cannot reach."""
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """True for an address that binds every interface (0.0.0.0, ::)."""
    return host in _WILDCARD_HOSTS


def check_bind(host: str, settings: Settings) -> None:
    """Refuse to serve MCP on a reachable address without a token."""
    if not is_loopback(host) and settings.mcp.token is None:
        raise NotConfiguredError(
            f"refusing to serve MCP on {host or 'all interfaces'} without a token; "
            f"{setting_hint('mcp', 'token')}, or bind 127.0.0.1"
        )


def _names(host: str) -> list[str]:
    """The names a client may call the server by: loopback ones and the bound address."""
    names = list(_LOOPBACK_NAMES)
    bound = f"[{host}]" if ":" in host else host
    if bound not in names and not is_wildcard(host):  # e.g. a LAN address, or another loopback one (127.0.0.2)
        names.append(bound)
    return names


def _origins(host: str, settings: Settings) -> list[str]:
    """The origins trusted to call the server (the SDK's spelling: `:*` is any port)."""
    return [
        *(f"{scheme}://{name}{port}" for scheme in ("http", "https") for name in _names(host) for port in ("", ":*")),
        *settings.mcp.allowed_origins,
    ]


def security_settings(host: str, settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks: loopback names, the bound address, and `mcp.allowed_origins`."""
    if is_wildcard(host):
        # Every name of this machine is valid on a wildcard bind; the required token guards it.
        logger.warning("MCP on a wildcard address: Host/Origin checks are off, the bearer token is required")
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = _names(host)
    hosts = [*names, *(f"{name}:*" for name in names)]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=_origins(host, settings)
    )


def _origin_pattern(origins: Iterable[str]) -> str:
    """One regular expression matching `origins` as the SDK's Origin check reads them."""
    return "|".join(re.escape(origin).replace(re.escape(":*"), r":\d+") for origin in origins)


def with_cors(app: ASGIApp, host: str, settings: Settings) -> ASGIApp:
    """CORS for the origins the Origin check trusts (on a wildcard bind too: a browser page
    elsewhere gets no CORS headers unless `mcp.allowed_origins` names it). Any request header
    is allowed (`Mcp-Protocol-Version`, `Mcp-Method`, `Authorization`, ...); the session and
    version headers and the 401's challenge are readable by the page."""
    return CORSMiddleware(
        app,
        allow_origin_regex=_origin_pattern(_origins(host, settings)),
        allow_methods=["GET", "POST", "DELETE"],
        allow_headers=["*"],
        expose_headers=["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate"],
        max_age=600,
    )


def mcp_http_app(settings: Settings, *, toolset: Toolset, host: str | None = None) -> McpHttp:
    """The gateway serving `toolset` as an ASGI app for `host` (default `server.host`), with its lifespan.

    Raises `NotConfiguredError` for a non-loopback host without a token.
    """
    host = settings.server.host if host is None else host
    check_bind(host, settings)
    server = create_server(toolset)
    streaming, plain = (
        StreamableHTTPSessionManager(
            app=server,
            json_response=json_response,
            stateless=True,
            security_settings=security_settings(host, settings),
            max_request_body_size=settings.mcp.max_body_bytes,
        )
        for json_response in (False, True)
    )
    negotiated = _NegotiateAccept(StreamableHTTPASGIApp(streaming), StreamableHTTPASGIApp(plain))
    app: ASGIApp = _PostOnly(_ValidIds(negotiated, settings.mcp.max_body_bytes))
    if settings.mcp.token is not None:
        verifier = _StaticToken(settings.mcp.token.get_secret_value())
        app = AuthenticationMiddleware(_RequireToken(app, required_scopes=[]), backend=BearerAuthBackend(verifier))

    @asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        async with streaming.run(), plain.run():
            yield

    return McpHttp(app=with_cors(app, host, settings), lifespan=lifespan, session_manager=streaming)


def mcp_mount(settings: Settings, *, toolset: Toolset) -> McpHttp | None:
    """The endpoint `weblens serve` mounts at `/mcp` — a view of the server's one toolset
    limited to `mcp.tools` — or None (logged) when `server.host` is reachable from other
    machines and no MCP token is set."""
    try:
        return mcp_http_app(settings, toolset=gateway_view(toolset, settings.mcp.tools))
    except NotConfiguredError as exc:
        logger.warning("not serving MCP at %s: %s", MCP_PATH, exc.message)
        return None


def standalone_app(settings: Settings, *, host: str | None = None, enabled: Iterable[str] | None = None) -> Starlette:
    """A Starlette app serving only `/mcp` (for `weblens mcp --transport http`).

    The app owns its `Runtime`: built here, closed when the server shuts down. The
    exposed tools are `enabled`, else `mcp.tools`; `app.state.toolset` holds them."""
    runtime = Runtime.from_settings(settings)
    toolset = gateway_toolset(runtime, enabled)
    try:
        endpoint = mcp_http_app(settings, host=host, toolset=toolset)
    except NotConfiguredError:
        runtime.cache.close()
        raise

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with runtime, endpoint.lifespan():
            yield

    app = Starlette(routes=[Route(MCP_PATH, endpoint.app)], lifespan=lifespan)
    app.state.toolset = toolset
    return app
