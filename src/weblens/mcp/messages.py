"""What the gateway answers to a message that is not one it can serve, on either transport.

The SDK reads a request whose `id` is a float, null or an object as a notification (no
answer: its client waits forever), and answers a JSON-RPC batch with a dump of pydantic's
errors. Here such messages get JSON-RPC's `-32600 Invalid Request` with a sentence saying what
is wrong, and the request's own id whenever it has a usable one.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

__all__ = ["BAD_ID", "BATCH_REFUSED", "bad_id", "batch_replies", "invalid_request", "usable_id"]

BAD_ID = "Invalid Request: id must be a string or an integer"
BATCH_REFUSED = (
    "Invalid Request: JSON-RPC batches are not supported (MCP dropped them in protocol 2025-06-18); "
    "send each message on its own"
)


def usable_id(message: object) -> str | int | None:
    """The message's `id` when it is one a reply can carry (a string or an integer), else None."""
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def bad_id(message: object) -> bool:
    """A message carrying an `id` that is not a string or an integer (MCP: never null, never a float)."""
    return isinstance(message, dict) and "id" in message and usable_id(message) is None


def invalid_request(message_id: str | int | None, text: str) -> types.JSONRPCError:
    """`-32600 Invalid Request` for the message with `message_id` (null when it had none usable)."""
    error = types.ErrorData(code=types.INVALID_REQUEST, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=message_id, error=error)


def batch_replies(batch: list[Any]) -> list[types.JSONRPCError]:
    """A batch's answer: each request in it refused by its id (one refusal when none has an id)."""
    ids = [usable_id(item) for item in batch if isinstance(item, dict) and "method" in item]
    return [invalid_request(message_id, BATCH_REFUSED) for message_id in ids if message_id is not None] or [
        invalid_request(None, BATCH_REFUSED)
    ]
