"""Prometheus metrics of the real process (issue 4): on their own port, categories only, off by
default.

With ROUTER_METRICS_PORT set, a mix of requests (success, 401, 403, P0 halt, INVALID_ARGUMENT,
unknown tool, unknown method, a distinctive Chinese text) is counted exactly in
`a207_router_requests_total{method,tool,outcome,status}` and timed in
`a207_router_request_duration_seconds`, the decisions in `a207_router_decisions_total{tool,status,
reason_code}` and the policy in service in `a207_router_policy_info{policy_version}` (SPEC §5.5),
and the exposition contains none of the token, the argument texts, the header values, the red-flag
concept ids or the client's unknown names — every label value belongs to a fixed category set (for
the decisions, the router's own status and reason-code sets). Without the variable, the process
listens on the service port only and GET /metrics there is 404.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.protocol.server import DECISION_STATUSES, DECISION_TOOLS, REASON_CODES
from app.router import load_policy

from .server import HOST, free_port, get, listening_ports, new_token, post, start_server, tool_call

TOOLS = {"route_request", "check_safety_gate", "classify_intent", "check_permission", "extract_slots"}
METHODS = {"initialize", "ping", "tools/list", "tools/call", "notifications/initialized",
           "notifications/cancelled", "other", "none"}
OUTCOME = re.compile(r"[a-z_]+(:[A-Za-z0-9-]+)?")

# Canaries: distinctive values that must never reach the exposition.
ARG_VALUE = "CanaryArgValue-7f3a91"
ARG_FIELD = "canary_field_c0ffee"
LONG_TEXT_WORD = "CanaryLongText"
CHINESE = "麒麟紫禁城饺子九龙壁"
REQUEST_ID = "rid-canary-5d1e77"
USER_AGENT = "ua-canary-agent/9.9.1"
ORIGIN = "https://origin-canary.example"
UNKNOWN_TOOL = "canary_tool_b4d"
UNKNOWN_METHOD = "canary/method_e9"


def scrape(port: int) -> str:
    status, body = get(f"http://{HOST}:{port}/metrics")
    assert status == 200
    return body.decode("utf-8")


def samples(text: str, name: str) -> list:
    return [s for family in text_string_to_metric_families(text) for s in family.samples if s.name == name]


def decision_counts(text: str) -> Counter:
    return Counter({
        (s.labels["tool"], s.labels["status"], s.labels["reason_code"]): int(s.value)
        for s in samples(text, "a207_router_decisions_total")
    })


def request_counts(text: str) -> Counter:
    return Counter({
        (s.labels["method"], s.labels["tool"], s.labels["outcome"], s.labels["status"]): int(s.value)
        for s in samples(text, "a207_router_requests_total")
    })


@pytest.fixture
def metrics_server(tmp_path):
    server = start_server(tmp_path, metrics_port=free_port())
    try:
        yield server
    finally:
        server.stop()


def test_metrics_count_categories_and_leak_nothing(metrics_server):
    server = metrics_server
    token = server.token
    canary_headers = {"X-Request-ID": REQUEST_ID, "User-Agent": USER_AGENT}
    expected: Counter = Counter()

    def call(payload, *, token=token, headers=None) -> tuple[int, dict]:
        status, _, body = post(server.mcp, payload, token, headers={**canary_headers, **(headers or {})})
        return status, (json.loads(body) if body else {})

    status, _ = call({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}})
    assert status == 200
    expected["initialize", "none", "direct_success", "200"] += 1

    for i in range(3):
        status, body = call(tool_call(10 + i, "check_permission",
                                      {"caller": "doctor_assistant", "mcp": "a207-lis-mcp", "action": "read"}))
        assert status == 200 and body["result"]["structuredContent"]["allow"] is True
    expected["tools/call", "check_permission", "allow", "200"] += 3

    status, _ = call({"jsonrpc": "2.0", "id": 2, "method": "ping"}, token=new_token())  # a wrong token
    assert status == 401
    expected["none", "none", "unauthorized", "401"] += 1

    status, _ = call({"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers={"Origin": ORIGIN})
    assert status == 403
    expected["none", "none", "forbidden_origin", "403"] += 1

    status, body = call(tool_call(4, "check_safety_gate", {"intent": "孩子抽搐了，" + CHINESE, "caller": "parent_assistant"}))
    assert status == 200 and body["result"]["structuredContent"]["gate"] == "P0_EMERGENCY"
    expected["tools/call", "check_safety_gate", "halt:P0", "200"] += 1

    status, body = call(tool_call(5, "check_permission", {"caller": "doctor_assistant", "mcp": "a207-lis-mcp",
                                                          "action": "read", ARG_FIELD: ARG_VALUE}))
    assert status == 200 and body["result"]["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"
    expected["tools/call", "check_permission", "invalid_argument", "200"] += 1

    status, body = call(tool_call(6, "classify_intent", {"text": LONG_TEXT_WORD * 200}))  # over 2,000 chars
    assert status == 200 and body["result"]["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"
    expected["tools/call", "classify_intent", "invalid_argument", "200"] += 1

    status, body = call(tool_call(7, "route_request", {"text": f"请问{CHINESE}怎么吃", "caller": "nutritionist"}))
    assert status == 200
    route_status = body["result"]["structuredContent"]["status"]
    route_decision = ("route_request", route_status, body["result"]["structuredContent"]["reason_code"])
    route_outcome = {"halt": "halt:P0"}.get(route_status, route_status)
    if route_status == "denied":
        route_outcome = None  # "denied:<rule>": checked by prefix below
    else:
        expected["tools/call", "route_request", route_outcome, "200"] += 1

    status, body = call(tool_call(8, UNKNOWN_TOOL, {"text": ARG_VALUE}))
    assert status == 200 and body["error"]["code"] == -32602
    expected["tools/call", "none", "unknown_tool", "200"] += 1

    status, body = call({"jsonrpc": "2.0", "id": 9, "method": UNKNOWN_METHOD, "params": {"x": ARG_VALUE}})
    assert status == 200 and body["error"]["code"] == -32601
    expected["other", "none", "method_not_found", "200"] += 1

    total = sum(expected.values()) + (1 if route_outcome is None else 0)
    # Observations are recorded just after each response is sent: poll briefly for the last one.
    deadline = time.monotonic() + 5
    while True:
        text = scrape(server.metrics_port)
        counts = request_counts(text)
        if sum(counts.values()) >= total or time.monotonic() > deadline:
            break
        time.sleep(0.02)

    # ---- the counter: exactly what was sent, by category ----
    if route_outcome is None:
        denied = [k for k in counts if k[1] == "route_request"]
        assert len(denied) == 1 and denied[0][2].startswith("denied:"), counts
        expected[denied[0]] += 1
    assert counts == expected, f"\n{counts}\n!=\n{expected}"

    # ---- the histogram: one observation per request, cumulative buckets, +Inf == count ----
    by_method = Counter()
    for (method, _, _, _), n in expected.items():
        by_method[method] += n
    buckets = samples(text, "a207_router_request_duration_seconds_bucket")
    count = {s.labels["method"]: int(s.value) for s in samples(text, "a207_router_request_duration_seconds_count")}
    assert count == dict(by_method), count
    for method, n in by_method.items():
        series = sorted((float(s.labels["le"]), s.value) for s in buckets if s.labels["method"] == method)
        assert series[-1] == (float("inf"), n)
        values = [v for _, v in series]
        assert values == sorted(values), f"buckets of {method} are not cumulative"
        assert series[-2][1] >= 1, f"{method}: no request under 1 s?"
    sums = {s.labels["method"]: s.value for s in samples(text, "a207_router_request_duration_seconds_sum")}
    assert all(0 < v < 10 for v in sums.values()), sums

    # ---- the decisions: by tool, status and reason code; the policy in service ----
    assert decision_counts(text) == Counter({
        ("check_permission", "proceed", "pass"): 3,
        ("check_safety_gate", "halt", "p0_emergency"): 1,
        route_decision: 1,
    })
    (info,) = samples(text, "a207_router_policy_info")
    assert info.labels == {"policy_version": load_policy().policy_version} and info.value == 1

    # ---- nothing from the requests appears, and every label value is a category ----
    concepts = sorted(load_policy().red_flags.concept_ids)
    assert "seizure" in concepts
    forbidden = [token, ARG_VALUE, ARG_FIELD, LONG_TEXT_WORD, CHINESE, "麒麟", "抽搐", REQUEST_ID, USER_AGENT,
                 ORIGIN, "origin-canary", UNKNOWN_TOOL, UNKNOWN_METHOD, "Bearer", "doctor_assistant",
                 "parent_assistant", "nutritionist", "a207-lis-mcp", *concepts]
    for value in forbidden:
        assert value not in text, f"{value!r} leaked into the metrics exposition"
    assert text.isascii(), "non-ASCII text in the exposition"
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if sample.name.startswith("a207_router_decisions"):
                assert set(labels) == {"tool", "status", "reason_code"}, labels
                assert labels["tool"] in DECISION_TOOLS, labels
                assert labels["status"] in DECISION_STATUSES | {"other"}, labels
                assert labels["reason_code"] in REASON_CODES | {"other"}, labels
                continue
            if sample.name.startswith("a207_router_policy_info"):
                assert set(labels) == {"policy_version"} and re.fullmatch(r"[A-Za-z0-9._-]+\+[0-9a-f]{12}", labels["policy_version"])
                continue
            assert labels.get("method", "none") in METHODS, labels
            assert labels.get("tool", "none") in TOOLS | {"none"}, labels
            assert OUTCOME.fullmatch(labels.get("outcome", "ok")), labels
            assert re.fullmatch(r"\d{3}", labels.get("status", "200")), labels

    # The access log obeys the same rule (SPEC §5.5) — except the well-formed X-Request-ID, which
    # is the one client value it is meant to carry.
    log = server.log_text()
    for value in forbidden:
        if value != REQUEST_ID:
            assert value not in log, f"{value!r} leaked into the access log"
    # The readiness polls of start_server are logged too (every answer is), not metered: set aside.
    lines = [line for line in server.log_lines() if line.get("event") == "request" and line["outcome"] != "ready"]
    assert len(lines) == total and {line["request_id"] for line in lines} == {REQUEST_ID}

    # ---- the service port serves no metrics, the metrics port is loopback like the service ----
    assert get(f"{server.base}/metrics")[0] == 404
    assert listening_ports(server.proc.pid) == {(HOST, server.port), (HOST, server.metrics_port)}


def test_metrics_are_off_by_default(tmp_path):
    server = start_server(tmp_path)
    try:
        assert get(f"{server.base}/metrics")[0] == 404
        status, _, _ = post(server.mcp, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, server.token)
        assert status == 200
        # The process listens on the service port and nothing else.
        assert listening_ports(server.proc.pid) == {(HOST, server.port)}
    finally:
        server.stop()
