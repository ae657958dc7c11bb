"""Every kind of decision change (SPEC §3.0) has a row: one edit of the shipped policy, one text
or call that it changes, the kind the report files it under. The text is run alone, so the row
must be the only one and in exactly that group."""

from __future__ import annotations

import pytest

from app.policy_report import KINDS

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

SEIZURE_TERMS = '  "抽搐", "惊厥", "抽风",'
PAST_WORDS = '  "以前", "之前", "曾经",'
PSEUDO_WORDS = 'words = ["不停", "不断",'


def text(value: str) -> dict:
    return {"id": "t1", "text": value}


def call(tool: str, **arguments: str) -> dict:
    return {"id": "c1", "tool": tool, "arguments": arguments}


CASES = [
    ("halt_to_silent", "a seizure term removed: 孩子抽搐了 no longer stops",
     [(SEIZURE_TERMS, '  "惊厥", "抽风",')], text("孩子抽搐了")),
    ("halt_to_confirm", "a new past cue: 那阵子 makes the seizure historical",
     [(PAST_WORDS, '  "那阵子", "以前", "之前", "曾经",')], text("那阵子孩子抽搐了")),
    ("confirm_to_silent", "a seizure term removed: the negated mention is gone too",
     [(SEIZURE_TERMS, '  "惊厥", "抽风",')], text("孩子没有抽搐")),
    ("deny_to_allow", "matrix cell nutritionist × LIS opened",
     [('nutritionist     = { M1 = "RL",  M2 = "-", ', 'nutritionist     = { M1 = "RL",  M2 = "R", ')],
     call("check_permission", caller="nutritionist", mcp="a207-lis-mcp")),
    ("silent_to_halt", "a new seizure term 打摆子",
     [(SEIZURE_TERMS, '  "打摆子", "抽搐", "惊厥", "抽风",')], text("孩子打摆子了")),
    ("silent_to_confirm", "a new seizure term 打摆子, negated",
     [(SEIZURE_TERMS, '  "打摆子", "抽搐", "惊厥", "抽风",')], text("孩子没有打摆子")),
    ("confirm_to_halt", "a pseudo-negation 不算 hides the 不 of 不算休克",
     [(PSEUDO_WORDS, 'words = ["不算", "不停", "不断",')], text("应该不算休克")),
    ("allow_to_deny", "matrix cell parent_assistant × nutrition calc closed",
     [('parent_assistant = { M1 = "RL",  M2 = "RL",  M3 = "-", M4 = "-", M5 = "R",',
       'parent_assistant = { M1 = "RL",  M2 = "RL",  M3 = "-", M4 = "-", M5 = "-",')],
     call("check_permission", caller="parent_assistant", mcp="a207-nutrition-calc-mcp")),
    ("status", "knowledge now requires a food: proceed → clarify",
     [('"吃点什么药", "吃些什么药",\n]\nrequired_slots = []', '"吃点什么药", "吃些什么药",\n]\nrequired_slots = ["food"]')],
     text("肾病综合征是什么")),
    ("status", "the seizure concept renamed: acknowledging 'seizure' is now an argument error",
     [('id = "seizure"', 'id = "convulsion"'), ('answers_now = ["seizure",', 'answers_now = ["convulsion",')],
     {"id": "c1", "tool": "route_request",
      "arguments": {"text": "孩子没有抽搐", "caller": "parent_assistant", "acknowledged_red_flags": ["seizure"]}}),
    ("intent", "报表 moved from report to followup",
     [('"生成报告", "报表", "汇总"', '"生成报告", "汇总"'), ('"随访", "复诊",', '"报表", "随访", "复诊",')],
     call("classify_intent", text="帮我看看报表")),
    ("gate", "MX-1 delegates to risk_warning instead of doctor_assistant",
     [('delegate_to = "doctor_assistant"', 'delegate_to = "risk_warning"')],
     call("check_safety_gate", intent="孩子CKD几期了", caller="parent_assistant")),
    ("red_flags", "口吐白沫 moved from seizure to altered_consciousness",
     [('"抽风", "口吐白沫", "吐白沫"', '"抽风", "吐白沫"'), ('  "昏迷", "意识不清",', '  "口吐白沫", "昏迷", "意识不清",')],
     text("孩子口吐白沫")),
    ("slots", "a new food 山竹",
     [('"蜂蜜", "桔子", "丑桔",', '"蜂蜜", "桔子", "丑桔", "山竹",')],
     call("extract_slots", text="孩子今天吃了山竹", reference_date="2026-11-30")),
    ("other", "report is now allowed to the nutritionist only: classify_intent's allowed_callers",
     [('name = "report"\nmcp = "M10"\npriority = 4\nallowed_callers = ["doctor_assistant", "nutritionist", "parent_assistant", "risk_warning"]',
       'name = "report"\nmcp = "M10"\npriority = 4\nallowed_callers = ["nutritionist"]')],
     call("classify_intent", text="帮我生成报告")),
]


def test_every_kind_has_a_row():
    assert {kind for kind, *_ in CASES} == {k.id for k in KINDS}


@pytest.mark.parametrize("kind, why, edits, row", CASES, ids=[f"{k}: {why}" for k, why, *_ in CASES])
def test_change_kind(tmp_path, kind, why, edits, row):
    new = edited_policy(tmp_path, *edits)
    code, report = report_json(SHIPPED, new, corpus(tmp_path, [row]))
    assert code == 0
    rows = rows_of(report)
    assert [(r["kind"], r["id"]) for r in rows] == [(kind, row["id"])], rows
    assert report["data_changes"], "an edit that changes a decision is a data change"
    assert [s["kind"] for s in report["summary"] if s["rows"]] == [kind]


def test_safety_kinds_come_first():
    safety = [k.safety for k in KINDS]
    assert safety == sorted(safety, reverse=True) and any(safety)
