"""MCP 2025-06-18 method dispatch over the router. No sockets, headers or environment.

``McpServer.handle(body)`` returns a ``Reply``: the kind of answer (the HTTP layer maps it to a
status code), the body bytes, and the categories the access log may carry — never arguments,
text or results.

``initialize`` always answers protocolVersion 2025-06-18, whatever the client sent (SPEC §5.2):
the version is metadata, never a gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types  # the same objects as mcp.types, without importing the whole SDK
import orjson

from app import __version__
from app.router import ArgumentError, Router, UnknownTool

from . import jsonrpc
from .registry import tool_descriptors, wire

PROTOCOL_VERSION = "2025-06-18"
SERVER_NAME = "a207-router-mcp"

ReplyKind = Literal["ok", "accepted", "parse_error", "invalid_request"]


@dataclass(frozen=True, slots=True)
class Reply:
    kind: ReplyKind
    body: bytes | None
    method: str | None = None
    tool: str | None = None
    outcome: str = "ok"


def instructions(policy_version: str) -> str:
    return (
        "Deterministic intent router and safety gate of the a207 pediatric CKD nutrition assistant. "
        "Call route_request (or check_safety_gate) before any sub-agent touches a business MCP server, "
        "and obey its status: proceed, clarify, denied, review, confirm or halt. Rules run in a fixed order: "
        "P0 red flags (one happening to the patient now halts; one in another context — negated, past, "
        "hypothetical, someone else's — or a mild form of one happening now asks the user, then the text is "
        "resent with the concept ids in confirmed_red_flags on yes (it halts) or acknowledged_red_flags on "
        "no), input checks, MX-1 (staging and the clinical calculator are for "
        "doctor_assistant), MX-2 (gamification is the child companion's only), MX-3 (registered write "
        "tools and their callers; push_to_emr needs human confirmation), then the role x MCP permission "
        f"matrix. A model may propose; these rules decide. Policy version {policy_version}."
    )


def decision_outcome(reason_code: str) -> str:
    """A log category for a decision: allow, halt:P0, confirm:P0, deny:INPUT, deny:MX-1…3, deny:MATRIX.
    Never which red flag: a concept id is health data about the request (SPEC §5.5)."""
    if reason_code == "pass":
        return "allow"
    if reason_code == "p0_emergency":
        return "halt:P0"
    if reason_code == "p0_confirm_current":
        return "confirm:P0"
    prefix = reason_code.split("_", 1)[0]
    return {"mx1": "deny:MX-1", "mx2": "deny:MX-2", "mx3": "deny:MX-3", "matrix": "deny:MATRIX"}.get(prefix, "deny:INPUT")


def _outcome(tool: str, result: Any) -> str:
    if tool in ("check_safety_gate", "check_permission"):
        return decision_outcome(result.reason_code)
    if tool == "route_request":
        if result.status == "denied" and result.gate is not None and not result.gate.allow:
            return "denied:" + decision_outcome(result.reason_code).split(":", 1)[1]
        return {"halt": "halt:P0", "confirm": "confirm:P0"}.get(result.status, result.status)
    if tool == "classify_intent":
        return {"halt": "halt:P0", "llm": "fallback:llm"}.get(result.fallback or "", "ok")
    return "ok"


class McpServer:
    def __init__(self, router: Router):
        self.router = router
        init = types.InitializeResult(
            protocol_version=PROTOCOL_VERSION,
            capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
            server_info=types.Implementation(name=SERVER_NAME, version=__version__),
            instructions=instructions(router.policy_version),
        )
        # Constant answers are serialized once; a request only splices its id in.
        self._initialize = orjson.dumps(wire(init))
        self._tools = tool_descriptors()
        self._tools_list = orjson.dumps(wire(types.ListToolsResult(tools=self._tools)))
        self._tool_names = frozenset(t.name for t in self._tools)

    @property
    def tools(self) -> list[types.Tool]:
        return list(self._tools)

    def handle(self, body: bytes, roles: frozenset[str] | None = None) -> Reply:
        """``roles``: the caller roles the request's access token was issued for (SPEC §5.4a), or
        None when the request carried no role-scoped token; applied by every tool with a caller."""
        message = jsonrpc.parse(body)
        if isinstance(message, jsonrpc.FramingError):
            kind: ReplyKind = "parse_error" if message.code == jsonrpc.PARSE_ERROR else "invalid_request"
            return Reply(kind, jsonrpc.error(message.id, message.code, message.message), outcome=kind)
        if isinstance(message, jsonrpc.Notification):
            return Reply("accepted", None, method=_known(message.method), outcome="accepted")
        if isinstance(message, jsonrpc.ClientResponse):
            return Reply("accepted", None, outcome="accepted")
        return self._request(message, roles)

    def _request(self, request: jsonrpc.Request, roles: frozenset[str] | None) -> Reply:
        method, rid = request.method, request.id
        if method == "initialize":
            version = request.params.get("protocolVersion")
            outcome = "direct_success" if version == PROTOCOL_VERSION else "compatibility_success"
            return Reply("ok", jsonrpc.result(rid, self._initialize), method, outcome=outcome)
        if method == "ping":
            return Reply("ok", jsonrpc.result(rid, b"{}"), method)
        if method == "tools/list":
            return Reply("ok", jsonrpc.result(rid, self._tools_list), method)
        if method == "tools/call":
            return self._call(rid, request.params, roles)
        return Reply("ok", jsonrpc.error(rid, jsonrpc.METHOD_NOT_FOUND, "Method not found"), _known(method), outcome="method_not_found")

    def _call(self, rid: str | int, params: dict[str, Any], roles: frozenset[str] | None) -> Reply:
        name = params.get("name")
        if not isinstance(name, str) or name not in self._tool_names:
            return Reply("ok", jsonrpc.error(rid, jsonrpc.INVALID_PARAMS, "Unknown tool"), "tools/call", outcome="unknown_tool")
        try:
            result = self.router.call(name, params.get("arguments"), roles)
        except ArgumentError as exc:
            return Reply("ok", jsonrpc.result(rid, tool_error(exc.as_dict())), "tools/call", name, "invalid_argument")
        except UnknownTool:
            return Reply("ok", jsonrpc.error(rid, jsonrpc.INVALID_PARAMS, "Unknown tool"), "tools/call", outcome="unknown_tool")
        except Exception:  # a bug: answer without detail, keep serving; the HTTP layer logs the id
            error = {"error": {"code": "INTERNAL", "field": None, "message": "internal error; quote the request id"}}
            return Reply("ok", jsonrpc.result(rid, tool_error(error)), "tools/call", name, "internal")
        return Reply("ok", jsonrpc.result(rid, tool_result_json(result.model_dump_json().encode())), "tools/call", name, _outcome(name, result))


def _text_and_structured(structured: bytes, is_error: bool) -> bytes:
    """A CallToolResult around one serialization of the result: the same bytes are the
    structuredContent and, as a JSON string, the text content (so the two are equal when parsed)."""
    return (
        b'{"content":[{"type":"text","text":' + orjson.dumps(structured.decode()) + b'}],"structuredContent":'
        + structured + (b',"isError":true}' if is_error else b',"isError":false}')
    )


def tool_result_json(structured: bytes) -> bytes:
    return _text_and_structured(structured, False)


def tool_error(structured: dict[str, Any]) -> bytes:
    return _text_and_structured(orjson.dumps(structured), True)


_KNOWN_METHODS = frozenset(
    {"initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "notifications/cancelled"}
)


def _known(method: str) -> str:
    """Method names go to the log only when they are ours; anything else is a category."""
    return method if method in _KNOWN_METHODS else "other"
