"""The caller check of SPEC §4.5 / §5.4a: unknown, outside the server scope, or outside the access
token's role scopes → denied at INPUT, right after the halt and before anything else is decided;
the token's roles reach every tool that takes a caller, as data (never from the environment)."""

from __future__ import annotations

import pytest

from app.router import Router

REF = "2026-11-30"
PARENT_ONLY = frozenset({"parent_assistant"})

# (id, text, caller, server scope, token roles, expected status, expected reason_code)
ROUTE_ROWS = [
    ("unknown caller, text matching no intent: denied, not review", "你好呀", "nobody", None, None, "denied", "caller_unknown"),
    ("unknown caller, text matching an intent: denied", "帮我看看最近的化验结果", "nobody", None, None, "denied", "caller_unknown"),
    ("unknown caller, a past red flag: denied, not confirm", "孩子以前有过高热惊厥，现在能吃香蕉吗", "nobody", None, None,
     "denied", "caller_unknown"),
    ("unknown caller, a current red flag: halt first", "孩子刚才抽搐了两分钟", "nobody", None, None, "halt", "p0_emergency"),
    ("known caller, text matching no intent: still review", "你好呀", "parent_assistant", None, None, "review", "unknown_intent"),
    ("known caller, a past red flag: still confirm", "孩子以前有过高热惊厥，现在能吃香蕉吗", "parent_assistant", None, None,
     "confirm", "p0_confirm_current"),
    ("outside the server scope, no intent: denied", "你好呀", "parent_assistant", frozenset({"doctor_assistant"}), None,
     "denied", "caller_out_of_scope"),
    ("token issued for parent_assistant, asks as doctor_assistant: denied", "帮我看看最近的化验结果", "doctor_assistant", None,
     PARENT_ONLY, "denied", "caller_not_in_scope"),
    ("token issued for parent_assistant, no intent, as doctor_assistant: denied", "你好呀", "doctor_assistant", None,
     PARENT_ONLY, "denied", "caller_not_in_scope"),
    ("token with no role scope: every decision denied", "香蕉含钾多少？能不能吃", "parent_assistant", None, frozenset(),
     "denied", "caller_not_in_scope"),
    ("token issued for parent_assistant, asks as parent: proceeds", "香蕉含钾多少？能不能吃", "parent_assistant", None,
     PARENT_ONLY, "proceed", "proceed"),
    ("token role outside the server scope: the intersection denies", "香蕉含钾多少？能不能吃", "parent_assistant",
     frozenset({"doctor_assistant"}), PARENT_ONLY, "denied", "caller_out_of_scope"),
    ("token for the role, a current red flag: halt first", "孩子刚才抽搐了两分钟", "doctor_assistant", None, PARENT_ONLY,
     "halt", "p0_emergency"),
]


@pytest.mark.parametrize(("text", "caller", "scope", "roles", "status", "code"), [r[1:] for r in ROUTE_ROWS],
                         ids=[r[0] for r in ROUTE_ROWS])
def test_route_request_checks_the_caller_right_after_the_halt(policy, text, caller, scope, roles, status, code):
    router = Router(policy, scope=scope)
    result = router.route_request(text, caller, "P0001", REF, roles=roles)
    assert (result.status, result.reason_code) == (status, code)
    if status == "denied":
        assert result.gate is not None and result.gate.gate == "INPUT" and not result.gate.allow


@pytest.mark.parametrize(("tool", "arguments"), [
    ("route_request", {"text": "香蕉含钾多少？能不能吃", "caller": "doctor_assistant", "patient_id": "P0001", "reference_date": REF}),
    ("check_safety_gate", {"intent": "香蕉含钾多少？能不能吃", "caller": "doctor_assistant"}),
    ("check_permission", {"caller": "doctor_assistant", "mcp": "a207-nutrition-calc-mcp"}),
], ids=["route_request", "check_safety_gate", "check_permission"])
def test_every_tool_that_takes_a_caller_applies_the_token_roles(router: Router, tool, arguments):
    denied = router.call(tool, arguments, roles=PARENT_ONLY)
    assert denied.reason_code == "caller_not_in_scope"
    allowed = router.call(tool, {**arguments, "caller": "parent_assistant"}, roles=PARENT_ONLY)
    assert allowed.reason_code != "caller_not_in_scope"
    assert router.call(tool, arguments).reason_code != "caller_not_in_scope"  # no token roles: no such limit


def test_tools_without_a_caller_ignore_roles(router: Router):
    assert router.call("classify_intent", {"text": "香蕉含钾多少"}, roles=frozenset()).intent == "nutrition_calc"


def test_the_gate_keeps_its_own_order_p0_before_input(router: Router):
    assert router.check_safety_gate("孩子抽搐", "doctor_assistant", roles=PARENT_ONLY).gate == "P0_EMERGENCY"
