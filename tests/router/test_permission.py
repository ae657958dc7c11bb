"""check_permission (SPEC §3.3, §3.4, §4.3).

The expected matrix is written here, independently of policy.toml, so a typo in either is caught.
"""

from __future__ import annotations

import pytest

from app.router import Router

MCPS = [
    "a207-his-mcp", "a207-lis-mcp", "a207-ckd-clinical-calc-mcp", "a207-nutrition-assessment-mcp",
    "a207-nutrition-calc-mcp", "a207-risk-rules-mcp", "a207-meal-plan-mcp", "a207-gamification-mcp",
    "a207-notify-mcp", "a207-report-mcp", "a207-knowledge-mcp", "a207-followup-mcp", "a207-router-mcp",
]
#                  M1     M2     M3   M4   M5   M6   M7   M8     M9     M10   M11  M12  M13
EXPECTED = {
    "dispatcher":       ["R",   "-",   "-", "-", "-", "-", "-", "-",   "-",   "-",  "R", "-", "R"],
    "doctor_assistant": ["R/W", "R/W", "R", "R", "R", "R", "R", "-",   "-",   "R",  "R", "R", "R"],
    "nutritionist":     ["RL",  "-",   "-", "R", "R", "-", "R", "-",   "-",   "R",  "R", "R", "R"],
    "parent_assistant": ["RL",  "RL",  "-", "-", "R", "-", "-", "-",   "-",   "RL", "R", "-", "R"],
    "child_companion":  ["-",   "-",   "-", "-", "-", "-", "-", "R/W", "-",   "-",  "R", "-", "R"],
    "risk_warning":     ["R",   "R",   "-", "-", "-", "R", "-", "-",   "R/W", "R",  "R", "R", "R"],
}
CELLS = [(role, mcp, row[i]) for role, row in EXPECTED.items() for i, mcp in enumerate(MCPS)]


def test_the_matrix_has_78_cells():
    assert len(CELLS) == 78


@pytest.mark.parametrize(("caller", "mcp", "cell"), CELLS, ids=[f"{r} × {m}" for r, m, _ in CELLS])
def test_read_cell(router: Router, caller, mcp, cell):
    result = router.check_permission(caller, mcp, "read")
    assert result.access == cell
    assert result.resolved_action == "read"
    assert result.allow is (cell != "-")
    assert result.limited_view is (cell == "RL")
    assert result.reason_code == ("pass" if cell != "-" else "matrix_no_access")


@pytest.mark.parametrize(("caller", "mcp", "cell"), CELLS, ids=[f"{r} × {m}" for r, m, _ in CELLS])
def test_generic_write_needs_a_w_cell(router: Router, caller, mcp, cell):
    result = router.check_permission(caller, mcp, "write")
    assert result.resolved_action == "write"
    assert result.allow is ("W" in cell)
    if not result.allow:
        assert result.reason_code == ("matrix_no_access" if cell == "-" else "matrix_write_not_allowed")
        assert result.requires_confirmation is False


WRITE_TOOLS = {
    # tool: (its MCP, allowed callers, requires confirmation)
    "upsert_lab_result": ("a207-lis-mcp", {"doctor_assistant"}, False),
    "upsert_food_diary": ("a207-nutrition-assessment-mcp", {"parent_assistant", "child_companion"}, False),
    "log_meal_checkin": ("a207-gamification-mcp", {"child_companion"}, False),
    "award_badge": ("a207-gamification-mcp", {"child_companion"}, False),
    "push_to_emr": ("a207-his-mcp", {"doctor_assistant"}, True),
    "notify_parent": ("a207-notify-mcp", {"risk_warning"}, False),
    "notify_doctor": ("a207-notify-mcp", {"risk_warning"}, False),
    "trigger_warning_event": ("a207-notify-mcp", {"risk_warning"}, False),
    "close_warning": ("a207-notify-mcp", {"risk_warning"}, False),
}
WRITE_CASES = [(tool, role) for tool in WRITE_TOOLS for role in EXPECTED]


@pytest.mark.parametrize(("tool", "caller"), WRITE_CASES, ids=[f"{t} by {r}" for t, r in WRITE_CASES])
def test_every_write_tool_for_every_role(router: Router, tool, caller):
    mcp, callers, confirm = WRITE_TOOLS[tool]
    result = router.check_permission(caller, mcp, tool)
    assert result.resolved_action == "write"
    assert result.write_tool == tool
    assert result.allow is (caller in callers)
    assert result.reason_code == ("pass" if caller in callers else "mx3_write_not_allowed")
    assert result.requires_confirmation is (confirm and caller in callers)


ROWS = [
    ("MX-3 beats the - cell: parent food diary", "parent_assistant", "a207-nutrition-assessment-mcp", "upsert_food_diary",
     {"allow": True, "access": "-", "reason_code": "pass"}),
    ("parent reads on M4 stay -", "parent_assistant", "a207-nutrition-assessment-mcp", "read",
     {"allow": False, "access": "-", "reason_code": "matrix_no_access"}),
    ("write tool on another MCP", "doctor_assistant", "a207-his-mcp", "upsert_lab_result",
     {"allow": False, "reason_code": "mx3_target_mismatch", "write_tool": "upsert_lab_result"}),
    ("unregistered write-looking name", "risk_warning", "a207-notify-mcp", "delete_warning",
     {"allow": False, "reason_code": "mx3_unregistered_write", "resolved_action": "write"}),
    ("every write prefix is recognized", "doctor_assistant", "a207-lis-mcp", "write_lab_note",
     {"allow": False, "reason_code": "mx3_unregistered_write"}),
    ("other tool names are reads", "doctor_assistant", "a207-lis-mcp", "get_lab_results",
     {"allow": True, "resolved_action": "read", "write_tool": None}),
    ("read tool on an RL cell is limited", "parent_assistant", "a207-lis-mcp", "get_lab_results",
     {"allow": True, "limited_view": True}),
    ("generic write on HIS needs confirmation", "doctor_assistant", "a207-his-mcp", "write",
     {"allow": True, "requires_confirmation": True}),
    ("unknown caller is a denial, not an error", "superuser", "a207-his-mcp", "read",
     {"allow": False, "access": None, "reason_code": "caller_unknown"}),
    ("unknown MCP is a denial, not an error", "doctor_assistant", "M1", "read",
     {"allow": False, "access": None, "reason_code": "target_unknown"}),
    ("zero-width inside a write tool name fails closed", "nutritionist", "a207-his-mcp", "push\u200b_to_emr",
     {"allow": False, "reason_code": "mx3_write_not_allowed", "resolved_action": "write"}),
    ("full-width write tool name fails closed", "nutritionist", "a207-his-mcp", "ｐｕｓｈ＿ｔｏ＿ｅｍｒ",
     {"allow": False, "reason_code": "mx3_write_not_allowed", "resolved_action": "write"}),
    ("upper-case write-looking name is still a write", "risk_warning", "a207-notify-mcp", "DELETE_WARNING",
     {"allow": False, "reason_code": "mx3_unregistered_write"}),
    ("notify family member by its risk warning", "risk_warning", "a207-notify-mcp", "notify_guardian",
     {"allow": True, "write_tool": "notify_guardian"}),
]


@pytest.mark.parametrize(("caller", "mcp", "action", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_permission_rows(router: Router, caller, mcp, action, expected):
    result = router.check_permission(caller, mcp, action)
    assert {k: getattr(result, k) for k in expected} == expected


def test_scope_cannot_be_widened_by_arguments(policy):
    scoped = Router(policy, scope=frozenset({"risk_warning"}))
    result = scoped.check_permission("doctor_assistant", "a207-his-mcp", "read")
    assert (result.allow, result.reason_code) == (False, "caller_out_of_scope")
