"""Kidney danger signs in parents' words (SPEC §3.5 "Kidney danger signs (revision 2)", §4.7).

A table of our own (real parent texts about dialysis and transplants are rare in the public data):
for each sign several parent phrasings, each written five ways — happening now (halts; a soft sign
asks its severity question), in the past, negated, of another person, and as a knowledge question
(these ask, never halt) — plus look-alike non-emergencies (never halt). Clinical sources: ISPD
peritonitis guideline, KDIGO transplant care, AAP 2017 paediatric blood pressure, NICE NG143.
"""

from __future__ import annotations

import pytest

from app.router import Router

PARENT = "parent_assistant"

# concept → parent phrasings of the sign (each a mention the policy knows)
SIGNS: dict[str, list[str]] = {
    "pd_peritonitis": ["腹透液浑浊", "腹透液发浑", "腹透液像淘米水", "腹透液有絮状物", "出口处流脓", "管口化脓", "透出液浑浊",
                       "腹透液不清"],
    "dialysis_access": ["内瘘一直渗血", "内瘘出血不止", "穿刺点出血不止", "内瘘不震了", "透析时寒战", "透析后发烧", "针眼一直渗血"],
    "transplant_alert": ["移植肾疼", "移植肾区痛", "急性排斥", "移植肾肿痛", "换肾后发高烧", "移植后尿变少"],
    "hypertensive_emergency": ["血压很高", "血压降不下来", "血压高得吓人", "高血压危象", "血压突然升高"],
    "fluid_overload": ["不能平躺", "躺下就喘", "咳粉红色泡沫痰", "只能坐着睡", "端坐呼吸", "肿得气短"],
    "hypocalcemic_tetany": ["手足搐搦", "口周发麻", "鸡爪手", "手指抽筋伸不开", "嘴巴周围发麻"],
    "gi_bleeding": ["吐咖啡色", "大便像柏油", "拉黑色的便", "呕血"],
    "anuria": ["一滴尿都没有", "一整天没小便", "一天都没尿", "一点尿都没有", "尿不湿一直是干的", "纸尿裤一天都是干的"],
    "altered_consciousness": ["不认人", "说胡话", "胡言乱语", "认不出人"],
}
# In nephrotic syndrome only (the concept's `only_with`): the text names it.
NEPHROTIC = ["肚子疼还发烧", "腿突然肿得发紫", "手脚冰凉头晕", "腹痛发热", "一条腿突然肿"]
# Blood-pressure readings at or above the child limits (160/105; 180/120 at any age).
READINGS = ["血压175/115", "高压185", "血压170/110", "低压125", "收缩压190", "血压180多"]

NOW = ["孩子{s}，怎么办", "宝宝刚才{s}", "儿子今天早上{s}", "女儿在姥姥家{s}"]
LOOK_ALIKES = {
    "past": "孩子以前{s}过，现在能吃香蕉吗",
    "negated": "孩子没有{s}，能吃香蕉吗",
    "other person": "我同事的孩子{s}，我家孩子能吃香蕉吗",
    "knowledge question": "{s}是什么原因",
}


def _rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for concept, phrasings in SIGNS.items():
        for n, s in enumerate(phrasings):
            rows.append((f"{concept} now: {s}", NOW[n % len(NOW)].format(s=s), concept, "halt"))
            for kind, template in LOOK_ALIKES.items():
                rows.append((f"{concept} {kind}: {s}", template.format(s=s), concept, "ask"))
    for n, s in enumerate(NEPHROTIC):
        rows.append((f"nephrotic_complication now: {s}", f"孩子肾病综合征，{NOW[n % len(NOW)].format(s=s)}",
                     "nephrotic_complication", "halt"))
        rows.append((f"nephrotic_complication past: {s}", f"孩子肾病综合征，以前{s}过，现在能吃香蕉吗", "nephrotic_complication", "ask"))
        rows.append((f"nephrotic_complication other person: {s}", f"我同事的孩子肾病综合征，{s}", "nephrotic_complication", "ask"))
        rows.append((f"nephrotic_complication knowledge question: {s}", f"肾病综合征{s}是什么原因", "nephrotic_complication", "ask"))
        rows.append((f"nephrotic_complication needs the syndrome named: {s}", f"孩子{s}，能吃香蕉吗", "", "not_that_concept"))
    for n, s in enumerate(READINGS):
        rows.append((f"hypertensive_emergency value now: {s}", f"孩子{s}，头疼", "hypertensive_emergency", "halt"))
        rows.append((f"hypertensive_emergency value past: {s}", f"孩子上个月{s}，现在正常了，能吃香蕉吗", "hypertensive_emergency", "ask"))
        rows.append((f"hypertensive_emergency value if: {s}", f"如果孩子{s}怎么办", "hypertensive_emergency", "ask"))
        rows.append((f"hypertensive_emergency value other person: {s}", f"我爸{s}，孩子能吃香蕉吗", "hypertensive_emergency", "ask"))
    return rows


SOFT = [
    ("hypocalcemic_tetany soft: a hand cramp asks", "孩子透析完手抽筋", "hypocalcemic_tetany"),
    ("anuria soft: less urine asks", "孩子腹透以后尿少", "anuria"),
    ("shock soft: cold hands asks", "孩子手脚冰凉", "shock"),
    ("respiratory_distress soft: a little breathless asks", "孩子水肿，有点喘", "respiratory_distress"),
    # issue 20 vocabulary: the mild forms a dialysis or nephrotic child's parent writes
    ("anuria soft: less urine than before dialysis asks", "孩子开始腹透以后尿没以前多", "anuria"),
    ("anuria soft: urine less than usual asks", "肾病复发了，小便比平常少", "anuria"),
    ("anuria soft: urine volume down asks", "换肾后尿量有所减少", "anuria"),
    ("lethargy soft: spirits worse after a session asks", "透析完孩子精神没以前好", "lethargy"),
    ("shock soft: pale after a session asks", "孩子透析后脸色苍白", "shock"),
    ("vomits_everything soft: vomited twice on dialysis asks", "孩子腹透期间今天吐了两次", "vomits_everything"),
]

# Non-emergencies that look like kidney emergencies: never halt (a history word is context only).
BENIGN = [
    ("peritoneal dialysis for two years, a food question", "孩子腹透两年了，能吃香蕉吗"),
    ("after a transplant, a food question", "孩子肾移植术后能吃柚子吗"),
    ("clear effluent", "今天腹透液很清亮"),
    ("a fistula operation question", "内瘘手术后多久能用"),
    ("a normal child blood pressure", "孩子血压120/80"),
    ("a blood pressure under the child limit", "孩子血压130/85，能吃香蕉吗"),
    ("a pressure cooker", "高压锅炖排骨180度可以吗"),
    ("weight lost after dialysis", "透析后体重掉了1公斤"),
    ("nephrotic syndrome, a food question", "孩子肾病综合征，能吃鸡蛋吗"),
    ("tacrolimus after a transplant", "肾移植后吃他克莫司要注意什么"),
    ("the drained volume", "今天腹透放出来的水有1200毫升"),
    ("a fistula that thrills well", "内瘘震颤很好"),
    ("an adult's blood pressure under 180/120", "我爸血压165/100，孩子能吃香蕉吗"),
    ("dialysis schedule", "孩子每周透析三次，饮食要注意什么"),
    ("a transplant clinic visit", "换肾以后多久复查一次"),
    ("urine volume of a dialysis child", "孩子一天尿量大概500毫升"),
    # issue 20 vocabulary: good news and lab words beside the new urine phrasings
    ("urine protein lower than before", "孩子吃了激素以后尿蛋白比以前少了"),
    ("urine protein not as high as before", "尿蛋白没以前多了，能吃鸡蛋吗"),
    ("more urine after a transplant", "换肾以后尿比以前多了"),
    ("urine output as before", "肾病孩子尿量和以前差不多"),
    ("a dry nappy changed in the morning", "早上换下来的尿不湿很重"),
]


@pytest.mark.parametrize(("text", "concept", "expected"), [r[1:] for r in _rows()], ids=[r[0] for r in _rows()])
def test_kidney_sign(router: Router, text, concept, expected):
    result = router.route_request(text, PARENT, "P0001")
    concepts = {f.concept for f in result.red_flags}
    if expected == "halt":
        assert result.status == "halt" and concept in concepts, (result.status, result.red_flags)
    elif expected == "ask":
        assert result.status == "confirm" and concept in concepts, (result.status, result.red_flags)
    else:
        assert "nephrotic_complication" not in concepts and result.status != "halt", result.red_flags


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in SOFT], ids=[r[0] for r in SOFT])
def test_kidney_soft_sign_asks_its_severity_question(router: Router, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity")
    assert concept in [q.concept for q in result.severity_questions]


@pytest.mark.parametrize("text", [r[1] for r in BENIGN], ids=[r[0] for r in BENIGN])
def test_kidney_look_alike_never_halts(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status != "halt"


def test_the_table_is_large_enough():
    assert len(_rows()) + len(SOFT) + len(BENIGN) >= 150
