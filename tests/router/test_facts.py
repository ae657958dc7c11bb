"""Patient facts (SPEC §4.5 revision 3): the session's facts feed the danger rules, both ways.

Our own sentences. Each fact × concept row is run three ways: with the fact it halts and names the
fact in ``red_flags[].fact``; without facts it does not halt; with the fact but the event past,
negated or another person's it does not halt either (it asks: a red flag never passes unasked).
Then every bad value of the argument, null and {}, and the rules around the facts: they never lower
a decision, text never changes them, the result echoes none of them.
"""

from __future__ import annotations

import json

import pytest

from app.router import ArgumentError, Router
from app.router.facts import PatientFacts, as_facts

PARENT = "parent_assistant"
INFANT = {"age_years": 0.1}
TRANSPLANT = {"kidney_therapy": "transplant"}
PD = {"kidney_therapy": "pd"}
HD = {"kidney_therapy": "hd"}
NEPHROTIC = {"nephrotic": True}

# (id, facts, concept, fact key, the text now, [the same event past / negated / another person's])
ROWS = [
    ("infant fever word", INFANT, "infant_fever", "age_years", "孩子今天发烧了，还能喂奶吗",
     ["孩子以前发烧过，现在能喂奶吗", "孩子没有发烧，能喂奶吗", "我同事的孩子发烧了，我家孩子还能喂奶吗"]),
    ("infant fever reading", INFANT, "infant_fever", "age_years", "宝宝刚才量体温38.5度",
     ["宝宝上个月量体温38.5度，现在能打疫苗吗", "我姐姐家的孩子刚才量体温38.5度"]),
    ("infant fever said hot", INFANT, "infant_fever", "age_years", "宝宝身上摸着很烫",
     ["宝宝身上没有很烫", "邻居家的宝宝身上摸着很烫"]),
    ("transplant fever word", TRANSPLANT, "transplant_alert", "kidney_therapy", "孩子今天发烧了，吃什么好",
     ["孩子以前发烧过，现在吃什么好", "孩子没有发烧，吃什么好", "我朋友的孩子发烧了，我家孩子吃什么好"]),
    ("transplant fever reading", TRANSPLANT, "transplant_alert", "kidney_therapy", "孩子今天烧到38.6",
     ["孩子去年烧到38.6，现在能吃橙子吗", "我同事的孩子今天烧到38.6"]),
    ("transplant urine falling", TRANSPLANT, "transplant_alert", "kidney_therapy", "孩子这两天尿量减少",
     ["孩子上个月尿量减少过，现在能吃西瓜吗", "孩子尿量没有减少，能吃西瓜吗", "我同事的孩子尿量减少了"]),
    ("transplant graft pain", TRANSPLANT, "transplant_alert", "kidney_therapy", "孩子今天说右下腹疼",
     ["孩子以前右下腹疼过，现在能吃西瓜吗", "孩子没有右下腹疼，能吃西瓜吗", "我邻居家的孩子右下腹疼"]),
    ("pd belly pain", PD, "pd_peritonitis", "kidney_therapy", "孩子今天肚子疼，能吃香蕉吗",
     ["孩子以前肚子疼过，现在能吃香蕉吗", "孩子没有肚子疼，能吃香蕉吗", "我同事的孩子肚子疼，我家孩子能吃香蕉吗"]),
    ("pd fever", PD, "pd_peritonitis", "kidney_therapy", "孩子刚才发烧了",
     ["孩子上周发烧过，现在好了", "孩子没发烧，精神挺好", "表哥家的孩子刚才发烧了"]),
    ("hd chills after a session", HD, "dialysis_access", "kidney_therapy", "孩子下机后回到家里一直打寒战",
     ["孩子上个月下机后回到家里打寒战过", "孩子下机后回到家里没有打寒战", "同病房的叔叔下机后回到家里一直打寒战"]),
    ("hd fever during a session", HD, "dialysis_access", "kidney_therapy", "上机的时候孩子觉得身上有点发烧",
     ["上次上机的时候孩子发烧过，这次好了", "上机的时候孩子没有发烧", "上机的时候同事的孩子发烧了"]),
    ("nephrotic belly pain with fever", NEPHROTIC, "nephrotic_complication", "nephrotic", "孩子肚子疼，还有点发烧",
     ["孩子以前肚子疼过，也发烧过，现在能吃鸡蛋吗", "孩子没有肚子疼，也没有发烧", "我同事的孩子肚子疼，还有点发烧"]),
    ("nephrotic limb swollen and painful", NEPHROTIC, "nephrotic_complication", "nephrotic", "孩子今天小腿肿痛",
     ["孩子去年小腿肿痛过，现在能跑步吗", "孩子没有小腿肿痛", "我朋友的孩子小腿肿痛"]),
    ("nephrotic cold hands and feet with dizziness", NEPHROTIC, "nephrotic_complication", "nephrotic",
     "孩子手脚发凉，还说头晕",
     ["孩子以前手脚发凉过，也头晕过", "孩子没有手脚发凉，也不头晕", "我同事的孩子手脚发凉，还说头晕"]),
]

NOW = [pytest.param(facts, concept, key, text, id=f"{name} halts with the fact") for name, facts, concept, key, text, _ in ROWS]
WITHOUT = [pytest.param(text, id=f"{name} does not halt without facts") for name, _, _, _, text, _ in ROWS]
NOT_NOW = [
    pytest.param(facts, concept, text, id=f"{name} does not halt when not the patient's now ({n})")
    for name, facts, concept, _, _, others in ROWS
    for n, text in enumerate(others)
]


def route(router: Router, text: str, facts=None, **extra):
    arguments = {"text": text, "caller": PARENT, "patient_id": "P0001", **extra}
    if facts is not ...:
        arguments["patient_facts"] = facts
    return router.call("route_request", arguments)


@pytest.mark.parametrize("facts, concept, key, text", NOW)
def test_a_fact_makes_the_current_event_halt(router, facts, concept, key, text):
    result = route(router, text, facts)
    assert result.status == "halt"
    made = [f for f in result.red_flags if f.fact is not None]
    assert [(f.concept, f.context, f.fact) for f in made][:1] == [(concept, "current", key)]
    gate = router.call("check_safety_gate", {"intent": text, "caller": PARENT, "patient_facts": facts})
    assert gate.gate == "P0_EMERGENCY" and not gate.allow


@pytest.mark.parametrize("text", WITHOUT)
def test_without_facts_the_text_alone_decides(router, text):
    result = route(router, text)
    assert result.status != "halt"
    assert all(f.fact is None for f in result.red_flags)


@pytest.mark.parametrize("facts, concept, text", NOT_NOW)
def test_a_past_negated_or_other_persons_event_asks_never_halts(router, facts, concept, text):
    result = route(router, text, facts)
    assert result.status != "halt"
    made = [f for f in result.red_flags if f.fact is not None]
    assert all(f.context != "current" for f in made)
    if made:  # it asks whether it is happening now, never passes unasked
        assert result.status == "confirm"


# Facts that do not apply to the word: nothing is made.
NOT_THAT_FACT = [
    pytest.param({"kidney_therapy": "ckd"}, "孩子今天发烧了", id="ckd: a fever is the text's alone"),
    pytest.param({"kidney_therapy": "none"}, "孩子今天肚子疼", id="none: belly pain is the text's alone"),
    pytest.param(PD, "孩子这两天尿量减少", id="pd: urine falling is not a pd sign"),
    pytest.param(HD, "孩子今天有点发冷", id="hd: chills with no session named"),
    pytest.param(TRANSPLANT, "孩子今天肚子疼", id="transplant: belly pain is not graft pain"),
    pytest.param(NEPHROTIC, "孩子今天肚子疼", id="nephrotic: belly pain without a fever"),
    pytest.param(NEPHROTIC, "孩子手脚发凉", id="nephrotic: cold hands without dizziness"),
    pytest.param({"age_years": 0.25}, "孩子今天发烧了", id="age 0.25 is not under three months"),
    pytest.param(INFANT, "宝宝今天体温37.6度，有点发烧", id="infant: a reading under 38 decides over the word"),
    pytest.param({"nephrotic": False}, "孩子肚子疼，还有点发烧", id="nephrotic false"),
]


@pytest.mark.parametrize("facts, text", NOT_THAT_FACT)
def test_a_fact_only_feeds_its_own_rules(router, facts, text):
    result = route(router, text, facts)
    assert all(f.fact is None for f in result.red_flags)
    assert result.model_dump() == route(router, text).model_dump()


def test_the_younger_age_counts(router):
    # the fact is younger than the text's age
    assert route(router, "孩子3岁了，今天发烧了", INFANT).status == "halt"
    # the text's age is younger than the fact: the text's own rule halts
    assert route(router, "宝宝才2个月，今天发烧了", {"age_years": 5}).status == "halt"


def test_text_never_changes_a_fact(router):
    # the parent's words deny the transplant; the session's fact stands
    result = route(router, "孩子没有做过肾移植，今天发烧了", TRANSPLANT)
    assert result.status == "halt"
    assert ("transplant_alert", "kidney_therapy") in [(f.concept, f.fact) for f in result.red_flags]


def test_facts_never_lower_a_decision(router):
    for facts in (INFANT, TRANSPLANT, PD, HD, NEPHROTIC, {"age_years": 12, "kidney_therapy": "none", "nephrotic": False}):
        assert route(router, "孩子刚才抽搐了", facts).status == "halt"
        assert route(router, "孩子以前抽搐过，现在能吃香蕉吗", facts).status == "confirm"


def test_an_acknowledged_concept_stops_asking_and_a_confirmed_one_halts(router):
    past = "孩子以前发烧过，现在吃什么好"
    assert route(router, past, TRANSPLANT).status == "confirm"
    assert route(router, past, TRANSPLANT, acknowledged_red_flags=["transplant_alert"]).status != "confirm"
    assert route(router, past, TRANSPLANT, confirmed_red_flags=["transplant_alert"]).status == "halt"
    # an acknowledgement never lifts a current one
    assert route(router, "孩子今天发烧了", TRANSPLANT, acknowledged_red_flags=["transplant_alert"]).status == "halt"


def test_the_result_echoes_nothing_of_the_facts(router):
    facts = {"age_years": 0.1234, "kidney_therapy": "transplant", "nephrotic": True}
    dumped = json.dumps(route(router, "孩子今天发烧了", facts).model_dump(mode="json"), ensure_ascii=False)
    assert "0.1234" not in dumped and '"transplant"' not in dumped and "nephrotic\": true" not in dumped
    assert route(router, "孩子今天发烧了", facts).slots.age_years is None  # the slots are the text's own


def test_soft_marks_only_the_texts_own_soft_flags(router):
    result = route(router, "孩子这两天尿少了", TRANSPLANT)
    flags = {(f.concept, f.fact): f.soft for f in result.red_flags}
    assert flags[("anuria", None)] is True  # the text's soft term still asks its own question…
    assert flags[("transplant_alert", "kidney_therapy")] is False  # …and the fact's flag halts


# --------------------------------------------------------------------------------------------
# The argument
# --------------------------------------------------------------------------------------------

NONE = [pytest.param(value, id=f"{value!r} is no facts") for value in (None, {}, {"age_years": None},
                                                                        {"kidney_therapy": None, "nephrotic": None})]


@pytest.mark.parametrize("value", NONE)
@pytest.mark.parametrize("text", ["孩子今天发烧了", "孩子刚才抽搐了", "孩子以前发烧过", "P0001的血钾"])
def test_null_and_empty_mean_no_facts(router, value, text):
    assert route(router, text, value).model_dump() == route(router, text, ...).model_dump()
    gate = {"intent": text, "caller": PARENT}
    assert (router.call("check_safety_gate", gate | {"patient_facts": value}).model_dump()
            == router.call("check_safety_gate", gate).model_dump())


BAD = [
    pytest.param({"age": 1}, "patient_facts", "is not a patient fact", id="unknown key"),
    pytest.param({"kidney_therapy": "pd", "diagnosis_code_n04": 1}, "patient_facts", "is not a patient fact",
                 id="unknown key beside a good one, not echoed"),
    pytest.param({"kidney_therapy": "dialysis"}, "patient_facts.kidney_therapy", "must be one of", id="unknown therapy"),
    pytest.param({"kidney_therapy": "PD"}, "patient_facts.kidney_therapy", "must be one of", id="therapy in capitals"),
    pytest.param({"kidney_therapy": 3}, "patient_facts.kidney_therapy", "must be one of", id="therapy a number"),
    pytest.param({"age_years": -0.5}, "patient_facts.age_years", "≥ 0", id="negative age"),
    pytest.param({"age_years": "0.5"}, "patient_facts.age_years", "must be a number", id="age as a string"),
    pytest.param({"age_years": True}, "patient_facts.age_years", "must be a number", id="age as a boolean"),
    pytest.param({"age_years": float("nan")}, "patient_facts.age_years", "finite", id="age not a number"),
    pytest.param({"age_years": float("inf")}, "patient_facts.age_years", "finite", id="age infinite"),
    pytest.param({"nephrotic": "yes"}, "patient_facts.nephrotic", "true or false", id="nephrotic a string"),
    pytest.param({"nephrotic": 1}, "patient_facts.nephrotic", "true or false", id="nephrotic a number"),
    pytest.param("transplant", "patient_facts", "must be an object", id="a string"),
    pytest.param(["pd"], "patient_facts", "must be an object", id="a list"),
    pytest.param(7, "patient_facts", "must be an object", id="a number"),
]


@pytest.mark.parametrize("tool", ["route_request", "check_safety_gate"])
@pytest.mark.parametrize("value, field, message", BAD)
def test_bad_facts_are_invalid_arguments_that_echo_nothing(router, tool, value, field, message):
    arguments = {"caller": PARENT, "patient_facts": value} | (
        {"text": "孩子发烧了"} if tool == "route_request" else {"intent": "孩子发烧了"})
    with pytest.raises(ArgumentError) as caught:
        router.call(tool, arguments)
    error = caught.value.as_dict()["error"]
    assert error["code"] == "INVALID_ARGUMENT"
    assert error["field"] == field
    assert message in error["message"]
    for shown in (json.dumps(value), str(value), "dialysis", "diagnosis_code_n04", "yes", "0.5"):
        if shown not in ("pd",):
            assert shown not in error["message"]
    assert "diagnosis_code_n04" not in error["field"]


def test_direct_calls_take_a_mapping_or_the_model(router):
    text = "孩子今天发烧了"
    by_model = router.route_request(text, PARENT, patient_facts=PatientFacts(kidney_therapy="transplant"))
    by_mapping = router.route_request(text, PARENT, patient_facts=TRANSPLANT)
    assert by_model.model_dump() == by_mapping.model_dump()
    assert by_model.status == "halt"
    assert as_facts({}) is None and as_facts(None) is None


def test_the_schema_advertises_the_facts_and_their_values():
    from app.protocol.registry import tool_descriptors

    for tool in tool_descriptors():
        if tool.name not in ("route_request", "check_safety_gate"):
            assert "patient_facts" not in tool.input_schema["properties"]
            continue
        field = tool.input_schema["properties"]["patient_facts"]
        assert "authenticated session" in field["description"] and "never taken from the user's words" in field["description"]
        facts = tool.input_schema["$defs"]["PatientFacts"]
        assert facts["additionalProperties"] is False
        assert facts["properties"]["kidney_therapy"]["anyOf"][0]["enum"] == ["none", "ckd", "pd", "hd", "transplant"]
        assert facts["properties"]["age_years"]["anyOf"][0] == {"minimum": 0, "type": "number"}
        assert facts["properties"]["nephrotic"]["anyOf"][0] == {"type": "boolean"}
        flag = tool.output_schema["$defs"]["RedFlag"]["properties"]["fact"]
        assert flag["anyOf"][0]["enum"] == ["age_years", "kidney_therapy", "nephrotic"]


def test_the_reading_prefilter_knows_the_slot_readers_reply_length():
    from app.router import facts
    from app.router.slots import temperatures

    assert facts.REPLY_LENGTH == temperatures.REPLY_LENGTH


READINGS = [
    pytest.param("38.6度", id="a bare reply with its unit (SPEC §4.4 revision 3)"),
    pytest.param("现在是38.6，怎么办", id="a reply opening with a now word"),
    pytest.param("三十八度六", id="in numerals with 度"),
    pytest.param("孩子精神不太好，我刚才给他量了一下，38.9，吃了退烧药还没降下来", id="after a temperature word"),
    pytest.param("孩子今天体温三十九度，精神还可以，能吃香蕉吗", id="体温 in numerals"),
    pytest.param("孩子精神不太好，晚饭也没怎么吃，睡前量了腋下是38.7℃，现在要去医院吗", id="with ℃ in a long message"),
    pytest.param("38.5，刚量的，孩子精神不太好，晚饭也没怎么吃，现在要去医院吗，还是再观察一下", id="a long message opening with it"),
]


@pytest.mark.parametrize("text", READINGS)
def test_a_reading_without_a_fever_word_halts_with_the_fact(router, text):
    result = route(router, text, TRANSPLANT)
    assert result.slots.temperature_c is not None and result.slots.temperature_c >= 38
    assert result.status == "halt", text
    gate = router.call("check_safety_gate", {"intent": text, "caller": PARENT, "patient_facts": TRANSPLANT})
    assert gate.gate == "P0_EMERGENCY"


# --------------------------------------------------------------------------------------------
# The policy section
# --------------------------------------------------------------------------------------------


def _policy_text() -> str:
    from app.router.policy import default_policy_bytes

    return default_policy_bytes().decode("utf-8")


def _without_facts(text: str) -> str:
    start = text.index("\n[facts]\n")
    end = text.index("\n# ----", text.index("\n[facts.words]\n"))
    return text[:start] + text[end:]


def test_a_policy_without_a_facts_section_loads_and_facts_then_feed_nothing():
    from app.router.policy import parse_policy

    router = Router(parse_policy(_without_facts(_policy_text()).encode("utf-8")))
    assert router.policy.facts is None
    for text in ("孩子今天发烧了", "孩子今天肚子疼"):
        assert route(router, text, TRANSPLANT | {"age_years": 0.1}).model_dump() == route(router, text).model_dump()


@pytest.mark.parametrize("edit, problem", [
    (('transplant = "transplant_alert"', 'transplant = "graft_alert"'), "is not a p0 concept"),
    (('dizziness = ["头晕", ', 'dizziness = ["头晕", "头晕", '), "is listed twice"),
    (("fever_celsius = 38.0", "fever_celsius = 41.0"), "fever_celsius"),
    (("young_infant_years = 0.25", "young_infant_years = 0"), "young_infant_years"),
    (('chills = ["寒战"', 'chills = []\nnot_a_kind = ["寒战"'), "facts.words"),
], ids=["unknown concept", "a word twice", "fever threshold out of range", "infant limit zero", "empty list, unknown kind"])
def test_a_bad_facts_section_is_refused_with_its_problem(edit, problem):
    from app.router.policy import PolicyError, parse_policy

    text = _policy_text()
    assert edit[0] in text
    with pytest.raises(PolicyError) as caught:
        parse_policy(text.replace(edit[0], edit[1], 1).encode("utf-8"))
    assert problem in str(caught.value)


@pytest.mark.parametrize("text", ["孩子今天发烧了，能吃苹果吗", "孩子肚子有点疼，晚饭吃了两碗米饭", "慢性肾病的孩子一天能吃多少盐？",
                                  "医生您好，孩子今年8岁，体重25公斤，昨天化验血钾5.2，肌酐86，白蛋白38，请问香蕉和橙子还能不能吃？"])
def test_a_text_where_no_temperature_can_stand_is_not_read_for_one(router, text):
    """The facts ask the slot readers for a temperature only where one may stand (cost, issue 32)."""
    from app.router.facts import PatientFacts, fact_flags
    from app.router.text import Cut, views

    policy = router.policy
    v = views(text)
    asked: list[bool] = []
    fact_flags(policy.facts, policy.red_flags, PatientFacts(kidney_therapy="transplant", nephrotic=True), Cut(v.text),
               policy.lexicon.scan(v.text), [], PARENT, lambda: asked.append(True) or None,
               lambda: policy.red_flags.context.lexicon.scan_group(v.text))
    assert asked == []
