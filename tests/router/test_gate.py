"""check_safety_gate (SPEC §4.1): one row per case; every gate row denies once and passes once.

Order: P0 → INPUT → MX-1 → MX-2 → MX-3 → permission matrix → PASS.
"""

from __future__ import annotations

import pytest

from app.router import Router
from app.router.models import GateResult

HIS, LIS, CALC, ASSESS, NCALC = "a207-his-mcp", "a207-lis-mcp", "a207-ckd-clinical-calc-mcp", "a207-nutrition-assessment-mcp", "a207-nutrition-calc-mcp"
RISK, MEAL, GAME, NOTIFY, REPORT = "a207-risk-rules-mcp", "a207-meal-plan-mcp", "a207-gamification-mcp", "a207-notify-mcp", "a207-report-mcp"
KNOW, FOLLOW, ROUTER = "a207-knowledge-mcp", "a207-followup-mcp", "a207-router-mcp"

DENY_P0 = {"allow": False, "gate": "P0_EMERGENCY", "reason_code": "p0_emergency", "applied_rule": "none"}
CONFIRM_P0 = {"allow": False, "gate": "P0_CONFIRM", "reason_code": "p0_confirm_current", "applied_rule": "none"}


def deny(gate: str, code: str, rule: str = "none", **more) -> dict:
    return {"allow": False, "gate": gate, "reason_code": code, "applied_rule": rule, "requires_confirmation": False, **more}


def allow(rule: str = "none", **more) -> dict:
    return {"allow": True, "gate": "PASS", "reason_code": "pass", "applied_rule": rule, **more}


CASES = [
    # --- P0 ------------------------------------------------------------------------------
    ("P0 convulsion halts any caller", "孩子突然抽搐了怎么办", "parent_assistant", "", DENY_P0),
    ("P0 halts even with a permitted target", "孩子昏迷叫不醒", "doctor_assistant", LIS, DENY_P0),
    ("P0 negated red flag asks", "孩子没有抽搐", "doctor_assistant", "", CONFIRM_P0),
    ("P0 past red flag asks even an unknown caller", "孩子以前抽搐过", "hacker", "", CONFIRM_P0),
    ("P0 acknowledged past red flag passes on to the gates", "孩子以前抽搐过，现在能吃香蕉吗", "parent_assistant", "", allow(resolved_intent="nutrition_calc"), ("seizure",)),
    ("P0 acknowledgement never lifts a current red flag", "孩子现在抽搐", "parent_assistant", "", DENY_P0, ("seizure",)),
    ("P0 acknowledging another concept still asks", "孩子以前抽搐过", "parent_assistant", "", CONFIRM_P0, ("anuria",)),
    ("P0 potassium critical value", "血钾6.8要紧吗", "risk_warning", "", DENY_P0),
    ("P0 not hit by high-potassium foods", "高钾食物有哪些", "parent_assistant", "", allow(resolved_intent="nutrition_calc")),
    ("P0 beats INPUT for an unknown caller", "孩子惊厥了", "hacker", "", DENY_P0),
    ("P0 beats INPUT for an unknown target", "一天没尿了", "doctor_assistant", "a207-unknown-mcp", DENY_P0),
    # --- INPUT ---------------------------------------------------------------------------
    ("INPUT unknown caller", "查一下化验单", "admin", "", deny("INPUT", "caller_unknown")),
    ("INPUT caller names are exact", "查一下化验单", "Doctor_Assistant", "", deny("INPUT", "caller_unknown")),
    ("INPUT unregistered target", "查一下化验单", "doctor_assistant", "a207-lab-mcp", deny("INPUT", "target_unknown")),
    ("INPUT M-ids are not registry names", "查一下化验单", "doctor_assistant", "M2", deny("INPUT", "target_unknown")),
    ("INPUT empty intent", "", "doctor_assistant", LIS, deny("INPUT", "empty_intent")),
    ("INPUT intent of invisible characters only", "\u200b\u200d", "doctor_assistant", LIS, deny("INPUT", "empty_intent")),
    ("INPUT nothing resolves", "今天天气不错", "doctor_assistant", "", deny("INPUT", "target_unresolved")),
    ("INPUT passes with a target and free text", "今天天气不错", "doctor_assistant", KNOW, allow()),
    # --- MX-1 ----------------------------------------------------------------------------
    ("MX-1 parent asks stage", "孩子现在CKD几期了", "parent_assistant", "", deny("MX", "mx1_staging_delegate", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 nutritionist asks eGFR", "帮我看看eGFR", "nutritionist", "", deny("MX", "mx1_staging_delegate", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 staging words spaced out", "孩子是 几 期", "parent_assistant", "", deny("MX", "mx1_staging_delegate", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 staging text even toward the knowledge base", "什么是PEW", "nutritionist", KNOW, deny("MX", "mx1_staging_delegate", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 calculator closed to risk warning", "算一下GFR", "risk_warning", "", deny("MX", "mx1_calc_doctor_only", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 calculator closed to dispatcher by target", "算一下", "dispatcher", CALC, deny("MX", "mx1_calc_doctor_only", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 beats MX-2 for child_companion asking about staging", "我是几期呀", "child_companion", "", deny("MX", "mx1_calc_doctor_only", "MX-1", delegate_to="doctor_assistant")),
    ("MX-1 passes the doctor on staging", "患儿CKD几期，eGFR多少", "doctor_assistant", "", allow(resolved_intent="clinical_staging", resolved_mcp=CALC)),
    # --- MX-2 ----------------------------------------------------------------------------
    ("MX-2 gamification is the child's only", "看看孩子的勋章", "parent_assistant", "", deny("MX", "mx2_gamification_child_only", "MX-2")),
    ("MX-2 doctor toward gamification target", "查一下", "doctor_assistant", GAME, deny("MX", "mx2_gamification_child_only", "MX-2")),
    ("MX-2 beats MX-3 for award_badge by a doctor", "award_badge", "doctor_assistant", "", deny("MX", "mx2_gamification_child_only", "MX-2", write_tool="award_badge")),
    ("MX-2 child kept off HIS", "看看我的病历", "child_companion", "", deny("MX", "mx2_child_restricted", "MX-2")),
    ("MX-2 child kept off nutrition calc", "香蕉含钾多少", "child_companion", "", deny("MX", "mx2_child_restricted", "MX-2")),
    ("MX-2 child kept off notify by target", "你好", "child_companion", NOTIFY, deny("MX", "mx2_child_restricted", "MX-2")),
    ("MX-2 passes the child on badges", "我的勋章有几个", "child_companion", "", allow(resolved_mcp=GAME)),
    ("MX-2 passes the child on the knowledge base", "为什么要少吃盐", "child_companion", "", allow(resolved_mcp=KNOW)),
    # --- MX-3 ----------------------------------------------------------------------------
    ("MX-3 lab upload by a parent", "upsert_lab_result", "parent_assistant", "", deny("MX", "mx3_write_not_allowed", "MX-3", write_tool="upsert_lab_result")),
    ("MX-3 Chinese alias cannot slip past", "帮我把这次结果写回病历", "nutritionist", "", deny("MX", "mx3_write_not_allowed", "MX-3", write_tool="push_to_emr")),
    ("MX-3 notify alias names the concrete tool", "通知家长来复查", "doctor_assistant", "", deny("MX", "mx3_write_not_allowed", "MX-3", write_tool="notify_parent")),
    ("MX-3 write tool on another MCP", "upsert_lab_result", "doctor_assistant", HIS, deny("MX", "mx3_target_mismatch", "MX-3", write_tool="upsert_lab_result")),
    ("MX-3 unregistered write-looking tool", "delete_patient_record", "doctor_assistant", "", deny("MX", "mx3_unregistered_write", "MX-3", write_tool="delete_patient_record")),
    ("MX-3 unregistered write with a target", "update_meal_plan", "nutritionist", MEAL, deny("MX", "mx3_unregistered_write", "MX-3", write_tool="update_meal_plan")),
    ("MX-3 allows the doctor's lab upload", "upsert_lab_result", "doctor_assistant", LIS, allow("MX-3", write_tool="upsert_lab_result", requires_confirmation=False, resolved_mcp=LIS)),
    ("MX-3 push_to_emr needs confirmation", "push_to_emr", "doctor_assistant", "", allow("MX-3", write_tool="push_to_emr", requires_confirmation=True, resolved_mcp=HIS)),
    ("MX-3 alias 写回病历 by the doctor needs confirmation", "把化验结果写回病历", "doctor_assistant", "", allow("MX-3", write_tool="push_to_emr", requires_confirmation=True)),
    ("MX-3 write allowance beats the - cell for parent_assistant + upsert_food_diary", "upsert_food_diary", "parent_assistant", ASSESS, allow("MX-3", write_tool="upsert_food_diary", limited_view=False)),
    ("MX-3 child's meal check-in", "吃饭打卡", "child_companion", "", allow("MX-3", write_tool="log_meal_checkin", resolved_mcp=GAME)),
    ("MX-3 risk warning notifies the doctor", "notify_doctor", "risk_warning", NOTIFY, allow("MX-3", write_tool="notify_doctor")),
    ("MX-3 bare 发通知 is the notify family", "发通知", "risk_warning", "", allow("MX-3", write_tool="notify_*")),
    ("MX-3 risk warning closes a warning", "关闭预警", "risk_warning", "", allow("MX-3", write_tool="close_warning")),
    # --- permission matrix -----------------------------------------------------------------
    ("MATRIX dispatcher has no LIS access", "查一下化验单", "dispatcher", "", deny("PERMISSION_MATRIX", "matrix_no_access")),
    ("MATRIX parent has no meal-plan access", "帮我排一周食谱", "parent_assistant", "", deny("PERMISSION_MATRIX", "matrix_no_access")),
    ("MATRIX nutritionist has no risk access", "风险评估一下", "nutritionist", "", deny("PERMISSION_MATRIX", "matrix_no_access")),
    ("MATRIX RL cell passes with a limited view", "看看孩子的化验单", "parent_assistant", "", allow(limited_view=True, resolved_mcp=LIS)),
    ("MATRIX R cell passes with a full view", "看看化验结果", "doctor_assistant", "", allow(limited_view=False)),
    ("MATRIX intent name resolves to its MCP", "lab_result", "risk_warning", "", allow(resolved_intent="lab_result", resolved_mcp=LIS)),
    ("MATRIX target_mcp decides the cell", "lab_result", "nutritionist", REPORT, allow(resolved_mcp=LIS)),
]


@pytest.mark.parametrize(("intent", "caller", "target", "expected", "acknowledged"), [(*c[1:5], c[5] if len(c) > 5 else ()) for c in CASES], ids=[c[0] for c in CASES])
def test_gate(router: Router, intent, caller, target, expected, acknowledged):
    result = router.check_safety_gate(intent, caller, target, list(acknowledged))
    GateResult.model_validate(result.model_dump())
    got = {key: getattr(result, key) for key in expected}
    assert got == expected
    if expected["gate"] == "MX" and expected["applied_rule"] == "MX-1":
        assert result.delegate_to == "doctor_assistant"
    if not result.allow:
        assert result.requires_confirmation is False
    assert result.policy_version == router.policy_version


GATE_ROWS = ("P0_EMERGENCY", "P0_CONFIRM", "INPUT", "MX-1", "MX-2", "MX-3", "PERMISSION_MATRIX")


def test_every_gate_row_denies_once_and_passes_once():
    def row(case):
        expected = case[4]
        name = case[0].split()[0]
        if name == "P0":
            # a P0 row passes when the text with a red flag goes on to the other gates
            gate = expected["gate"] if not expected["allow"] else ("P0_CONFIRM" if "acknowledged" in case[0] else "P0_EMERGENCY")
            return gate, expected["allow"]
        return {"MATRIX": "PERMISSION_MATRIX"}.get(name, name), expected["allow"]

    seen = {row(case) for case in CASES}
    for gate in GATE_ROWS:
        assert (gate, False) in seen, f"{gate} has no denying row"
        assert (gate, True) in seen, f"{gate} has no passing row"


def test_scope_denies_at_input(policy):
    scoped = Router(policy, scope=frozenset({"doctor_assistant"}))
    assert scoped.check_safety_gate("查一下化验单", "parent_assistant").reason_code == "caller_out_of_scope"
    assert scoped.check_safety_gate("查一下化验单", "doctor_assistant").allow
    # P0 still comes first, whoever calls.
    assert scoped.check_safety_gate("孩子抽搐", "parent_assistant").gate == "P0_EMERGENCY"


def test_write_tool_resolution_reports_its_own_mcp(router: Router):
    result = router.check_safety_gate("upsert_lab_result", "doctor_assistant", "a207-his-mcp")
    assert (result.resolved_mcp, result.write_tool) == ("a207-lis-mcp", "upsert_lab_result")
