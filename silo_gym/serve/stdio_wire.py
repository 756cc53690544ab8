"""Every line a stdio client sends gets its message or a JSON-RPC error (issue 19, item 12).

The SDK's stdio transport turns a line it cannot read into an exception that the server drops,
so the client waits forever for a reply: a line that is not JSON, ``params`` that are an array or
a scalar, an integer past 4,300 digits (the SDK's parser refuses numbers that long, though JSON
has no such limit). :func:`relay` sits between the SDK's reader and the server: messages pass as
they are (the fast path is untouched), and for each line the SDK could not read it looks again:

- a line that is not JSON (strict RFC 8259, :func:`~silo_gym.jsonfmt.loads_strict`) is answered
  ``-32700`` (Parse error) with ``id: null``, as JSON-RPC 2.0 §5.1 says;
- JSON that silo_gym reads but the SDK's parser did not (a long integer) goes on as its message
  (a tool input holding one is then refused by rule 8), except an ``id`` past 4,300 digits, which
  the SDK cannot handle: ``-32600`` with ``id: null``;
- a request whose ``params`` is not an object is answered ``-32602`` (Invalid params) with its id;
- anything else that is not a JSON-RPC 2.0 message is answered ``-32600`` (Invalid Request), with
  its id when it has one that JSON-RPC allows, else ``id: null``;
- a notification (a ``method`` and no ``id``) is never answered (JSON-RPC 2.0 §4.1), nor is a
  blank line; but a request whose ``id`` is a fraction (or ``NaN``), which the SDK reads as a
  notification, is answered ``-32600`` with ``id: null``.

The streamable HTTP transport already answers each of these itself.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from ..jsonfmt import loads_strict
from ..plain_json import MAX_INT_DIGITS

__all__ = ["RecordedLines", "error_reply", "relay", "relay_streams"]

_SHOWN = 200


class RecordedLines:
    """The client's lines as the SDK's reader consumes them (``async for``), each also kept, in
    order, until :func:`relay` pairs it with what the reader made of it."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self.sent: deque[str] = deque()

    def __aiter__(self) -> RecordedLines:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.__anext__()
        self.sent.append(line)
        return line


def _valid_id(value: Any) -> bool:
    return (isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))) \
        and not isinstance(value, float)


def _too_long(value: Any) -> bool:
    return type(value) is int and not -(10**MAX_INT_DIGITS) < value < 10**MAX_INT_DIGITS


def _digits(value: int) -> str:
    return f"about {int(abs(value).bit_length() * 0.30103) + 1}"


def _error(code: int, message: str, request_id: Any = None) -> SessionMessage:
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                             error=types.ErrorData(code=code, message=message)))


def _shown(line: str) -> str:
    text = line.strip()
    return text if len(text) <= _SHOWN else text[:_SHOWN] + f"… ({len(text)} characters)"


def error_reply(line: str) -> SessionMessage | None:
    """What to send back for a line the SDK's reader could not read: the message it stands for
    (silo_gym's reader reads it), a JSON-RPC error, or ``None`` (a notification, a blank line)."""
    if not line.strip():
        return None
    try:
        value = loads_strict(line)
    except json.JSONDecodeError as exc:
        return _error(types.PARSE_ERROR, f"Parse error: the line is not JSON ({exc.msg} at column {exc.colno}): "
                                         f"{_shown(line)}")
    if isinstance(value, dict) and _too_long(value.get("id")):
        return _error(types.INVALID_REQUEST, f'Invalid Request: "id" is an integer of {_digits(value["id"])} digits; '
                                             f"an id may have at most {MAX_INT_DIGITS}.")
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except Exception:  # noqa: S110 - not a message: answered below
        pass
    if not isinstance(value, dict):
        kind = "an array (batches are not part of MCP)" if isinstance(value, list) else "not an object"
        return _error(types.INVALID_REQUEST, f"Invalid Request: a JSON-RPC message is an object; this one is {kind}.")
    request_id = value.get("id")
    if "id" not in value and isinstance(value.get("method"), str):
        return None  # a notification: never answered, even when malformed
    reply_id = request_id if _valid_id(request_id) else None
    if value.get("jsonrpc") != "2.0":
        return _error(types.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".', reply_id)
    if not isinstance(value.get("method"), str):
        return _error(types.INVALID_REQUEST, 'Invalid Request: a request needs a "method" string.', reply_id)
    if not _valid_id(request_id):
        return _error(types.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer.')
    if "params" in value and not isinstance(value["params"], dict):
        kind = "an array" if isinstance(value["params"], list) else "not an object"
        return _error(types.INVALID_PARAMS, f'Invalid params: MCP takes "params" as an object; this one is {kind}.',
                      reply_id)
    return _error(types.INVALID_PARAMS, f'Invalid params for "{value["method"]}".', reply_id)


def relay_streams() -> tuple[Any, Any]:
    """The streams from :func:`relay` to the server: ``(send side, receive side)``."""
    return anyio.create_memory_object_stream[SessionMessage | Exception](0)


def _id_dropped(item: Any, line: str) -> bool:
    """Whether the SDK read ``line``, which has an ``id``, as a notification (it drops the id)."""
    if not isinstance(getattr(item, "message", None), types.JSONRPCNotification) or '"id"' not in line:
        return False
    try:
        value = json.loads(line)  # as leniently as the SDK's parser: NaN is read
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and "id" in value


async def relay(sdk_read: Any, lines: RecordedLines, to_server: Any, to_client: Any) -> None:
    """Pass what the SDK's reader made of each line on to the server; answer (or let pass) each
    line it could not read (:func:`error_reply`). Ends when the reader's stream ends, then closes
    ``to_server``."""
    async with to_server:
        async for item in sdk_read:
            line = lines.sent.popleft() if lines.sent else ""
            if not isinstance(item, Exception):
                if not _id_dropped(item, line):
                    await to_server.send(item)
                    continue
                # A request whose id JSON-RPC allows but MCP does not (1.5, NaN): the SDK reads it
                # as a notification, which nobody answers.
                reply: SessionMessage | None = _error(
                    types.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer.')
            else:
                reply = error_reply(line)
            if reply is None:
                continue
            if isinstance(reply.message, types.JSONRPCError):
                try:
                    await to_client.send(reply)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            else:
                await to_server.send(reply)
