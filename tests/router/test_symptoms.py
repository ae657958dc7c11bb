"""The symptom check (SPEC §4.7 revision 3, "Every sick child is asked"), both ways, every family.

A current mention of a symptom family about the patient, that no red flag of the same text covers
and that is not acknowledged, asks the family's questions (`confirm`, `p0_confirm_symptom`) — in
route_request and in check_safety_gate's P0 stage. A negated, past, other person's or general
mention asks nothing; an acknowledged family asks no more; a confirmed one halts. Acknowledging
`symptom.general` answers the general danger signs' severity questions too; abnormal movements keep
their own question. Fever alone is a symptom: it halts only in a young infant, after a transplant or
beside a hard sign. Every sentence here is our own.
"""

from __future__ import annotations

import pytest

from app.router import ArgumentError, Router
from app.router.models import SYMPTOM_IDS, RouteResult
from tests.router.test_parent_vocabulary import PARENT

GENERAL = "symptom.general"


def asks_the_family(router: Router, policy, text: str, concept: str, caller: str = PARENT) -> None:
    """``text`` asks ``concept``'s question (among its families' questions, in one turn); yes halts;
    no (every family of the turn acknowledged) asks nothing more."""
    result = router.route_request(text, caller, "P0001")
    assert (result.status, result.reason_code, result.gate) == ("confirm", "p0_confirm_symptom", None), result.red_flags
    questions = {q.concept: q.question for q in result.severity_questions}
    assert questions.get(concept) == policy.red_flags.severity_questions[concept]
    families = list(questions)
    mentions = [f for f in result.red_flags if f.concept in families]
    assert mentions and all(f.soft and f.context == "current" and not f.acknowledged for f in mentions)
    gate = router.check_safety_gate(text, caller)
    assert (gate.allow, gate.gate, gate.reason_code) == (False, "P0_CONFIRM", "p0_confirm_symptom")
    assert [q.concept for q in gate.severity_questions] == families
    assert router.route_request(text, caller, "P0001", confirmed_red_flags=[concept]).status == "halt"
    assert router.check_safety_gate(text, caller, confirmed_red_flags=[concept]).gate == "P0_EMERGENCY"
    answered = router.route_request(text, caller, "P0001", acknowledged_red_flags=families)
    assert answered.status not in ("halt", "confirm"), answered.red_flags
    assert all(f.acknowledged for f in answered.red_flags if f.concept in families)


ASKS = [
    # id, text, the family's concept
    ("fever", "宝宝今天发烧了", GENERAL),
    ("fever in English", "my son has a fever", GENERAL),
    ("fever in toneless pinyin", "haizi fashao le", GENERAL),
    ("vomiting: wants to throw up", "儿子吃完饭就想吐", GENERAL),
    ("diarrhoea", "孩子这两天拉肚子", GENERAL),
    ("diarrhoea in English", "the baby has diarrhea", GENERAL),
    ("cough", "儿子咳嗽好几天了", GENERAL),
    ("a cold: blocked and runny nose", "宝宝鼻塞流鼻涕", GENERAL),
    ("feeding: no appetite", "孩子最近没胃口", GENERAL),
    ("feeding: eats less than before", "宝宝饭量减少了", GENERAL),
    ("spirits: feels unwell", "孩子今天一直喊难受", GENERAL),
    ("spirits: fretful", "闺女这两天特别烦躁", GENERAL),
    ("pain: belly", "孩子说肚子有点疼", GENERAL),
    ("pain: head", "儿子头疼", GENERAL),
    ("pain in English", "my daughter has a headache", GENERAL),
    ("urine: foamy", "孩子尿有泡沫", "symptom.urine"),
    ("urine: painful", "女儿小便疼", "symptom.urine"),
    ("bleeding: gums", "孩子刷牙牙龈出血", "symptom.bleeding"),
    ("bleeding: a grazed knee", "女儿膝盖摔破流血了", "symptom.bleeding"),
    ("skin: a red rash", "宝宝身上起了红疹", "symptom.skin"),
    ("skin: itching", "孩子皮肤很痒", "symptom.skin"),
    ("movements: trembling hands", "女儿的手在发抖", "symptom.movements"),
    ("movements: one jerk in sleep", "孩子睡着了抖了一下", "symptom.movements"),
    ("dialysis: a red exit site", "孩子腹透出口处发红", "symptom.dialysis"),
    ("dialysis: a sore fistula", "内瘘那里有点疼", "symptom.dialysis"),
    ("transplant: the graft area feels full", "孩子移植肾区胀胀的", "symptom.transplant"),
    ("transplant: a rejection suspected", "医生说孩子可能有排异", "symptom.transplant"),
    ("a question about the child's symptom asks", "孩子发烧了能吃鸡蛋吗", GENERAL),
    ("a fever that keeps coming back in the evening asks", "一到傍晚就烧起来", GENERAL),
    ("a symptom told as an event under a question's cue", "宝宝会不会是牙龈弄出血了呢", "symptom.bleeding"),
]

# Breathing and swelling: the plain words parents use are mostly soft red-flag terms already (有点喘,
# 脸肿: their severity question comes first); these are the family's own.
ASKS += [
    ("breathing: wheezing in English", "my son is wheezing", "symptom.breathing"),
    ("breathing: out of breath after running", "宝宝跑完步就喘", "symptom.breathing"),
    ("breathing in toneless pinyin", "haizi qichuan", "symptom.breathing"),
    ("swelling: puffy", "孩子这两天有点浮肿", "symptom.swelling"),
    ("swelling: weight gained fast", "宝宝体重涨得很快", "symptom.swelling"),
]

# SPEC §4.7 revision 3: fever alone — however high or long — asks, it does not halt (these halted as
# persistent_fever before).
FEVER = [
    ("a high fever that will not come down", "高烧不退三天了"),
    ("a fever that has not broken", "烧一直没退"),
    ("antipyretics do nothing", "孩子吃了退烧药没效果，还是40度"),
    ("a low fever that comes back", "孩子低烧反复"),
    ("a high fever that comes back", "宝宝高烧反复"),
    ("fever all along", "孩子一直发烧"),
    ("a lingering low fever", "这两天低烧不退，用不用去医院"),
    ("recurring fever under five days", "孩子反复发烧3天了"),
    ("fever for six days", "宝宝反复发烧6天，怎么老不见好"),
    ("fever five days to today", "宝宝从周六开始发烧到今天整整五天了"),
    ("a temperature not coming down", "晚上八点开始发烧，到早上温度一直未降"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in ASKS], ids=[r[0] for r in ASKS])
def test_a_current_symptom_of_the_child_asks_its_family(router: Router, policy, text, concept):
    asks_the_family(router, policy, text, concept)


@pytest.mark.parametrize("text", [r[1] for r in FEVER], ids=[r[0] for r in FEVER])
def test_fever_however_long_asks_and_never_halts_alone(router: Router, policy, text):
    asks_the_family(router, policy, text, GENERAL)


HALTS = [
    # id, text, the concept that halts: fever beside a hard sign, in a young infant, after a transplant
    ("fever beside a seizure", "孩子发烧，还抽搐了", "seizure"),
    ("fever in a twenty-day-old", "宝宝出生20天，发烧了", "infant_fever"),
    ("fever after a kidney transplant", "孩子肾移植后发烧了", "transplant_alert"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in HALTS], ids=[r[0] for r in HALTS])
def test_fever_halts_beside_a_hard_sign_in_an_infant_or_after_a_transplant(router: Router, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status == "halt" and concept in {f.concept for f in result.red_flags if f.context == "current"}


NOT_A_MENTION = [
    # id, text: no current symptom of the patient; nothing asks
    ("negated fever", "孩子没有发烧"),
    ("negated diarrhoea", "宝宝没拉肚子"),
    ("negated cough, said 也没", "这几天也没咳嗽"),
    ("a past fever", "孩子去年发烧过"),
    ("a past rash", "宝宝小时候起过湿疹"),
    ("another person's cough", "我妈最近咳嗽"),
    ("another family's child's fever", "邻居家孩子发烧了"),
    ("a general question about fever's causes", "发烧的原因有哪些"),
    ("a general question about diarrhoea's cause", "拉肚子是什么原因"),
    ("a worry with no event", "很担心的是高烧不退"),
    ("blood drawn is no bleeding", "孩子抽血查了血常规"),
    ("a urine test is no urine symptom", "孩子尿常规有尿蛋白"),
    ("a pressure reading is no bleeding", "孩子血压偏高"),
    ("braised pork is no fever", "红烧肉能吃吗"),
    ("a video app is no tremor", "抖音上说的"),
    ("a tumour is no swelling", "肿瘤科的医生说的"),
    ("feverfew is no fever (whole words)", "my son has a feverfew tea"),
    ("pinyin that names something else: 留学", "wo xiang qu liuxue"),
    ("an English word that is pinyin too: a bus fare", "the bus fare went up"),
    ("handling a PD bag names nothing wrong", "腹透液混合好了再加热"),
    ("how to tell fast breathing", "呼吸快不快怎么看"),
    ("bed-wetting is rare", "孩子现在很少尿床了"),
]

# Kidney-nutrition questions that name no symptom (SPEC §4.7 revision 3: at most 3 % of them ask;
# none of ours does).
NUTRITION = [
    ("protein in the urine and eggs", "尿蛋白高能吃鸡蛋吗"),
    ("uric acid and milk", "尿酸高的孩子能喝牛奶吗"),
    ("high potassium and bananas", "血钾高能吃香蕉吗"),
    ("creatinine and diet", "孩子血肌酐偏高饮食要注意什么"),
    ("salt in nephrotic syndrome", "肾病综合征的孩子每天吃多少盐"),
    ("fluid on dialysis", "透析的孩子一天喝多少水"),
    ("protein on PD", "孩子做腹透，蛋白质怎么补"),
    ("grapefruit after a transplant", "肾移植后能吃柚子吗"),
    ("a urine test result", "孩子查了尿常规，结果正常"),
    ("blood tests", "抽血查了血常规和血钾"),
    ("a diet for high blood pressure", "血压偏高的孩子饮食怎么安排"),
    ("low-phosphorus foods", "低磷饮食有哪些食物"),
    ("calcium a day", "孩子每天补多少钙"),
    ("soy milk", "能喝豆浆吗"),
    ("seafood", "孩子可以吃海鲜吗"),
    ("nuts in CKD stage three", "慢性肾病三期的孩子能吃坚果吗"),
    ("fruit on PD", "腹透的孩子能吃水果吗"),
    ("urea and food", "尿素氮高吃什么好"),
    ("iron for low haemoglobin", "孩子血红蛋白低，补铁吃什么"),
    ("microalbumin and formula", "尿微量白蛋白高能喝奶粉吗"),
    ("potassium with a diuretic", "利尿剂吃了要补钾吗"),
    ("rice and blood sugar", "血糖偏高能吃米饭吗"),
    ("eggs during steroids", "孩子吃激素期间能吃鸡蛋吗"),
    ("low-salt cooking", "低盐饮食怎么做好吃"),
    ("sodium in soy sauce", "酱油里钠多吗"),
    ("soup with kidney failure", "孩子肾功能不全能喝汤吗"),
    ("a week's menu", "帮我安排一周的食谱"),
    ("braised dishes", "红烧的菜能吃吗"),
    ("nappies", "纸尿裤要换多勤"),
    ("a dialysis day's meals", "透析那天饭怎么吃"),
]


@pytest.mark.parametrize("text", [r[1] for r in NOT_A_MENTION + NUTRITION], ids=[r[0] for r in NOT_A_MENTION + NUTRITION])
def test_no_current_symptom_of_the_patient_asks_nothing(router: Router, text):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status not in ("halt", "confirm"), result.red_flags
    assert not [f for f in result.red_flags if f.concept.startswith("symptom.")]


# Every family both ways: negated, another person's or past, it asks no symptom question (a red flag
# of the same words may still ask whether it is happening now: 我姐姐脚踝肿了 is severe_edema's).
NOT_THE_CHILDS_NOW = [
    ("vomiting negated", "孩子今天没有呕吐"),
    ("vomiting, another family's child", "邻居家小孩老想吐"),
    ("diarrhoea negated", "宝宝没有腹泻"),
    ("diarrhoea, a colleague's", "我同事这两天拉肚子"),
    ("cough family: a past pneumonia", "女儿前年得过肺炎"),
    ("cough family: a husband's cold", "我老公感冒了"),
    ("feeding negated", "孩子最近没有食欲下降"),
    ("feeding, a mother's", "我妈最近没胃口"),
    ("spirits negated", "孩子没有不舒服"),
    ("spirits, a father's", "我爸这几天很累"),
    ("pain negated", "孩子没有肚子疼"),
    ("pain, a wife's", "我老婆头疼"),
    ("breathing negated", "孩子没有喘"),
    ("breathing, a colleague's child", "同事的孩子晚上喘得很"),
    ("urine negated", "孩子没有尿频"),
    ("urine, a friend's daughter", "朋友的女儿尿里有泡沫"),
    ("swelling negated", "孩子没有浮肿"),
    ("swelling, a sister's", "我姐姐脚踝肿了"),
    ("swelling in the past", "孩子以前腿肿过"),
    ("bleeding negated", "孩子没有流血"),
    ("bleeding, a classmate's", "我同学牙龈出血"),
    ("skin negated", "孩子身上没有红疹"),
    ("skin, a cousin's", "表哥起了疹子"),
    ("skin in the past", "去年孩子出过疹子"),
    ("movements negated", "孩子没有发抖"),
    ("movements, a grandmother's", "奶奶的手一直发抖"),
    ("dialysis negated", "孩子的腹透出口处没有发红"),
    ("dialysis, a neighbour's child", "邻居家孩子内瘘那里有点疼"),
    ("transplant negated", "孩子没有排异"),
    ("transplant, a relative's child", "亲戚家孩子有排异"),
]


@pytest.mark.parametrize("text", [r[1] for r in NOT_THE_CHILDS_NOW], ids=[r[0] for r in NOT_THE_CHILDS_NOW])
def test_a_symptom_not_of_the_child_now_asks_no_symptom_question(router: Router, text):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status != "halt" and result.reason_code != "p0_confirm_symptom", result.red_flags
    assert not [f for f in result.red_flags if f.concept.startswith("symptom.")]


def test_another_persons_symptom_is_the_patients_for_the_child_companion(router: Router, policy):
    asks_the_family(router, policy, "我发烧了", GENERAL, caller="child_companion")
    assert router.route_request("我发烧了", PARENT, "P0001").status not in ("halt", "confirm")


STANDS_FOR = [
    # id, text, the general danger sign whose severity question asks first
    ("poor spirits", "孩子发烧，精神不好", "lethargy"),
    ("not drinking milk", "孩子发烧，不喝奶", "unable_to_drink"),
    ("vomits after eating", "孩子发烧，吃了就吐", "vomits_everything"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in STANDS_FOR], ids=[r[0] for r in STANDS_FOR])
def test_acknowledging_general_answers_the_general_danger_signs(router: Router, text, concept):
    first = router.route_request(text, PARENT, "P0001")
    # one turn: the sign's own severity question, then the general one beside it
    assert (first.status, first.reason_code, [q.concept for q in first.severity_questions]) == (
        "confirm", "p0_confirm_severity", [concept, GENERAL])
    # the severity answered alone leaves the symptom's question
    then = router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[concept])
    assert (then.status, then.reason_code) == ("confirm", "p0_confirm_symptom")
    # symptom.general answered stands for the soft general sign too
    done = router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[GENERAL])
    assert done.status not in ("halt", "confirm"), done.red_flags
    assert router.check_safety_gate(text, PARENT, acknowledged_red_flags=[GENERAL]).gate not in ("P0_EMERGENCY", "P0_CONFIRM")


def test_general_does_not_answer_a_breathing_sign(router: Router):
    result = router.route_request("孩子发烧，有点喘", PARENT, "P0001", acknowledged_red_flags=[GENERAL])
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity")
    # the breathing family's question answers respiratory_distress's: asked beside it, once
    assert [q.concept for q in result.severity_questions] == ["respiratory_distress", "symptom.breathing"]
    done = router.route_request("孩子咳嗽，有点喘", PARENT, "P0001", acknowledged_red_flags=[GENERAL, "symptom.breathing"])
    assert done.status not in ("halt", "confirm"), done.red_flags


def test_movements_keep_their_own_question(router: Router, policy):
    text = "孩子发烧，手一直抖"
    first = router.route_request(text, PARENT, "P0001")
    assert [q.concept for q in first.severity_questions] == [GENERAL, "symptom.movements"]  # one turn, both
    again = router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[GENERAL])
    assert (again.status, again.reason_code) == ("confirm", "p0_confirm_symptom")
    assert [(q.concept, q.question) for q in again.severity_questions] == [
        ("symptom.movements", policy.red_flags.severity_questions["symptom.movements"])]


def test_order_severity_then_symptom_then_current(router: Router):
    text = "孩子发烧了，以前便血过"
    first = router.route_request(text, PARENT, "P0001")
    assert first.reason_code == "p0_confirm_symptom"
    second = router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[GENERAL])
    assert second.reason_code == "p0_confirm_current"
    assert router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[GENERAL, "gi_bleeding"]).status not in (
        "halt", "confirm")


ANSWERED_NOW = [
    # id, text with a non-current mention, what still asks without the general acknowledgement
    ("a past fit", "孩子发烧了，以前抽搐过", "seizure"),
    ("no hard breathing", "孩子咳嗽，没有呼吸困难", "respiratory_distress"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in ANSWERED_NOW], ids=[r[0] for r in ANSWERED_NOW])
def test_the_general_no_answers_whether_a_fit_or_hard_breathing_is_happening_now(router: Router, text, concept):
    # the general question asks whether the child has had a fit or breathes hard now: a no answers a
    # non-current mention of either, as acknowledging it would
    assert concept in [f.concept for f in router.route_request(text, PARENT, "P0001").red_flags]
    assert router.route_request(text, PARENT, "P0001", acknowledged_red_flags=[GENERAL]).status not in ("halt", "confirm")
    # without that no, the mention asks whether it is happening now
    alone = text.split("，", 1)[1]
    assert router.route_request(alone, PARENT, "P0001").reason_code == "p0_confirm_current"


def test_the_general_no_never_lifts_a_current_fit(router: Router):
    result = router.route_request("孩子发烧，刚才抽搐了", PARENT, "P0001", acknowledged_red_flags=[GENERAL])
    assert (result.status, result.reason_code) == ("halt", "p0_emergency")


def test_an_unknown_caller_is_denied_before_the_symptom_is_asked(router: Router):
    result = router.route_request("宝宝今天发烧了", "somebody", "P0001")
    assert (result.status, result.reason_code) == ("denied", "caller_unknown")


SYMPTOM_ERRORS = [
    ("an unknown family id", {"acknowledged_red_flags": ["symptom.nothing"]}, "acknowledged_red_flags"),
    ("an unknown confirmed family id", {"confirmed_red_flags": ["symptom.nothing"]}, "confirmed_red_flags"),
    ("a family both acknowledged and confirmed",
     {"acknowledged_red_flags": [GENERAL], "confirmed_red_flags": [GENERAL]}, "confirmed_red_flags"),
]


@pytest.mark.parametrize(("extra", "field"), [r[1:] for r in SYMPTOM_ERRORS], ids=[r[0] for r in SYMPTOM_ERRORS])
def test_symptom_ids_are_checked_like_concept_ids(router: Router, extra, field):
    with pytest.raises(ArgumentError) as raised:
        router.call("route_request", {"text": "宝宝今天发烧了", "caller": PARENT, **extra})
    assert raised.value.field == field


def test_every_symptom_id_is_accepted_by_the_tools(router: Router):
    result = router.call("route_request", {"text": "宝宝今天发烧了", "caller": PARENT, "patient_id": "P0001",
                                           "acknowledged_red_flags": list(SYMPTOM_IDS)})
    assert result.status not in ("halt", "confirm")


def test_the_schemas_name_the_policys_symptom_ids_and_the_reason_code(policy):
    assert set(SYMPTOM_IDS) == policy.red_flags.symptom_concepts
    schema = str(RouteResult.model_json_schema())
    assert "p0_confirm_symptom" in schema
