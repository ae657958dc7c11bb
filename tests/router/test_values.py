"""One reading of every value, and hard before soft (SPEC §4.7 revision 3, §3.5 critical values).

Tables of our own sentences, both ways: each value form that must halt, and the look-alikes that
must not (a past or hypothetical reading, another person's, a threshold, a value under the limit,
another analyte's number). The gate reads no value of its own: the infant rule takes the slot
readers' age and temperature, the critical values take ``slots.analytes``' numbers.
"""

from __future__ import annotations

import pytest

from app.router import Router, analysis, load_policy

PARENT = "parent_assistant"

# --- infant_fever: the slot readers' age (with its upper bounds) and any current reading ≥ 38.0 ----

INFANT_HALTS = [
    ("high fever word then a reading", "我家宝宝两个月，今天高热38.7"),
    ("temperature word 温度", "孩子才50天，刚量的温度是38.4"),
    ("forehead reading 额温 in weeks", "宝宝9周，额温38.2度"),
    ("ear reading 耳温 in Chinese numerals", "宝宝六十天，耳温三十八度六"),
    ("thermometer shows", "宝宝两个半月，体温计显示38.9"),
    ("a bare reading after the age", "宝宝2个月，38.5"),
    ("upper bound 不到N个月", "女儿还不到3个月，发烧38.3"),
    ("upper bound 还没满N个月", "儿子还没满两个月，体温38.1"),
    ("almost three months is under three", "宝宝快三个月了，烧到38.4"),
    ("weeks under thirteen", "宝宝出生10周，体温38.6"),
    ("a newborn word", "新生儿今天体温38.2"),
    ("months and days then a thermometer", "宝宝两个月零十天，温度计上是38.3"),
    ("a fever word and no reading", "宝宝40天，摸着很烫"),
]

INFANT_DOES_NOT_HALT = [
    ("a five-month-old at 38.5 does not halt", "宝宝5个月，发烧38.5"),
    ("a past reading", "宝宝两个月，上周烧到38.8，现在好了"),
    ("a hypothetical reading", "宝宝两个月，要是烧到38.5怎么办"),
    ("a threshold 高于39的时候", "宝宝两个月，高于39的时候要吃退烧药吗"),
    ("a reading under 38", "宝宝两个月，体温37.6"),
    ("almost four months is not under three", "宝宝快4个月了，发烧38.5"),
    ("a duration of almost three months is no age", "咳嗽快3个月了，今天发烧38.5"),
    ("another person's temperature", "我老婆今天体温38.6，宝宝两个月能喝果汁吗"),
]


@pytest.mark.parametrize("text", [r[1] for r in INFANT_HALTS], ids=[r[0] for r in INFANT_HALTS])
def test_a_young_infant_with_a_current_fever_halts(router: Router, text):
    result = router.route_request(text, PARENT)
    assert (result.status, [f.concept for f in result.red_flags]) == ("halt", ["infant_fever"])


@pytest.mark.parametrize("text", [r[1] for r in INFANT_DOES_NOT_HALT], ids=[r[0] for r in INFANT_DOES_NOT_HALT])
def test_no_young_infant_or_no_current_fever_does_not_halt(router: Router, text):
    assert router.route_request(text, PARENT).status != "halt"


@pytest.mark.parametrize(("text", "status"), [
    ("宝宝两个月，上周烧到38.8，现在好了", "confirm"),
    ("宝宝两个月，要是烧到38.5怎么办", "confirm"),
], ids=["a past reading of a young infant asks", "a hypothetical reading of a young infant asks"])
def test_a_young_infants_reading_that_is_not_now_asks(router: Router, text, status):
    assert router.route_request(text, PARENT).status == status


# --- potassium: wherever the value stands in its clause, or in the next clause naming no analyte ----

POTASSIUM_HALTS = [
    ("far after the word in its clause", "孩子今天抽血查的血钾结果出来是6.9"),
    ("before the word", "化验出来6.8这个钾值要紧吗"),
    ("in the next clause that names no analyte", "血钾那一项，7.1"),
    ("on the report", "钾离子在化验单上写的是6.7"),
    ("Chinese numerals", "孩子血钾七点二"),
    ("with its unit", "K 6.6 mmol/L"),
    ("the next clause opens with a now cue", "血钾上次5.1，今天7.0"),
    ("a comparative", "女儿血钾大于6.5了"),
]

POTASSIUM_DOES_NOT_HALT = [
    ("6.4 does not halt", "孩子血钾6.4"),
    ("another analyte's value in the next clause", "血钾偏高，血磷6.8"),
    ("another analyte's value before the word", "钠140钾4.2"),
    ("a past value", "血钾以前6.9，现在4.5"),
    ("another person's value", "我爸血钾6.9"),
    ("a food's potassium in milligrams", "香蕉含钾7毫克吗"),
    ("a hypothetical value", "血钾要是到了7怎么办"),
    ("a count is no value", "钾那一项一直偏高，要紧吗"),
]


@pytest.mark.parametrize("text", [r[1] for r in POTASSIUM_HALTS], ids=[r[0] for r in POTASSIUM_HALTS])
def test_a_current_potassium_value_halts(router: Router, text):
    result = router.route_request(text, PARENT)
    assert result.status == "halt"
    assert "potassium_critical_value" in [f.term for f in result.red_flags]


@pytest.mark.parametrize("text", [r[1] for r in POTASSIUM_DOES_NOT_HALT], ids=[r[0] for r in POTASSIUM_DOES_NOT_HALT])
def test_no_current_potassium_value_does_not_halt(router: Router, text):
    assert router.route_request(text, PARENT).status != "halt"


# --- blood pressure in every notation, Chinese numerals included -----------------------------------

PRESSURE_HALTS = [
    ("digits with a slash", "孩子血压175/115"),
    ("Chinese numerals with a slash", "孩子血压一百七十/一百一十"),
    ("a colloquial Chinese systolic value", "儿子高压一百八"),
    ("a diastolic word in Chinese numerals", "孩子低压一百二十五"),
    ("a pair before the word", "女儿刚量了172/108的血压"),
    ("a pair with its unit and no word", "儿子今天185/125mmHg"),
    ("an adult at the any-age limit", "我妈血压一百八十五/一百二十，孩子能吃吗"),
]

PRESSURE_DOES_NOT_HALT = [
    ("under the child limits", "孩子血压一百二十/八十"),
    ("a past reading", "孩子上个月血压一百七十/一百一十，现在正常了"),
    ("a pressure cooker", "高压锅一百八十度能炖骨头汤吗"),
    ("a range of days", "孩子血压三四天没量了"),
    ("a date is no pair", "孩子10/12号复查"),
    ("an adult pair under the any-age limit", "我爸昨天量的170/115"),
    ("a score is no pair", "儿子考了96/100"),
]


@pytest.mark.parametrize("text", [r[1] for r in PRESSURE_HALTS[:-1]], ids=[r[0] for r in PRESSURE_HALTS[:-1]])
def test_a_current_pressure_over_the_limit_halts(router: Router, text):
    result = router.route_request(text, PARENT)
    assert result.status == "halt"
    assert "blood_pressure_critical_value" in [f.term for f in result.red_flags]


def test_an_adult_pressure_at_the_any_age_limit_is_a_mention(router: Router):
    text = PRESSURE_HALTS[-1][1]
    flags = [(f.term, f.context) for f in router.route_request(text, PARENT).red_flags]
    assert ("blood_pressure_critical_value", "other_person") in flags


@pytest.mark.parametrize("text", [r[1] for r in PRESSURE_DOES_NOT_HALT], ids=[r[0] for r in PRESSURE_DOES_NOT_HALT])
def test_no_current_pressure_over_the_limit_does_not_halt(router: Router, text):
    assert router.route_request(text, PARENT).status != "halt"


# --- hard before soft ---------------------------------------------------------------------------

HARD_UNDER_A_HEDGE = [
    ("有点 before a hard sign: 有点吐血", "孩子有点吐血"),
    ("好像 before a hard sign", "宝宝好像抽搐了"),
    ("感觉 before a hard sign", "孩子感觉呼吸困难"),
    ("有点 before a hard sign: 有点喘不上气", "女儿有点喘不上气"),
]
SOFT_STAYS_SOFT = [
    ("a soft word that holds a hard one", "孩子半天没尿"),
    ("a question that holds a hard word", "孩子嘴干，是不是脱水了"),
    ("a soft word alone", "孩子有点喘"),
]


@pytest.mark.parametrize("text", [r[1] for r in HARD_UNDER_A_HEDGE], ids=[r[0] for r in HARD_UNDER_A_HEDGE])
def test_a_strong_sign_under_a_hedge_halts(router: Router, text):
    result = router.route_request(text, PARENT)
    assert result.status == "halt", result.red_flags
    assert not any(f.soft for f in result.red_flags)


@pytest.mark.parametrize("text", [r[1] for r in SOFT_STAYS_SOFT], ids=[r[0] for r in SOFT_STAYS_SOFT])
def test_a_soft_sign_with_no_overlapping_hard_one_asks(router: Router, text):
    result = router.route_request(text, PARENT)
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity"), result.red_flags


def _overlaps() -> list[tuple[str, str, str]]:
    """Every soft term of the policy whose end is the start of a hard term of any concept, neither
    holding the other (有点吐 + 吐血): the pair written once, overlapping."""
    from app.router.policy import default_policy_bytes
    import tomllib

    from app.router.text import fold

    spec = tomllib.loads(default_policy_bytes().decode())
    concepts = spec["p0"]["concepts"]
    soft = {fold(t) for c in concepts for t in c.get("soft_terms", [])}
    hard = {fold(t) for c in concepts for t in c.get("terms", [])} - soft
    rows = []
    for s in sorted(soft):
        for h in sorted(hard):
            if h in s or s in h:
                continue
            for k in range(min(len(s), len(h)) - 1, 0, -1):
                if s.endswith(h[:k]):
                    rows.append((s, h, s + h[k:]))
                    break
    return rows


OVERLAPS = _overlaps()


def test_the_policy_has_soft_and_hard_terms_that_overlap():
    # 有点吐 + 吐血 among them (the SPEC's own example): the rule below is not vacuous.
    assert ("有点吐", "吐血", "有点吐血") in OVERLAPS


def test_where_a_soft_and_a_hard_term_overlap_the_soft_one_is_no_mention(policy):
    """Load-time data, read as one table (~2,000 pairs, one test): the soft term never takes the
    characters of a hard term it overlaps (a longer word of the policy may still hold them both)."""
    wrong = [(soft, hard) for soft, hard, text in OVERLAPS
             if soft in [f.term for f in analysis.analyze(policy, "孩子" + text, PARENT).red_flags]]
    assert wrong == []


def test_the_red_flag_side_keeps_no_temperature_or_age_pattern():
    """One reader per quantity (STYLE.md): the infant rule holds a fever word pattern only."""
    fields = set(type(load_policy().red_flags.infant_fever).__dataclass_fields__)
    assert fields == {"concept", "name", "min_celsius", "max_celsius", "max_age_days", "fever_word"}


@pytest.mark.parametrize("text", [r[1] for r in INFANT_HALTS[:-1]], ids=[r[0] for r in INFANT_HALTS[:-1]])
def test_the_halting_reading_is_the_one_the_slots_report(router: Router, text):
    """The reading that halts is ``temperature_c`` of the same call."""
    slots = router.extract_slots(text)
    assert slots.temperature_c is not None and slots.temperature_c >= 38.0
