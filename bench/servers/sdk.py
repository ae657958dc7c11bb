"""sdk: the official SDK's high-level server (mcp 2.3.0 ``MCPServer``) serving the same five router
functions as tools, over its streamable-HTTP app in stateless JSON mode.

The SDK validates the arguments with its own models (built from these signatures) and produces
``structuredContent`` from the return annotation (the router's result models), then text content.
Clients must send ``Accept: application/json, text/event-stream`` and, for the 2025 stateless path,
``MCP-Protocol-Version: 2025-06-18`` (a missing header takes the SDK's default version).

The tools are ``async def``: the SDK runs a plain ``def`` tool in a worker thread
(``anyio.to_thread.run_sync``), which would add a thread hop per call. The router functions never
block, so awaiting them inline is the SDK's fastest correct configuration.
"""

from __future__ import annotations

from _common import router as make_router, run

from mcp.server.mcpserver import MCPServer

from app.router.models import ClassifyResult, GateResult, PermissionResult, RouteResult, SlotsResult

ROUTER = make_router()
server = MCPServer("a207-router-mcp-sdk-bench", log_level="WARNING")


@server.tool()
async def route_request(text: str, caller: str, patient_id: str | None = None, reference_date: str | None = None) -> RouteResult:
    return ROUTER.route_request(text, caller, patient_id, reference_date)


@server.tool()
async def check_safety_gate(intent: str, caller: str, target_mcp: str = "") -> GateResult:
    return ROUTER.check_safety_gate(intent, caller, target_mcp)


@server.tool()
async def classify_intent(text: str) -> ClassifyResult:
    return ROUTER.classify_intent(text)


@server.tool()
async def check_permission(caller: str, mcp: str, action: str = "read") -> PermissionResult:
    return ROUTER.check_permission(caller, mcp, action)


@server.tool()
async def extract_slots(text: str, reference_date: str | None = None) -> SlotsResult:
    return ROUTER.extract_slots(text, reference_date)


app = server.streamable_http_app(stateless_http=True, json_response=True)

if __name__ == "__main__":
    run(app, __doc__)
