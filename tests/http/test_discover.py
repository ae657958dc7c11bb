"""``server/discover`` (SPEC §5.2, revision 3) and the decision counters' label sets (SPEC §5.5).

Discover is answered behind the same checks as every other method (Origin, bearer), with
``supportedVersions: ["2025-06-18"]`` and initialize's capabilities, identity and instructions in
the 2026-07-28 result shape, parsed by the official Python SDK's own model. The decision labels
come from the router's result models, so a status or reason code added there is a label value
without a change in the protocol layer, and anything else is counted as ``other``.
"""

from __future__ import annotations

import json
import secrets
from types import SimpleNamespace
from typing import get_args

import mcp_types
import pytest

from app.http.app import create_app
from app.protocol.server import DECISION_STATUSES, REASON_CODES, SERVER_INFO_META_KEY, decision
from app.router import Router, load_policy
from app.router.models import GateResult, PermissionResult, RouteResult
from tests.http.asgi import AppRunner

TOKEN = secrets.token_urlsafe(32).encode()
JSON = (b"content-type", b"application/json")
DISCOVER = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "client-canary-3f1", "version": "2.3.0"}}}}).encode()
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}).encode()


@pytest.fixture(scope="module")
def runner():
    runner = AppRunner(create_app(Router(load_policy()), [TOKEN]))
    yield runner
    runner.close()


def test_discover_answers_2025_06_18_in_the_2026_shape(runner):
    response = runner.request(headers=[(b"authorization", b"Bearer " + TOKEN), JSON], body=DISCOVER)
    assert response.status == 200
    message = response.json()
    assert message["id"] == 7 and "error" not in message
    result = message["result"]
    init = runner.request(headers=[(b"authorization", b"Bearer " + TOKEN), JSON], body=INITIALIZE).json()["result"]
    assert result["supportedVersions"] == ["2025-06-18"]
    assert result["capabilities"] == init["capabilities"] == {"tools": {"listChanged": False}}
    assert result["instructions"] == init["instructions"]
    assert result["_meta"][SERVER_INFO_META_KEY] == init["serverInfo"]
    assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", 0, "private")
    parsed = mcp_types.DiscoverResult.model_validate(result)  # the SDK's own model of the answer
    assert parsed.supported_versions == ["2025-06-18"]
    assert not set(parsed.supported_versions) & set(mcp_types.version.MODERN_PROTOCOL_VERSIONS)
    assert b"client-canary-3f1" not in response.body


@pytest.mark.parametrize("headers, status", [
    ([JSON], 401),
    ([(b"authorization", b"Bearer " + secrets.token_urlsafe(32).encode()), JSON], 401),
    ([(b"authorization", b"Bearer " + TOKEN), JSON, (b"origin", b"https://evil.example")], 403),
    ([(b"authorization", b"Bearer " + TOKEN), (b"content-type", b"text/plain")], 415),
], ids=["no token", "wrong token", "an Origin", "not JSON"])
def test_discover_passes_the_same_checks(runner, headers, status):
    response = runner.request(headers=headers, body=DISCOVER)
    assert response.status == status
    assert b"supportedVersions" not in response.body
    if status == 401:
        assert response.header("www-authenticate").startswith(b"Bearer")


def test_discover_is_logged_by_name_and_nothing_of_the_client(runner):
    from tests.privacy_plugin import captured

    before = len(captured())
    runner.request(headers=[(b"authorization", b"Bearer " + TOKEN), JSON], body=DISCOVER)
    (line,) = [json.loads(x) for x in captured()[before:] if '"request"' in x]
    assert (line["method"], line["outcome"], line["status"]) == ("server/discover", "ok", 200)
    assert "client-canary" not in json.dumps(line) and "2026-07-28" not in json.dumps(line)


# ---------------------------------------------------------------------------------------------
# Decision labels: the router's own closed sets
# ---------------------------------------------------------------------------------------------


def test_decision_labels_are_the_routers_own_sets():
    assert DECISION_STATUSES == set(get_args(RouteResult.model_fields["status"].annotation))
    codes = set()
    for model in (RouteResult, GateResult, PermissionResult):
        codes |= set(get_args(model.model_fields["reason_code"].annotation))
    assert REASON_CODES == codes
    assert {"p0_emergency", "p0_confirm_current", "p0_confirm_severity", "pass", "mx1_staging_delegate"} <= REASON_CODES


@pytest.mark.parametrize("tool, result, expected", [
    ("route_request", SimpleNamespace(status="halt", reason_code="p0_emergency"), ("halt", "p0_emergency")),
    ("route_request", SimpleNamespace(status="confirm", reason_code="p0_confirm_severity"), ("confirm", "p0_confirm_severity")),
    ("check_safety_gate", SimpleNamespace(gate="P0_EMERGENCY", allow=False, reason_code="p0_emergency"), ("halt", "p0_emergency")),
    ("check_safety_gate", SimpleNamespace(gate="P0_CONFIRM", allow=False, reason_code="p0_confirm_current"), ("confirm", "p0_confirm_current")),
    ("check_safety_gate", SimpleNamespace(gate="MX", allow=False, reason_code="mx1_staging_delegate"), ("denied", "mx1_staging_delegate")),
    ("check_safety_gate", SimpleNamespace(gate="PASS", allow=True, reason_code="pass"), ("proceed", "pass")),
    ("check_permission", SimpleNamespace(allow=False, reason_code="matrix_no_access"), ("denied", "matrix_no_access")),
    ("check_permission", SimpleNamespace(allow=True, reason_code="pass"), ("proceed", "pass")),
    # a value outside the sets (a text, a concept id) is never a label
    ("route_request", SimpleNamespace(status="孩子抽搐", reason_code="seizure"), ("other", "other")),
    ("classify_intent", SimpleNamespace(status="halt", reason_code="p0_emergency"), None),
    ("extract_slots", SimpleNamespace(), None),
], ids=lambda v: v if isinstance(v, str) else None)
def test_decision_labels_of_a_result(tool, result, expected):
    assert decision(tool, result) == expected


@pytest.mark.parametrize("code, outcome", [
    ("p0_emergency", "halt:P0"),
    ("p0_confirm_current", "confirm:P0"),
    ("p0_confirm_severity", "confirm:P0"),  # was logged deny:INPUT before the decision counters
    ("pass", "allow"),
    ("mx1_staging_delegate", "deny:MX-1"),
    ("matrix_no_access", "deny:MATRIX"),
    ("caller_unknown", "deny:INPUT"),
])
def test_every_p0_question_is_logged_as_confirm(code, outcome):
    from app.protocol.server import decision_outcome

    assert decision_outcome(code) == outcome
