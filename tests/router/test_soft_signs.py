"""Soft signs ask, never pass; a confirmed concept halts (SPEC §4.7 "Soft signs ask", §4.1, §4.5,
§5.3 null lists). Each row both ways: the soft mention asks, the answer decides."""

from __future__ import annotations

import pytest

from app.protocol.registry import input_schema
from app.router import ArgumentError, Router
from app.router.engine import TOOLS
from .test_parent_vocabulary import assert_asked_in_one_turn

PARENT = "parent_assistant"

SOFT = [
    # id, text, the concept whose severity question is asked
    ("poor spirits", "孩子今天精神不好，能吃鸡蛋吗", "lethargy"),
    ("refuses formula is not unable to drink", "宝宝这两天不吃奶", "unable_to_drink"),
    ("a little breathless", "孩子有点喘", "respiratory_distress"),
    ("less urine", "孩子尿少，怎么办", "anuria"),
    ("vomits once after eating", "孩子吃了就吐", "vomits_everything"),
    ("hand cramp", "孩子透析后手抽筋", "hypocalcemic_tetany"),
    # the parents' mild forms the dev texts showed (issue 20, second pass): each alone asks
    ("no spirits alone asks", "孩子今天没精神", "lethargy"),
    ("sleepy alone asks", "孩子这两天很想睡", "lethargy"),
    ("soft all over alone asks", "孩子软绵绵的", "lethargy"),
    ("vomited it all once asks", "晚上吃的都吐掉了", "vomits_everything"),
    ("not drinking water alone asks", "孩子今天不喝水", "unable_to_drink"),
    ("cold hands and feet alone ask", "孩子手脚冰冷", "shock"),
    ("a lip a bit dry asks", "孩子嘴唇干", "dehydration"),
    ("blood in the stool as well asks", "便便干，拉的时候费劲，今天还带血", "gi_bleeding"),
    ("a small nosebleed asks", "孩子昨天开始稍有鼻血", "hemorrhage"),
    ("a nosebleed today asks", "孩子今天流鼻血了", "hemorrhage"),
    ("vomiting again asks", "昨晚8点又呕吐了", "vomits_everything"),
    ("severe vomiting asks", "呕吐严重需要吃药吗", "vomits_everything"),
    ("vomiting that got worse asks", "但是呕吐现象变得更厉害了", "vomits_everything"),
    ("vomits right after a spoonful asks", "勉强喂了几口粥马上就吐了", "vomits_everything"),
    ("not so keen on milk asks", "二宝然后不太爱吃奶", "unable_to_drink"),
    ("puffy eyes in the morning ask", "最近每天早上起床眼袋肿肿的", "severe_edema"),
    ("eyelids a bit swollen ask", "孩子眼睑有点肿", "severe_edema"),
    ("faint blood streaks ask", "大便里有点带不明显的血丝", "gi_bleeding"),
    ("coffee-coloured, no stool named, asks", "他拉的是，嗯，像咖啡色一样的，稀稀的", "gi_bleeding"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in SOFT], ids=[r[0] for r in SOFT])
def test_a_current_soft_mention_asks_its_severity_question(router: Router, policy, text, concept):
    asked = router.route_request(text, PARENT, "P0001")
    assert (asked.status, asked.reason_code) == ("confirm", "p0_confirm_severity")
    assert_asked_in_one_turn(policy, asked.severity_questions, concept)
    assert [f.soft for f in asked.red_flags if f.concept == concept] == [True]
    gate = router.check_safety_gate(text, PARENT)
    assert (gate.gate, gate.reason_code, gate.severity_questions) == (
        "P0_CONFIRM", "p0_confirm_severity", asked.severity_questions)
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
    ("poor spirits and sleepy together halt", "还没精神爱睡觉", "lethargy"),
    ("sleepy and no spirits together halt", "现在只想睡觉没有精神", "lethargy"),
    ("floppy in the arms halts", "一抱起来就软绵绵地趴在肩上", "lethargy"),
    ("sleeps all the time halts", "我女儿这几天特别能睡", "lethargy"),
    ("even water comes back up halts", "现在喝水、吃东西都会呕吐", "vomits_everything"),
    ("water and milk vomited halts", "中午喂的奶和水也吐了", "vomits_everything"),
    ("vomit out of mouth and nose halts", "今天有4回吐的时候从口鼻喷出来", "vomits_everything"),
    ("neither eats nor drinks halts", "嘴里溃烂，不吃不喝", "unable_to_drink"),
    ("feet badly swollen halts", "手脚肿的厉害", "severe_edema"),
    ("struggling to breathe halts", "感觉孩子憋的不行", "respiratory_distress"),
    ("lips a bit purple halts", "喉咙好像堵着，嘴唇有点紫", "cyanosis"),
    ("a weak cry halts", "刚才哼了两下，哭的劲儿也不大", "abnormal_cry"),
    ("projectile, misspelt, halts", "睡觉的时候像喷剃呕吐一样", "vomits_everything"),
]


NOT_A_SIGN = [
    # the look-alikes of the new strong forms: none of them is a red-flag mention at all
    ("a four-to-five-day range is no five-day fever", "孩子断断续续烧了四五天"),
    ("a medicine for five days is no fever count", "发烧去医院吊了头孢唑林钠3天"),
    ("spitting up milk after water is no vomiting everything", "喝了水也吐奶"),
    ("breasts soft after weaning", "断奶后胸部变的软绵绵的"),
    ("a cry that is loud", "哭的劲儿很大"),
    ("a nosebleed that stopped is negated", "没有流鼻血"),
    ("no vomiting is negated", "没有呕吐现象"),
    ("no blood streaks is negated", "今天查的大便里已经没有血丝了"),
]


@pytest.mark.parametrize("text", [r[1] for r in NOT_A_SIGN], ids=[r[0] for r in NOT_A_SIGN])
def test_the_look_alikes_of_strong_forms_do_not_halt(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status != "halt"


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
