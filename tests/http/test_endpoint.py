"""POST /mcp's HTTP profile (SPEC §5.1–§5.3, §5.5–§5.6), in-process."""

from __future__ import annotations

import json

import mcp.types as types
import pytest

from tests.http.client import make_service

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def service(router):
    return make_service(router, max_body_bytes=1024)


def body(obj) -> bytes:
    return json.dumps(obj).encode()


# One row per step of §5.1's order, then rows proving the order itself.
STATUS_ROWS = [
    ("GET /mcp → 405", "GET", {}, None, True, 405),
    ("PUT /mcp → 405", "PUT", JSON, body(INIT), True, 405),
    ("PATCH /mcp → 405", "PATCH", JSON, body(INIT), True, 405),
    ("DELETE /mcp → 405", "DELETE", {}, None, True, 405),
    ("1 Origin → 403", "POST", {**JSON, "Origin": "https://evil.example"}, body(INIT), True, 403),
    ("1 Origin null → 403", "POST", {**JSON, "Origin": "null"}, body(INIT), True, 403),
    ("2 no bearer → 401", "POST", JSON, body(INIT), False, 401),
    ("2 wrong bearer → 401", "POST", {**JSON, "Authorization": "Bearer " + "x" * 43}, body(INIT), True, 401),
    ("2 Basic scheme → 401", "POST", {**JSON, "Authorization": "Basic dXNlcjpwYXNz"}, body(INIT), True, 401),
    ("3 text/plain → 415", "POST", {"Content-Type": "text/plain"}, body(INIT), True, 415),
    ("3 missing Content-Type → 415", "POST", {}, body(INIT), True, 415),
    ("3 charset parameter allowed → 200", "POST", {"Content-Type": "application/json; charset=utf-8"}, body(INIT), True, 200),
    ("4 body over the limit → 413", "POST", JSON, b" " * 1025 + body(INIT), True, 413),
    ("5 not JSON → 400", "POST", JSON, b"{not json", True, 400),
    ("5 not UTF-8 → 400", "POST", JSON, b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', True, 400),
    ("5 batch → 400", "POST", JSON, body([INIT]), True, 400),
    ("5 not JSON-RPC 2.0 → 400", "POST", JSON, body({"jsonrpc": "1.0", "id": 1, "method": "ping"}), True, 400),
    ("5 id of a wrong type → 400", "POST", JSON, body({"jsonrpc": "2.0", "id": [1], "method": "ping"}), True, 400),
    ("6 notification → 202", "POST", JSON, body({"jsonrpc": "2.0", "method": "notifications/initialized"}), True, 202),
    ("6 client response → 202", "POST", JSON, body({"jsonrpc": "2.0", "id": 7, "result": {}}), True, 202),
    ("7 request → 200", "POST", JSON, body(INIT), True, 200),
    ("7 unknown method → 200 with -32601", "POST", JSON, body({"jsonrpc": "2.0", "id": 2, "method": "resources/list"}), True, 200),
    ("Accept is not a gate", "POST", {**JSON, "Accept": "text/event-stream"}, body(INIT), True, 200),
    ("order: bad Origin and no token → 403", "POST", {**JSON, "Origin": "https://evil.example"}, body(INIT), False, 403),
    ("order: no token and bad Content-Type → 401", "POST", {"Content-Type": "text/plain"}, body(INIT), False, 401),
    ("order: bad Content-Type and oversized body → 415", "POST", {"Content-Type": "text/plain"}, b" " * 5000, True, 415),
    ("order: oversized and not JSON → 413", "POST", JSON, b"x" * 5000, True, 413),
]


@pytest.mark.parametrize(("method", "headers", "payload", "auth", "status"), [r[1:] for r in STATUS_ROWS], ids=[r[0] for r in STATUS_ROWS])
def test_status_table(service, method, headers, payload, auth, status):
    response = service.request(method, headers=headers, body=payload, auth=auth)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-request-id"]
    if status == 405:
        assert response.headers["allow"] == "POST"
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")
    if status == 202:
        assert response.content == b""
    if status == 400:
        code = response.json()["error"]["code"]
        assert code in (-32700, -32600)
        assert code == (-32700 if b"{not" in payload or b"\xff" in payload else -32600)
    if status == 200 and "resources/list" in (payload or b"").decode("utf-8", "replace"):
        assert response.json()["error"]["code"] == -32601


def test_origin_allow_list(router):
    service = make_service(router, origins=frozenset({"https://console.example"}))
    ok = service.request("POST", headers={**JSON, "Origin": "https://console.example"}, body=body(INIT))
    other = service.request("POST", headers={**JSON, "Origin": "https://other.example"}, body=body(INIT))
    assert (ok.status_code, other.status_code) == (200, 403)


def test_previous_token_is_accepted_for_rotation(router):
    import secrets

    from app.http.app import create_app

    new, old = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    service = make_service(router)
    service.app = create_app(router, [new.encode(), old.encode()])
    for token in (new, old):
        assert service.request("POST", headers={**JSON, "Authorization": f"Bearer {token}"}, body=body(INIT)).status_code == 200


VERSIONS = [("2025-06-18", "direct_success"), ("2025-03-26", "compatibility_success"), ("2025-11-25", "compatibility_success"),
            ("2026-07-28", "compatibility_success"), ("2099-01-01", "compatibility_success"), ("", "compatibility_success"),
            (123, "compatibility_success"), (None, "compatibility_success")]


@pytest.mark.parametrize(("version", "outcome"), VERSIONS, ids=[repr(v) for v, _ in VERSIONS])
def test_initialize_always_answers_2025_06_18(service, version, outcome):
    response = service.rpc("initialize", {"protocolVersion": version, "capabilities": {}})
    result = response.json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "a207-router-mcp"
    line = service.access_log()[-1]
    assert line["outcome"] == outcome
    # The client's version is never logged. The request id (random hex) and the duration are the
    # server's own numbers and may spell "123" by chance (CI once logged duration_ms 0.123).
    client_side = {key: value for key, value in line.items() if key not in ("request_id", "duration_ms")}
    assert str(version) not in json.dumps(client_side) or version in ("", None)


@pytest.mark.parametrize("params", [{}, None, {"capabilities": {}}], ids=["version missing", "params missing", "capabilities only"])
def test_initialize_without_a_version(service, params):
    response = service.rpc("initialize", params)
    assert response.json()["result"]["protocolVersion"] == "2025-06-18"
    assert service.access_log()[-1]["outcome"] == "compatibility_success"


def test_initialize_result_is_a_valid_2025_06_18_shape(service, router):
    result = service.rpc("initialize", INIT["params"]).json()["result"]
    types.InitializeResult.model_validate(result)
    assert set(result) == {"protocolVersion", "capabilities", "serverInfo", "instructions"}
    assert router.policy_version in result["instructions"]


@pytest.mark.parametrize("method", ["initialize", "ping", "tools/list", "tools/call"])
def test_a_bogus_protocol_version_header_changes_nothing(service, method):
    params = {"name": "check_permission", "arguments": {"caller": "doctor_assistant", "mcp": "a207-lis-mcp"}} if method == "tools/call" else {}
    plain = service.rpc(method, params).json()
    bogus = service.rpc(method, params, headers={"MCP-Protocol-Version": "1999-01-01"}).json()
    assert plain == bogus


def test_ping(service):
    assert service.rpc("ping").json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_request_ids(service):
    mine = service.request("POST", headers={**JSON, "X-Request-ID": "trace-42.a_b"}, body=body(INIT))
    assert mine.headers["x-request-id"] == "trace-42.a_b"
    for bad in ("has space", "x" * 65, "ünï"):
        response = service.request("POST", headers=[("Content-Type", "application/json"), ("X-Request-ID", bad.encode("utf-8"))], body=body(INIT))
        assert response.headers["x-request-id"] != bad
        assert len(response.headers["x-request-id"]) == 32
    assert {line["request_id"] for line in service.access_log()} >= {"trace-42.a_b"}


def test_health_and_ready(service, router):
    assert service.request("GET", "/health", auth=False).json() == {"status": "ok"}
    ready = service.request("GET", "/ready", auth=False)
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "policy_version": router.policy_version}


def test_ready_is_503_outside_the_lifespan(router):
    import asyncio

    import httpx2

    service = make_service(router)

    async def probe():
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=service.app), base_url="http://t") as client:
            return (await client.get("/ready")).status_code

    assert asyncio.run(probe()) == 503


def test_a_bug_in_the_endpoint_is_a_json_500_and_the_service_keeps_serving(router, monkeypatch):
    from app.protocol.server import McpServer

    service = make_service(router)

    def boom(self, body):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(McpServer, "handle", boom)
    response = service.request("POST", headers=JSON, body=body(INIT))
    assert response.status_code == 500
    assert response.json()["error"] == "internal" and "secret" not in response.text
    assert service.access_log()[-1]["outcome"] == "internal"
    monkeypatch.undo()
    assert service.request("POST", headers=JSON, body=body(INIT)).status_code == 200
