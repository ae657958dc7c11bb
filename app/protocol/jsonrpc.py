"""JSON-RPC 2.0 framing: bytes in, one classified message (or a framing error) out. No I/O.

Only single messages: a JSON array (a batch) is an invalid request, as in MCP 2025-06-18.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass(frozen=True, slots=True)
class Request:
    id: str | int
    method: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Notification:
    method: str


@dataclass(frozen=True, slots=True)
class ClientResponse:
    """A client's answer to a server request (we never send any, but it is valid traffic)."""


@dataclass(frozen=True, slots=True)
class FramingError:
    code: int  # PARSE_ERROR or INVALID_REQUEST
    message: str
    id: str | int | None = None


Message = Request | Notification | ClientResponse | FramingError


def _valid_id(value: Any) -> bool:
    return (isinstance(value, str) and len(value) <= 256) or (isinstance(value, int) and not isinstance(value, bool))


def parse(body: bytes) -> Message:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return FramingError(PARSE_ERROR, "Parse error: the body is not a UTF-8 JSON document")
    if isinstance(data, list):
        return FramingError(INVALID_REQUEST, "Invalid Request: batches are not supported")
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        return FramingError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
    message_id = data.get("id")
    has_id = "id" in data
    if has_id and not _valid_id(message_id):
        return FramingError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if "method" in data:
        method = data["method"]
        if not isinstance(method, str) or not method:
            return FramingError(INVALID_REQUEST, "Invalid Request: method must be a non-empty string", message_id)
        params = data.get("params")
        if params is not None and not isinstance(params, dict):
            return FramingError(INVALID_REQUEST, "Invalid Request: params must be an object", message_id)
        if not has_id:
            return Notification(method)
        return Request(message_id, method, params or {})
    if has_id and (("result" in data) != ("error" in data)):
        return ClientResponse()
    return FramingError(INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response", message_id)


def _envelope(message_id: str | int | None, key: bytes, payload: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + orjson.dumps(message_id) + b',"' + key + b'":' + payload + b"}"


def result(message_id: str | int, payload: bytes) -> bytes:
    """A response around an already-serialized result object."""
    return _envelope(message_id, b"result", payload)


def error(message_id: str | int | None, code: int, message: str) -> bytes:
    return _envelope(message_id, b"error", orjson.dumps({"code": code, "message": message}))
