"""The gateway's stdio transport: read leniently, answer every request, print only JSON-RPC.

MCP over stdio is one JSON-RPC message per line. The SDK's reader drops, without a word,
whatever it cannot parse, so a client whose request was malformed waits forever for the
answer. This reader (the SDK's server still does everything else):

- ignores blank lines and takes a line ending in CRLF as one ending in LF;
- answers a line that is not JSON with `-32700 Parse error`, and a request the SDK would
  drop or misread (an `id` that is a float, null or an object; no `"jsonrpc": "2.0"`; a
  batch, which MCP dropped in 2025-06-18) with `-32600 Invalid Request` carrying its id;
- reads a message framed with `Content-Length` headers (as LSP frames them) as one message,
  warning on stderr once that MCP frames by lines (the answers stay one per line);
- refuses a message over `mcp.max_body_bytes` (the HTTP body limit) without holding it:
  the rest of the line is skipped;
- says each refusal on stderr, so whoever reads the client's server log sees why.

While it serves, fd 0 reads /dev/null and fd 1 writes to stderr, as the SDK's own transport
arranges: a child process cannot eat the client's input, and a library that prints cannot
corrupt the stream. Both are restored when the client closes stdin.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from weblens.mcp.messages import Refusal, invalid_request, read_message

__all__ = ["stdio_streams"]

logger = logging.getLogger("weblens.mcp")

_HEADER = b"content-length:"
_MAX_HEADER_LINES = 16
_SHOWN_CHARS = 80
_FLUSH_TIMEOUT_S = 5.0


def _parse_error(text: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=types.PARSE_ERROR, message=text))


def _shown(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").strip()
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"


def _read(raw: bytes) -> SessionMessage | list[types.JSONRPCError]:
    """One message off the wire: what the server is to handle, or the errors to answer instead
    (none for a blank line or a notification that cannot be served)."""
    if not raw.strip():
        return []
    try:
        parsed: Any = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        logger.warning("stdin: not JSON, answered -32700: %s", _shown(raw))
        return [_parse_error(f"Parse error: {exc}")]
    message = read_message(parsed)
    if isinstance(message, Refusal):
        logger.warning("stdin: %s, refused: %s", message.reason, _shown(raw))
        return message
    return SessionMessage(message)


class _Wire:
    """The client's byte stream, cut into messages: lines, or Content-Length frames."""

    def __init__(self, stream: BinaryIO, max_bytes: int) -> None:
        self.stream = stream
        self.max_bytes = max_bytes
        self.warned_framing = False

    def _line(self) -> tuple[bytes, bool]:
        """The next line (at most `max_bytes`) and whether it fit; b"" at the end of input."""
        line = self.stream.readline(self.max_bytes + 1)
        if len(line) <= self.max_bytes or line.endswith(b"\n"):
            return line, True
        while line and not line.endswith(b"\n"):  # skip the rest without keeping it
            line = self.stream.readline(self.max_bytes)
        return b"too long", False

    def _framed(self, first: bytes) -> tuple[bytes, bool]:
        """The body after `Content-Length` headers (and any others, up to the blank line)."""
        if not self.warned_framing:
            self.warned_framing = True
            logger.warning("stdin: Content-Length framing read; MCP's stdio transport sends one JSON message per line")
        length = first[len(_HEADER) :].strip()
        for _ in range(_MAX_HEADER_LINES):
            header = self.stream.readline(1024)
            if not header.strip():
                break
        if not length.isdigit():
            logger.warning("stdin: a Content-Length header without a length, skipped")
            return b"", True
        if int(length) > self.max_bytes:
            left = int(length)
            while left and (chunk := self.stream.read(min(left, 1 << 16))):
                left -= len(chunk)
            return b"too long", False
        return self.stream.read(int(length)), True

    def next(self) -> tuple[bytes, bool] | None:
        """The next message's bytes and whether they are within the limit; None at the end."""
        line, fits = self._line()
        if not line:
            return None
        if fits and line[: len(_HEADER)].lower() == _HEADER:
            return self._framed(line)
        return line, fits


@contextmanager
def _claimed() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The wire's stdin and stdout, private; fd 0 reads /dev/null and fd 1 writes to stderr meanwhile."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        # closefd=False: a worker thread may still block reading stdin when serving ends
        with os.fdopen(wire_out, "wb", closefd=False) as out:
            yield os.fdopen(wire_in, "rb", closefd=False), out
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_out)


Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


@asynccontextmanager
async def stdio_streams(max_bytes: int) -> AsyncIterator[Streams]:
    """The message streams of a client on this process's stdin/stdout, for `Server.run`.

    Ends when the client closes stdin (the read stream then ends) and the server is done."""
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, outgoing = anyio.create_memory_object_stream[SessionMessage](0)

    with _claimed() as (stdin, stdout):
        wire = _Wire(stdin, max_bytes)
        replies = to_client.clone()

        async def read() -> None:
            async with to_server, replies:
                while (message := await anyio.to_thread.run_sync(wire.next, abandon_on_cancel=True)) is not None:
                    raw, fits = message
                    if not fits:
                        logger.warning("stdin: a message over %d bytes (mcp.max_body_bytes), refused", max_bytes)
                        await replies.send(SessionMessage(invalid_request(None, "Invalid Request: message too large")))
                        continue
                    read_as = _read(raw)
                    if isinstance(read_as, SessionMessage):
                        await to_server.send(read_as)
                        continue
                    for error in read_as:
                        await replies.send(SessionMessage(error))

        written = anyio.Event()

        async def write() -> None:
            async with outgoing:
                async for message in outgoing:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await anyio.to_thread.run_sync(_write_line, stdout, data.encode() + b"\n")
            written.set()

        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            try:
                yield from_client, to_client
            finally:
                to_client.close()  # the server is done: what it sent is written, then reading stops
                with anyio.move_on_after(_FLUSH_TIMEOUT_S):
                    await written.wait()
                group.cancel_scope.cancel()


def _write_line(stdout: BinaryIO, data: bytes) -> None:
    stdout.write(data)
    stdout.flush()
