"""Soft signs ask, never pass; a confirmed concept halts (SPEC §4.7 "Soft signs ask", §4.1, §4.5,
§5.3 null lists). Each row both ways: the soft mention asks, the answer decides."""

from __future__ import annotations

import pytest

from app.protocol.registry import input_schema
from app.router import ArgumentError, Router
from app.router.engine import TOOLS

PARENT = "parent_assistant"

SOFT = [
    # id, text, the concept whose severity question is asked
    ("poor spirits", "孩子今天精神不好，能吃鸡蛋吗", "lethargy"),
    ("refuses formula is not unable to drink", "宝宝这两天不吃奶", "unable_to_drink"),
    ("a little breathless", "孩子有点喘", "respiratory_distress"),
    ("less urine", "孩子尿少，怎么办", "anuria"),
    ("vomits once after eating", "孩子吃了就吐", "vomits_everything"),
    ("hand cramp", "孩子透析后手抽筋", "hypocalcemic_tetany"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in SOFT], ids=[r[0] for r in SOFT])
def test_a_current_soft_mention_asks_its_severity_question(router: Router, policy, text, concept):
    asked = router.route_request(text, PARENT, "P0001")
    assert (asked.status, asked.reason_code) == ("confirm", "p0_confirm_severity")
    assert [(q.concept, q.question) for q in asked.severity_questions] == [
        (concept, policy.red_flags.severity_questions[concept])
    ]
    assert [f.soft for f in asked.red_flags if f.concept == concept] == [True]
    gate = router.check_safety_gate(text, PARENT)
    assert (gate.gate, gate.reason_code, [q.concept for q in gate.severity_questions]) == (
        "P0_CONFIRM", "p0_confirm_severity", [concept])
    # yes → halt, in route_request and in the gate
    yes = router.route_request(text, PARENT, "P0001", confirmed_red_flags=[concept])
    assert (yes.status, yes.reason_code, yes.severity_questions) == ("halt", "p0_emergency", [])
    assert router.check_safety_gate(text, PARENT, confirmed_red_flags=[concept]).gate == "P0_EMERGENCY"
    # no → it no longer asks (never halts)
    no = router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[concept])
    assert no.status not in ("halt", "confirm")
    assert router.check_safety_gate(text, PARENT, acknowledged_red_flags=[concept]).gate not in ("P0_EMERGENCY", "P0_CONFIRM")


HARD = [
    ("strong form: very poor spirits halts", "孩子精神很差", "lethargy"),
    ("strong form: wheezing badly halts", "孩子喘得厉害", "respiratory_distress"),
    ("strong form: vomits everything halts", "孩子吃什么吐什么", "vomits_everything"),
    ("strong form: no urine all day halts", "孩子一天没尿", "anuria"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in HARD], ids=[r[0] for r in HARD])
def test_the_strong_forms_stay_hard_and_halt(router: Router, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status == "halt" and [f.soft for f in result.red_flags if f.concept == concept] == [False]


CONFIRMED_ANY_CONTEXT = [
    ("a past mention, confirmed", "孩子以前抽搐过", "seizure"),
    ("a negated mention, confirmed", "孩子没有抽搐", "seizure"),
    ("another person's, confirmed", "我爸刚才抽搐了", "seizure"),
    ("a soft past mention, confirmed", "孩子上周精神不好", "lethargy"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in CONFIRMED_ANY_CONTEXT], ids=[r[0] for r in CONFIRMED_ANY_CONTEXT])
def test_a_confirmed_concept_halts_in_any_context(router: Router, text, concept):
    assert router.route_request(text, PARENT, "P0001").status == "confirm"
    assert router.route_request(text, PARENT, "P0001", confirmed_red_flags=[concept]).status == "halt"
    assert router.check_safety_gate(text, PARENT, confirmed_red_flags=[concept]).gate == "P0_EMERGENCY"


def test_a_confirmed_concept_not_in_the_text_changes_nothing(router: Router):
    assert router.route_request("孩子能吃香蕉吗", PARENT, "P0001", confirmed_red_flags=["seizure"]).status != "halt"


CONFIRMED_ERRORS = [
    ("unknown concept id", {"confirmed_red_flags": ["seizures"]}, "confirmed_red_flags", "must list known red-flag concept ids"),
    ("not an id", {"confirmed_red_flags": ["抽搐"]}, "confirmed_red_flags", "must list red-flag concept ids"),
    ("more than 32", {"confirmed_red_flags": ["seizure"] * 33}, "confirmed_red_flags", "must have at most 32 items"),
    ("both lists", {"confirmed_red_flags": ["seizure"], "acknowledged_red_flags": ["lethargy", "seizure"]},
     "confirmed_red_flags", "a concept may not be both acknowledged and confirmed"),
]


@pytest.mark.parametrize(("extra", "field", "message"), [r[1:] for r in CONFIRMED_ERRORS], ids=[r[0] for r in CONFIRMED_ERRORS])
def test_confirmed_red_flags_are_checked_without_echo(router: Router, extra, field, message):
    for tool, args in (("route_request", {"text": "孩子以前抽搐过", "caller": PARENT}),
                       ("check_safety_gate", {"intent": "孩子以前抽搐过", "caller": PARENT})):
        with pytest.raises(ArgumentError) as info:
            router.call(tool, {**args, **extra})
        assert info.value.field.startswith(field) and info.value.message == message
        assert "seizures" not in str(info.value) and "抽搐" not in str(info.value)


@pytest.mark.parametrize("tool", ["route_request", "check_safety_gate"])
def test_both_lists_advertise_an_empty_default_and_take_null_as_empty(router: Router, tool):
    properties = input_schema(TOOLS[tool].args)["properties"]
    for name in ("acknowledged_red_flags", "confirmed_red_flags"):
        assert properties[name]["default"] == [], name
        assert name not in input_schema(TOOLS[tool].args).get("required", [])
    key = "text" if tool == "route_request" else "intent"
    nulls = router.call(tool, {key: "孩子以前抽搐过", "caller": PARENT, "acknowledged_red_flags": None,
                               "confirmed_red_flags": None})
    empty = router.call(tool, {key: "孩子以前抽搐过", "caller": PARENT})
    assert nulls == empty
