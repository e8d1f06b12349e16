"""What the gateway answers to a message it cannot serve, on either transport.

The SDK reads a request whose `id` is a float, null or an object as a notification (no
answer: its client waits forever); on stdio it drops whatever else it cannot read, and over
HTTP it answers a batch or a malformed request with a dump of pydantic's errors. Here each
such message gets JSON-RPC's `-32600 Invalid Request` with a sentence saying what is wrong,
carrying the request's own id whenever it has a usable one.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from pydantic import ValidationError

__all__ = ["BAD_ID", "BATCH_REFUSED", "Refusal", "invalid_request", "read_message", "usable_id"]

BAD_ID = "Invalid Request: id must be a string or an integer"
BATCH_REFUSED = (
    "Invalid Request: JSON-RPC batches are not supported (MCP dropped them in protocol 2025-06-18); "
    "send each message on its own"
)
NOT_AN_OBJECT = "Invalid Request: a message is a JSON object"


class Refusal(list[types.JSONRPCError]):
    """The errors answering a message that cannot be served (one per request of a batch), and
    why, for the server's log. Empty for a notification: it is never answered, not even so."""

    def __init__(self, reason: str, errors: list[types.JSONRPCError]) -> None:
        super().__init__(errors)
        self.reason = reason


def usable_id(message: object) -> str | int | None:
    """The message's `id` when it is one a reply can carry (a string or an integer), else None."""
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def invalid_request(message_id: str | int | None, text: str) -> types.JSONRPCError:
    """`-32600 Invalid Request` for the message with `message_id` (null when it had none usable)."""
    error = types.ErrorData(code=types.INVALID_REQUEST, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=message_id, error=error)


def _batch(batch: list[Any]) -> Refusal:
    ids = [usable_id(item) for item in batch if isinstance(item, dict) and "method" in item]
    errors = [invalid_request(message_id, BATCH_REFUSED) for message_id in ids if message_id is not None]
    return Refusal("a JSON-RPC batch", errors or [invalid_request(None, BATCH_REFUSED)])


def read_message(parsed: Any) -> types.JSONRPCMessage | Refusal:
    """`parsed` (one JSON value off the wire) as the message the SDK serves, or its refusal."""
    if isinstance(parsed, list):
        return _batch(parsed)
    if not isinstance(parsed, dict):
        return Refusal("not a JSON object", [invalid_request(None, NOT_AN_OBJECT)])
    if "id" in parsed and usable_id(parsed) is None:  # the SDK would read it as a notification
        return Refusal("an id that is not a string or an integer", [invalid_request(None, BAD_ID)])
    try:
        return types.jsonrpc_message_adapter.validate_python(parsed, by_name=False)
    except ValidationError as exc:
        if "id" not in parsed and "method" in parsed:
            return Refusal("a malformed notification", [])
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        text = f"Invalid Request: {where}: {first['msg']}"
        return Refusal("not a JSON-RPC 2.0 message", [invalid_request(usable_id(parsed), text)])
