"""The policy loader refuses every inconsistency of SPEC §3 and names it."""

from __future__ import annotations

import re

import pytest

from app.router import PolicyError, load_policy
from app.router.policy import default_policy_bytes, parse_policy

SHIPPED = default_policy_bytes().decode()


def edit(old: str, new: str, count: int = 1) -> bytes:
    assert old in SHIPPED, old
    return SHIPPED.replace(old, new, count).encode()


def test_shipped_policy_loads_with_a_traceable_version():
    policy = load_policy()
    assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}\+[0-9a-f]{12}", policy.policy_version)


# The concept ids shared with the real-text labels (SPEC §3.5's seven first).
CONCEPTS = [
    "seizure", "altered_consciousness", "respiratory_distress", "anuria", "gi_bleeding", "hyperkalemia", "infant_fever",
    "lethargy", "cyanosis", "chest_pain", "severe_edema", "hemorrhage", "hypertensive_emergency", "shock",
    "pd_peritonitis", "unable_to_drink", "vomits_everything", "dehydration",
    "meningeal_signs", "non_blanching_rash", "abnormal_cry", "stroke_signs",
    # SPEC §3.5 "Kidney danger signs (revision 2)"
    "dialysis_access", "transplant_alert", "fluid_overload", "nephrotic_complication", "hypocalcemic_tetany",
]


def test_red_flag_concepts_meet_the_minimums(policy):
    """SPEC §3.5: ≥ 120 terms/patterns over ≥ 20 concepts, exactly the shared ids."""
    rules = policy.red_flags
    assert sorted(rules.concept_ids) == sorted(CONCEPTS)
    assert rules.term_count + rules.pattern_count >= 120
    assert len(rules.concept_ids) >= 20


def test_word_lists_meet_the_minimums(policy):
    assert len(policy.slots.foods) >= 80
    spec_intents = {
        "emergency_red_flag", "clinical_staging", "lab_result", "risk_assessment", "patient_profile",
        "nutrition_assessment", "followup", "meal_plan", "nutrition_calc", "report", "notify", "knowledge", "gamification",
    }
    assert set(policy.intent_by_name) == spec_intents
    import tomllib

    data = tomllib.loads(SHIPPED)
    for intent in data["intents"]:
        if intent["name"] != "emergency_red_flag":
            assert len(intent["keywords"]) >= 10, intent["name"]
    assert data["p0"]["safe_phrases"] and data["staging"]["terms"]
    assert {a for a in data["slots"]["analytes"]} >= {
        "potassium", "phosphorus", "calcium", "sodium", "scr", "bun", "albumin", "hemoglobin", "egfr", "pth",
        "urine_protein", "bicarbonate",
    }


def test_any_byte_changes_the_digest():
    a = parse_policy(SHIPPED.encode())
    b = parse_policy((SHIPPED + "\n# a comment\n").encode())
    assert a.version == b.version and a.digest != b.digest


REFUSALS = [
    ("unknown role in a rule", edit('staging_denied_callers = ["nutritionist", "parent_assistant"]', 'staging_denied_callers = ["nutritionist", "grandparent"]'),
     "rules.MX-1.staging_denied_callers: unknown role 'grandparent'"),
    ("unknown role in the matrix", edit("risk_warning     = {", "risk_warner      = {"), "unknown role 'risk_warner'"),
    ("write tool bound to an unregistered MCP", edit('name = "upsert_lab_result"\nmcp = "M2"', 'name = "upsert_lab_result"\nmcp = "M42"'),
     "write_tools.upsert_lab_result: unregistered MCP 'M42'"),
    ("write tool caller unknown", edit('callers = ["doctor_assistant"]\nrequires_confirmation = true', 'callers = ["surgeon"]\nrequires_confirmation = true'),
     "write_tools.push_to_emr.callers: unknown role 'surgeon'"),
    ("overlapping aliases across tools", edit('"打卡" = "log_meal_checkin"', '"写回病历" = "log_meal_checkin"'), "overlaps an alias of"),
    ("overlapping aliases after folding Traditional", edit('"打卡" = "log_meal_checkin"', '"寫回病歷" = "log_meal_checkin"'), "overlaps an alias of"),
    ("alias naming another tool", edit('"打卡" = "log_meal_checkin"', '"打卡" = "award_badge"'), "names 'award_badge', not this tool"),
    ("keyword in two intents", edit('keywords = ["随访",', 'keywords = ["化验单", "随访",'), "overlaps a keyword of lab_result"),
    ("concept without terms", edit('id = "cyanosis"\ngroup = "cardiorespiratory"\nterms = [', 'id = "cyanosis"\ngroup = "cardiorespiratory"\nterms = []\nunused = ['), "p0.concepts.5.terms"),
    ("term in two concepts", edit('"口唇发紫", "嘴唇发紫"', '"口唇发紫", "抽搐"'), "'抽搐' is already a term of seizure"),
    ("term in two concepts after folding Traditional", edit('"口唇发紫", "嘴唇发紫"', '"口唇发紫", "驚厥"'), "is already a term of seizure"),
    ("pattern whose gap can cross a comma", edit("stool_blood = '(?:(?<=大)便|拉)[^，。！？；,!?;\\n]{0,2}血'", "stool_blood = '(?:(?<=大)便|拉)[^。！？]{0,2}血'"),
     "p0.concepts.gi_bleeding.patterns.stool_blood: has a character class that admits clause punctuation"),
    ("pattern with an unbounded gap", edit("stool_blood = '(?:(?<=大)便|拉)[^，。！？；,!?;\\n]{0,2}血'", "stool_blood = '(?:(?<=大)便|拉)[^，。！？；,!?;\\n]*血'"),
     "stool_blood: has an unbounded repeat"),
    ("pattern using a dot", edit("stool_blood = '(?:(?<=大)便|拉)[^，。！？；,!?;\\n]{0,2}血'", "stool_blood = '(?:(?<=大)便|拉).{0,2}血'"),
     "stool_blood: uses '.'"),
    ("pattern that can start anywhere", edit("stool_blood = '(?:(?<=大)便|拉)", "stool_blood = '[^，。！？；,!?;\\n]{0,1}(?:(?<=大)便|拉)"),
     "stool_blood: must start with a literal character"),
    ("pattern name used twice", edit("vomit_coffee_grounds = ", "stool_blood = "), "stool_blood"),
    ("critical value of an unknown concept", edit('concept = "hyperkalemia"', 'concept = "hyperkalaemia"'), "unknown concept 'hyperkalaemia'"),
    ("cue with a direction its kind cannot have", edit('kind = "habitual"\ndirection = "before"', 'kind = "habitual"\ndirection = "after"'),
     "a habitual cue cannot have direction 'after'"),
    ("cue word with two roles", edit('words = ["但", "但是",', 'words = ["但", "如果", "但是",'), "'如果' is already a hypothetical cue word"),
    ("not_inside word that hides nothing", edit('not_inside = ["可怕", "恐怕", "哪怕", "不怕",', 'not_inside = ["可怕", "恐怕", "哪怕", "不怕", "可以",'),
     "'可以' contains none of its words"),
    ("subject_not_inside word that hides no subject word", edit('subject_not_inside = [\n  "老大爷",', 'subject_not_inside = [\n  "可以",'),
     "'可以' contains none of its words"),
    ("soft terms without a severity question", re.sub(r'severity_question = "孩子是不是很难叫醒[^"]*"\n', "", SHIPPED).encode(),
     "soft_terms and severity_question go together"),
    ("a soft term that is already a term", edit('soft_terms = [\n  "精神差",', 'soft_terms = [\n  "昏睡", "精神差",'),
     "'昏睡' is already a term of lethargy"),
    ("blood pressure for an unknown concept", edit('concept = "hypertensive_emergency"\nname = "blood_pressure_critical_value"',
                                                   'concept = "bp_crisis"\nname = "blood_pressure_critical_value"'),
     "p0.blood_pressure: unknown concept 'bp_crisis'"),
    ("negation without a reach", edit('scope = "next_mention"\nmax_gap = 4', 'scope = "next_mention"'), "max_gap is required"),
    ("self words for an unknown role", edit('self_is_patient_for = ["child_companion"]', 'self_is_patient_for = ["kid"]'), "unknown role 'kid'"),
    ("patient word that is also an other-person word", edit('"患儿", "患者", "病人"', '"患儿", "患者", "病人", "同事"'), "'同事' is already a patient word"),
    ("empty staging family", re.sub(r"\[staging\]\nterms = \[.*?\]", "[staging]\nterms = []", SHIPPED, flags=re.S).encode(), "staging.terms"),
    ("empty food list", re.sub(r"\[slots\]\nfoods = \[.*?\]\n", "[slots]\nfoods = []\n", SHIPPED, flags=re.S).encode(), "slots.foods"),
    ("missing matrix cell", edit(', M13 = "R" }', " }", 1), "matrix.dispatcher: no cell for MCP M13"),
    ("matrix cell of an unknown value", edit('dispatcher       = { M1 = "R",', 'dispatcher       = { M1 = "RW",'), "matrix.dispatcher.M1"),
    ("safe phrase that is a P0 term", edit('safe_phrases = [\n  "抽动症",', 'safe_phrases = [\n  "无尿",'), "is itself a P0 term"),
    ("safe phrase that is a P0 term in another concept", edit('safe_phrases = [\n  "抽动症",', 'safe_phrases = [\n  "脱水",'), "is itself a P0 term"),
    ("safe phrase containing no P0 term", edit('safe_phrases = [\n  "抽动症",', 'safe_phrases = [\n  "多喝水",'), "so it suppresses nothing"),
    ("critical word ending with a numeral character (the shared number scan would split it)",
     edit('words = ["血钾", "钾",', 'words = ["血钾", "钾十",'), "'钾十' ends with a numeral character"),
    ("intent bound to an unregistered MCP", edit('name = "report"\nmcp = "M10"', 'name = "report"\nmcp = "M99"'), "intents.report: unregistered MCP 'M99'"),
    ("weak word that is no intent keyword", edit('weak_keywords = [\n  "是什么",', 'weak_keywords = [\n  "随便问问",'),
     "asking.weak_keywords: '随便问问' is not an intent keyword"),
    ("consume verb of another intent", edit('consume_verbs = [\n  "能不能吃",', 'consume_verbs = [\n  "复查", "能不能吃",'),
     "asking.consume_verbs: '复查' is not a keyword of nutrition_calc"),
    ("diet advice word of another intent", edit('diet_advice = [\n  "吃什么好",', 'diet_advice = [\n  "复查", "吃什么好",'),
     "asking.diet_advice: '复查' is not a keyword of nutrition_calc"),
    ("diet advice word listed twice", edit('diet_advice = [\n  "吃什么好",', 'diet_advice = [\n  "忌口", "吃什么好",'),
     "asking.diet_advice: '忌口' is listed twice"),
    ("advice intent that is not scored", edit('advice_intent = "knowledge"', 'advice_intent = "pharmacy"'),
     "asking.advice_intent: 'pharmacy' is not a scored intent"),
    ("reading intent that is not scored", edit('reading_intent = "lab_result"', 'reading_intent = "lis"'),
     "asking.reading_intent: 'lis' is not a scored intent"),
    ("reading word listed twice", edit('reading_words = [\n  "偏高",', 'reading_words = [\n  "阳性", "偏高",'),
     "asking.reading_words: '阳性' is listed twice"),
    ("generic reading word of another intent", edit('reading_generic = ["正常吗",', 'reading_generic = ["复查", "正常吗",'),
     "asking.reading_generic: '复查' is not a keyword of lab_result"),
    ("form heading that hides nothing", edit('form_headings = [\n  "想得到怎样的帮助",', 'form_headings = [\n  "病情描述", "想得到怎样的帮助",'),
     "asking.form_headings: '病情描述' holds no intent keyword or question word, so it hides nothing"),
    ("feeding modals without feeding verbs", re.sub(r"feeding_verbs = \[.*?\]\n", "", SHIPPED, flags=re.S).encode(),
     "asking.feeding_modals and asking.feeding_verbs: both or neither"),
    ("feeding modal listed twice", edit('feeding_modals = [\n  "可以",', 'feeding_modals = [\n  "需要", "可以",'),
     "asking.feeding_modals: '需要' is listed twice"),
    ("not-a-question word that hides no question word", edit('not_question_words = [\n  "这几天",', 'not_question_words = [\n  "很多", "这几天",'),
     "asking.not_question_words: '很多' holds no question word, so it hides nothing"),
    ("not-a-reading word that hides no reading word", edit('not_reading_words = [\n  "医院看看",', 'not_reading_words = [\n  "去医院", "医院看看",'),
     "asking.not_reading_words: '去医院' holds no reading word, so it hides nothing"),
    ("effect question of another intent", edit('effect_questions = ["有影响吗",', 'effect_questions = ["复查", "有影响吗",'),
     "asking.effect_questions: '复查' is not a keyword of risk_assessment"),
    ("medicine intent that is not scored", edit('medicine_intent = "knowledge"', 'medicine_intent = "pharmacy"'),
     "asking.medicine_intent: 'pharmacy' is not a scored intent"),
    ("not-a-medicine word that hides no medicine word", edit('not_medicines = [\n  "肉丸",', 'not_medicines = [\n  "米饭",'),
     "medicines.not_medicines: '米饭' contains no medicine word"),
    ("medicine word listed as a name and a suffix", edit('suffixes = [\n  "丸",', 'suffixes = [\n  "泼尼松", "丸",'), "overlaps a word of names"),
    ("unknown key (a typo) is refused", edit('version = "', 'versoin = "x"\nversion = "'), "versoin"),
    ("not TOML", b"version = [", "not valid TOML"),
    ("not UTF-8", b"\xff\xfe", "not UTF-8"),
]


@pytest.mark.parametrize(("data", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusal(data, message):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert any(message in problem for problem in info.value.problems), info.value.problems


def test_missing_file_is_a_policy_error(tmp_path):
    with pytest.raises(PolicyError, match="cannot read policy file"):
        load_policy(tmp_path / "absent.toml")
