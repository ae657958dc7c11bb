"""``python -m app probe URL``: the acceptance order an agent platform runs, one line per step.

initialize → notifications/initialized (202) → tools/list (the five tools) → one tools/call.
The token comes from ROUTER_MCP_AUTH_TOKEN (environment only, never an argument: it would land in
shell history). Exits non-zero on the first failing step.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.error
import urllib.request

EXPECTED_TOOLS = {"route_request", "check_safety_gate", "classify_intent", "check_permission", "extract_slots"}


class StepFailed(Exception):
    pass


def _post(url: str, token: str, payload: dict, context: ssl.SSLContext | None, timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise StepFailed(f"cannot reach the server ({type(reason).__name__})") from None


def _json(body: bytes) -> dict:
    try:
        return json.loads(body)
    except ValueError:
        raise StepFailed("the answer is not JSON") from None


def probe(url: str, cacert: str | None = None, timeout: float = 10.0, out=None) -> int:
    out = out or sys.stdout
    token = os.environ.get("ROUTER_MCP_AUTH_TOKEN", "")
    if not token:
        print("FAIL setup: ROUTER_MCP_AUTH_TOKEN is not set", file=out)
        return 2
    context = ssl.create_default_context(cafile=cacert) if url.startswith("https://") else None

    def initialize() -> str:
        status, body = _post(url, token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "a207-probe", "version": "1"}}},
            context, timeout)
        if status != 200:
            raise StepFailed(f"HTTP {status}")
        version = _json(body).get("result", {}).get("protocolVersion")
        if version != "2025-06-18":
            raise StepFailed("protocolVersion is not 2025-06-18")
        return "protocolVersion 2025-06-18"

    def initialized() -> str:
        status, _ = _post(url, token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, context, timeout)
        if status != 202:
            raise StepFailed(f"HTTP {status}, expected 202")
        return "HTTP 202"

    def tools_list() -> str:
        status, body = _post(url, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, context, timeout)
        if status != 200:
            raise StepFailed(f"HTTP {status}")
        names = {t.get("name") for t in _json(body).get("result", {}).get("tools", [])}
        if names != EXPECTED_TOOLS:
            raise StepFailed(f"{len(names)} tools, expected the five router tools")
        return "5 tools"

    def tools_call() -> str:
        status, body = _post(url, token, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "check_permission", "arguments": {"caller": "doctor_assistant", "mcp": "a207-lis-mcp", "action": "read"}}},
            context, timeout)
        if status != 200:
            raise StepFailed(f"HTTP {status}")
        result = _json(body).get("result", {})
        structured = result.get("structuredContent") or {}
        if result.get("isError") or structured.get("allow") is not True:
            raise StepFailed("check_permission did not answer allow")
        return "check_permission allow"

    for name, step in (("initialize", initialize), ("notifications/initialized", initialized),
                       ("tools/list", tools_list), ("tools/call", tools_call)):
        try:
            detail = step()
        except StepFailed as exc:
            print(f"FAIL {name}: {exc}", file=out)
            return 1
        print(f"PASS {name}: {detail}", file=out)
    return 0
