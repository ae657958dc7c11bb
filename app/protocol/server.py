"""MCP 2025-06-18 method dispatch over the router. No sockets, headers or environment.

``McpServer.handle(body)`` returns a ``Reply``: the kind of answer (the HTTP layer maps it to a
status code), the body bytes, and the categories the access log may carry — never arguments,
text or results.

``initialize`` always answers protocolVersion 2025-06-18, whatever the client sent (SPEC §5.2):
the version is metadata, never a gate. ``server/discover`` (the first request of MCP 2026-07-28
clients) answers, in that revision's result shape, that this server speaks 2025-06-18 only: the
official 2.x clients (Python ``mcp`` 2.3, ``@modelcontextprotocol/client`` 2.4) then fall back to
``initialize`` as they did on -32601, with the same number of requests.

One ``McpServer`` serves one policy and never changes: a policy reload (SPEC §5.8) builds a new one
and the HTTP layer swaps the reference, so a request runs wholly on the server it started with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import mcp_types as types  # the same objects as mcp.types, without importing the whole SDK
import orjson

from app import __version__
from app.router import ArgumentError, Router, UnknownTool
from app.router.models import GateResult, PermissionResult, RouteResult

from . import jsonrpc
from .registry import tool_descriptors, wire

PROTOCOL_VERSION = "2025-06-18"
SERVER_NAME = "a207-router-mcp"
# The key under which a 2026-07-28 result names its server (mcp_types.SERVER_INFO_META_KEY).
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

ReplyKind = Literal["ok", "accepted", "parse_error", "invalid_request"]

# Decision counters (SPEC §5.5): the label values are the router's own closed sets, read from its
# result models, so a reason code or status added there is counted without a change here.
DECISION_TOOLS = ("route_request", "check_safety_gate", "check_permission")
DECISION_STATUSES: frozenset[str] = frozenset(get_args(RouteResult.model_fields["status"].annotation))
REASON_CODES: frozenset[str] = frozenset(
    code for model in (RouteResult, GateResult, PermissionResult)
    for code in get_args(model.model_fields["reason_code"].annotation)
)


@dataclass(frozen=True, slots=True)
class Reply:
    kind: ReplyKind
    body: bytes | None
    method: str | None = None
    tool: str | None = None
    outcome: str = "ok"
    decision: tuple[str, str] | None = None  # (status, reason_code) of a decision tool's result


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
    if reason_code.startswith("p0_confirm"):
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


def decision(tool: str, result: Any) -> tuple[str, str] | None:
    """(status, reason_code) of a decision tool's result, in route_request's status vocabulary
    (a gate or permission pass is ``proceed``, a refusal ``denied``); None for the other tools.
    Anything outside the closed sets is counted as ``other``, never as itself."""
    if tool == "route_request":
        status = result.status
    elif tool == "check_safety_gate":
        status = {"P0_EMERGENCY": "halt", "P0_CONFIRM": "confirm"}.get(result.gate, "proceed" if result.allow else "denied")
    elif tool == "check_permission":
        status = "proceed" if result.allow else "denied"
    else:
        return None
    code = result.reason_code
    return (status if status in DECISION_STATUSES else "other", code if code in REASON_CODES else "other")


class McpServer:
    def __init__(self, router: Router, tools: list[types.Tool] | None = None):
        """``tools``: the descriptors of a previous server (they do not depend on the policy)."""
        self.router = router
        capabilities = types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False))
        identity = types.Implementation(name=SERVER_NAME, version=__version__)
        text = instructions(router.policy_version)
        init = types.InitializeResult(
            protocol_version=PROTOCOL_VERSION, capabilities=capabilities, server_info=identity, instructions=text,
        )
        # The 2026-07-28 shape (resultType, ttlMs, cacheScope, serverInfo in _meta), so it is dumped
        # whole; it lists 2025-06-18 only, which a 2026-07-28 client reads as "use initialize".
        discover = types.DiscoverResult(
            supported_versions=[PROTOCOL_VERSION], capabilities=capabilities, instructions=text,
            ttl_ms=0, cache_scope="private", _meta={SERVER_INFO_META_KEY: wire(identity)},
        )
        # Constant answers are serialized once; a request only splices its id in.
        self._initialize = orjson.dumps(wire(init))
        self._discover = orjson.dumps(discover.model_dump(by_alias=True, exclude_none=True, mode="json"))
        self._tools = tools if tools is not None else tool_descriptors()
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
        if method == "server/discover":
            return Reply("ok", jsonrpc.result(rid, self._discover), method)
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
        return Reply("ok", jsonrpc.result(rid, tool_result_json(result.model_dump_json().encode())), "tools/call", name,
                     _outcome(name, result), decision(name, result))


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
    {"initialize", "ping", "tools/list", "tools/call", "server/discover", "notifications/initialized",
     "notifications/cancelled"}
)


def _known(method: str) -> str:
    """Method names go to the log only when they are ours; anything else is a category."""
    return method if method in _KNOWN_METHODS else "other"
