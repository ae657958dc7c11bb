"""The SPEC's orders as tables: the gate's stages (SPEC §4.1) and route_request's steps (§4.5).

One row per stage or step, in order: its place in the table the code runs (``gate.GATE``,
``engine.ROUTE``), and a request that the step decides although a later step would decide it
otherwise — so a row fails when its step moves, whether the table or the code around it changes.
"""

from __future__ import annotations

import pytest

from app.router import Limits, Router
from app.router.engine import ROUTE
from app.router.gate import GATE

REF = "2026-11-30"
PAST_SEIZURE = "孩子以前有过高热惊厥，现在能吃香蕉吗"  # a red flag not happening now: asks

# (id, step, text, caller, session patient, acknowledged, lowest confidence, status, reason_code)
ROUTE_ROWS = [
    ("§4.5 1 halt: a current red flag halts, even for an unknown caller",
     "halt", "孩子刚才抽搐了两分钟", "nobody", "P0001", (), 0.6, "halt", "p0_emergency"),
    ("§4.5 2 caller: an unknown caller is denied before any question is asked",
     "caller_in_scope", PAST_SEIZURE, "nobody", "P0001", (), 0.6, "denied", "caller_unknown"),
    ("§4.5 3 ask: a red flag not happening now asks before the text is classified",
     "ask", "我爸昨天吐血了", "parent_assistant", "P0001", (), 0.6, "confirm", "p0_confirm_current"),
    ("§4.5 4 unknown intent: review before the gate",
     "unknown_intent", "今天天气真好", "dispatcher", None, (), 0.6, "review", "unknown_intent"),
    ("§4.5 5 low confidence: review before the gate",
     "low_confidence", "看看化验单", "dispatcher", "P0001", (), 0.8, "review", "low_confidence"),
    ("§4.5 6 gate: MX-1 delegates a parent's staging question before the slots are checked",
     "safety_gate", "孩子现在是CKD几期？", "parent_assistant", None, (), 0.6, "denied", "mx1_staging_delegate"),
    ("§4.5 7 patient: another patient named is denied before the slots are checked",
     "patient_in_context", "帮我查P0002的化验单", "parent_assistant", "P0001", (), 0.6, "denied", "patient_out_of_context"),
    ("§4.5 8 slots: a food question without a food clarifies",
     "required_slots", "这个东西含钾多少", "parent_assistant", "P0001", (), 0.6, "clarify", "missing_slot"),
    ("§4.5 9 proceed: the acknowledged past seizure no longer asks",
     "proceed", PAST_SEIZURE, "parent_assistant", "P0001", ("seizure",), 0.6, "proceed", "proceed"),
]


def test_every_route_step_has_its_row():
    assert [row[1] for row in ROUTE_ROWS] == [step.__name__ for step in ROUTE]


@pytest.mark.parametrize(
    "position, step, text, caller, patient, acknowledged, floor, status, reason_code",
    [pytest.param(i, *row[1:], id=row[0]) for i, row in enumerate(ROUTE_ROWS)],
)
def test_route_step(policy, position, step, text, caller, patient, acknowledged, floor, status, reason_code):
    assert ROUTE[position].__name__ == step
    router = Router(policy, Limits(min_confidence=floor))
    result = router.route_request(text, caller, patient, REF, acknowledged_red_flags=list(acknowledged))
    assert (result.status, result.reason_code) == (status, reason_code)


# (id, stage, intent, caller, target_mcp, gate, reason_code)
GATE_ROWS = [
    ("§4.1 P0 halt: a current red flag halts before INPUT reads the caller",
     "p0_halt", "孩子刚才抽搐了两分钟", "nobody", "", "P0_EMERGENCY", "p0_emergency"),
    ("§4.1 P0 ask: a red flag not happening now asks before INPUT reads the caller",
     "p0_ask", PAST_SEIZURE, "nobody", "", "P0_CONFIRM", "p0_confirm_current"),
    ("§4.1 INPUT: an unknown caller is denied before MX-1 reads the staging words",
     "input_checks", "孩子现在是CKD几期？", "nobody", "", "INPUT", "caller_unknown"),
    ("§4.1 INPUT: an empty intent is denied before the matrix is read",
     "input_intent", "   ", "dispatcher", "a207-lis-mcp", "INPUT", "empty_intent"),
    ("§4.1 MX-1: the calculator is the doctor's, before MX-2 restricts the child",
     "mx1", "算一下", "child_companion", "a207-ckd-clinical-calc-mcp", "MX", "mx1_calc_doctor_only"),
    ("§4.1 MX-2: the child stays off the lab MCP, before MX-3 reads the write",
     "mx2", "upsert_lab_result", "child_companion", "", "MX", "mx2_child_restricted"),
    ("§4.1 MX-3: a parent's food diary write passes though the matrix cell is -",
     "mx3", "upsert_food_diary", "parent_assistant", "", "PASS", "pass"),
    ("§4.1 matrix: the dispatcher has no access to the labs",
     "permission_matrix", "看看这次的化验结果", "dispatcher", "", "PERMISSION_MATRIX", "matrix_no_access"),
]


def test_every_gate_stage_has_its_row():
    assert [row[1] for row in GATE_ROWS] == [stage.__name__ for stage in GATE]


@pytest.mark.parametrize(
    "position, stage, intent, caller, target, gate, reason_code",
    [pytest.param(i, *row[1:], id=row[0]) for i, row in enumerate(GATE_ROWS)],
)
def test_gate_stage(router: Router, position, stage, intent, caller, target, gate, reason_code):
    assert GATE[position].__name__ == stage
    result = router.check_safety_gate(intent, caller, target)
    assert (result.gate, result.reason_code) == (gate, reason_code)
