"""SPEC §4.4 revision 3 and §4.2's revision-3 lines: the forms the labels disagreed on, one rule each.

Each rule both ways, in sentences of our own (every one hashes to the allowed half, 0–7): a reading
with 度 as the whole message or a whole reply clause, a message of bare numbers; a bare N天 / N个月
as the whole message; a temperature range; "almost N" (and, for the infant-fever rule, under N); a
threshold; N岁 as the whole message; the writer's own age; re-testing and food groups.
"""

from __future__ import annotations

import hashlib
from datetime import date

import pytest

from app.router import Router
from app.router.slots import SlotExtractor
from app.router.text import views

REFERENCE = date(2026, 12, 1)
PARENT = "parent_assistant"
A, T = ["age_years"], ["temperature_c"]

# (id, text, {field: expected})
READINGS = [
    ("a reading with 度 as the whole message", "39度4", {"temperature_c": 39.4, "approximate": []}),
    ("a reading in numerals with 度 as the whole message", "三十八度六", {"temperature_c": 38.6}),
    ("a reading with 度 as a whole reply clause", "孩子有点咳嗽，39度，怎么办！", {"temperature_c": 39.0}),
    ("a reading with 度 inside a clause, no fever word: none", "我们这里白天38度，孩子能出门吗？", {"temperature_c": None}),
    ("a bare number as the whole message is no reading", "38.5", {"temperature_c": None}),
    ("a message of bare numbers is no reading", "38.2，37.9", {"temperature_c": None}),
    ("a bare reading after the age still is one (§4.7 revision 3)", "宝宝两个月，38.3", {"temperature_c": 38.3}),
]

WHOLE_SPANS = [
    ("a bare N天 as the whole message is how long", "5天。", {"age_years": None}),
    ("a bare N个月 as the whole message is how long", "3个月", {"age_years": None}),
    ("a bare N个月 with a reply's lead words as the whole message is how long", "这都七个月了", {"age_years": None}),
    ("N个月 after a child word is an age", "宝宝3个月了！", {"age_years": 0.25}),
    ("a bare N个月 as a clause after another is an age", "没有发烧，6个月", {"age_years": 0.5}),
    ("a bare N个月 before a weight is an age", "9个月，18斤", {"age_years": 0.75, "weight_kg": 9.0}),
]

RANGES = [
    ("a range of tenths fills its highest", "孩子烧到三十八度五六", {"temperature_c": 38.6, "approximate": T}),
    ("a range with a dash fills its highest", "孩子烧到38.5-39度", {"temperature_c": 39.0, "approximate": T}),
    ("a range with 到 fills its highest", "体温在37.8到38.6之间", {"temperature_c": 38.6, "approximate": T}),
    ("a range of whole degrees in numerals", "三十八九度", {"temperature_c": 39.0, "approximate": T}),
    ("a range without a unit as the whole message is none", "三十八九", {"temperature_c": None, "number": []}),
    ("an age range still fills nothing", "宝宝三四个月！", {"age_years": None}),
    ("one reading is no range", "今天烧到39度。", {"temperature_c": 39.0, "approximate": []}),
]

ALMOST = [
    ("almost N years before a child word", "快两岁的宝宝发烧?", {"age_years": 2.0, "approximate": A}),
    ("almost N months before a child word", "快三个月的宝宝", {"age_years": 0.25, "approximate": A}),
    ("almost N months after a child word", "宝宝快三个月了，吐奶？", {"age_years": 0.25, "approximate": A}),
    ("almost N days after 出生", "出生快40天，黄疸没退", {"age_years": 0.11, "approximate": A}),
    ("almost a month more after the years", "宝宝一岁快一个月了？", {"age_years": 1.08, "approximate": A}),
    ("N周岁差点 is almost N", "女儿3周岁差点，胃口不好", {"age_years": 3.0, "approximate": A}),
    ("快满月 is almost a month", "宝宝快满月了，鼻子不通", {"age_years": 0.08, "approximate": A}),
    ("almost N of a temperature", "烧到快40度。", {"temperature_c": 40.0, "approximate": T}),
    # refusals: a duration, a "not yet N"
    ("almost N months of an illness is how long", "咳嗽快3个月了。", {"age_years": None}),
    ("almost N days of a medicine is how long", "吃药快十天了", {"age_years": None}),
    ("not yet N is an upper bound, no age", "宝宝不到两岁", {"age_years": None}),
]

THRESHOLDS = [
    ("a threshold after 高于 … 的时候", "高于39的时候吃退烧药", {"temperature_c": None}),
    ("a threshold with 以上 and an instruction", "39度以上才用药?", {"temperature_c": None}),
    ("a threshold after 超过", "超过38度半就吃药吗。", {"temperature_c": None}),
]

WHOSE_AGE = [
    ("N岁 as the whole message is the child's age", "3岁！", {"age_years": 3.0}),
    ("N岁半 as the whole message is the child's age", "两岁半。", {"age_years": 2.5}),
    ("the writer's own age in a message about a child fills nothing", "我今年32岁，孩子发烧…", {"age_years": None}),
    ("the child's age over the writer's", "我今年32岁，孩子3岁", {"age_years": 3.0}),
    ("the writer who is the patient: their own age", "我今年15岁，最近老是头疼", {"age_years": 15.0}),
    ("a child still planned leaves the writer the patient", "我今年29岁，准备要个孩子？", {"age_years": 29.0}),
    ("the writer's own pregnancy leaves the writer the patient", "我今年31岁，怀孕了，孩子会不会受影响？", {"age_years": 31.0}),
]

ROWS = READINGS + WHOLE_SPANS + RANGES + ALMOST + THRESHOLDS + WHOSE_AGE

# SPEC §4.7 revision 3: "almost N" is under N for the infant-fever rule.
INFANT_HALTS = [
    ("almost three months with a reading", "宝宝快三个月了，今天烧到38.5"),
    ("almost N days after 出生", "出生快80天，发烧38.6。"),
    ("days to go before three months", "还有十天就三个月了，发烧38.5！"),
]
INFANT_DOES_NOT_HALT = [
    ("almost four months is not under three", "宝宝快四个月了，体温38.6"),
]

# SPEC §4.2 revision 3: re-testing is followup; a food group is nutrition_calc.
INTENTS = [
    ("whether to re-test -> followup", "要不要复查", "followup"),
    ("whether to re-test after a stay -> followup", "出院以后要不要复查？", "followup"),
    ("which test to take stays knowledge", "要不要验血", "knowledge"),
    ("a food group -> nutrition calc", "能吃水果吗", "nutrition_calc"),
    ("a food group after a child word -> nutrition calc", "孩子能吃水果吗。", "nutrition_calc"),
    ("snacks after the verb -> nutrition calc", "孩子可以吃零食吗？", "nutrition_calc"),
    ("diet advice with no food and no group stays knowledge", "孩子饮食要注意什么！", "knowledge"),
    ("what to eat with no group stays knowledge", "吃什么好", "knowledge"),
]

ALL_TEXTS = [r[1] for r in ROWS + INFANT_HALTS + INFANT_DOES_NOT_HALT + INTENTS]


def test_every_sentence_is_in_the_allowed_hash_half():
    assert [t for t in ALL_TEXTS if hashlib.sha256(t.strip().encode("utf-8")).hexdigest()[0] not in "01234567"] == []


@pytest.fixture(scope="module")
def extractor(policy) -> SlotExtractor:
    return SlotExtractor(policy)


@pytest.mark.parametrize(("text", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_revision_3_forms(policy, extractor: SlotExtractor, text: str, expected: dict) -> None:
    v = views(text)
    got = extractor.extract(v, policy.lexicon.scan(v.text), REFERENCE, policy.policy_version).model_dump()
    for field, want in expected.items():
        assert got[field] == want, (field, got[field])


@pytest.mark.parametrize("text", [r[1] for r in INFANT_HALTS], ids=[r[0] for r in INFANT_HALTS])
def test_almost_n_months_is_under_n_for_the_infant_rule(router: Router, text):
    result = router.route_request(text, PARENT)
    assert (result.status, [f.concept for f in result.red_flags]) == ("halt", ["infant_fever"])
    assert result.slots.age_years is not None and "age_years" in result.slots.approximate


@pytest.mark.parametrize("text", [r[1] for r in INFANT_DOES_NOT_HALT], ids=[r[0] for r in INFANT_DOES_NOT_HALT])
def test_almost_n_months_over_the_limit_does_not_halt(router: Router, text):
    assert router.route_request(text, PARENT).status != "halt"


@pytest.mark.parametrize(("text", "intent"), [r[1:] for r in INTENTS], ids=[r[0] for r in INTENTS])
def test_revision_3_intents(router: Router, text, intent):
    assert router.classify_intent(text).intent == intent
