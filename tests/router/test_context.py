"""Red flags in context (SPEC §4.7): every example of the section and its fine print, both ways.

Each row: an id that reads like the spec, the text, the caller (None: classify_intent, which has
no caller), and the expected ``(concept, context)`` of each red-flag mention in text order. A row
whose expectation is ``[]`` proves that a word is *not* a red flag. Rows come in pairs where a rule
can refuse: the cue applies / the cue does not reach.
"""

from __future__ import annotations

import tomllib

import pytest

from app.router.analysis import analyze
from app.router.policy import default_policy_bytes

PARENT, CHILD = "parent_assistant", "child_companion"
CUR, NEG, OTH, HIS, HYP = "current", "negated", "other_person", "historical", "hypothetical"
SZ, AC, LE, RD, AN, GI, IF = (
    "seizure", "altered_consciousness", "lethargy", "respiratory_distress", "anuria", "gi_bleeding", "infant_fever",
)

ROWS = [
    # --- the section's own examples ------------------------------------------------------------
    ("§4.7 past fever seizure, now a food question: historical", "孩子以前有过高热惊厥，现在能吃香蕉吗", PARENT, [(SZ, HIS)]),
    ("§4.7 sister's child: other person", "我姐姐家的孩子经常抽搐", PARENT, [(SZ, OTH)]),
    ("§4.7 also no breathing difficulty: negated", "这一整晚都没有咳嗽，也没有呼吸困难", PARENT, [(RD, NEG)]),
    ("§4.7 when a fit comes, foam at the mouth?: hypothetical", "癫痫发作的时候会口吐白沫吗", PARENT, [(SZ, HYP)]),
    ("§4.7 blood-streaked stool: current", "大便带血丝", PARENT, [(GI, CUR)]),
    ("§4.7 sleeping all the time: current", "一直昏睡", PARENT, [(LE, CUR)]),
    ("§4.7 the later time cue ends 之前's scope", "之前好好的，刚才突然昏迷", PARENT, [(AC, CUR)]),
    ("§4.7 past then today again: the second halts", "孩子以前抽搐过，今天又抽搐了", PARENT, [(SZ, HIS), (SZ, CUR)]),
    ("§4.7 突然 is manner, not time: still historical", "前两天她突然口吐白沫", PARENT, [(SZ, HIS)]),
    ("§4.7 if it convulses, what then: hypothetical", "如果抽搐了怎么办", PARENT, [(SZ, HYP)]),
    ("§4.7 no seizure, but cannot be woken: current", "没有抽搐，但是一直叫不醒", PARENT, [(SZ, NEG), (AC, CUR)]),
    ("§4.7 my dad says the child just convulsed: current", "我爸说孩子刚才抽搐了", PARENT, [(SZ, CUR)]),
    ("§4.7 my dad convulsed: other person", "我爸刚才抽搐了", PARENT, [(SZ, OTH)]),
    # --- subjects: a younger sibling is the patient (fail safe), an elder one another person -----
    ("subject: my little brother convulsed just now: current", "我弟弟刚才抽搐了", PARENT, [(SZ, CUR)]),
    ("subject: my little sister is lethargic: current", "妹妹今天一直昏睡", PARENT, [(LE, CUR)]),
    ("subject: my elder brother convulsed: other person", "我哥刚才抽搐了", PARENT, [(SZ, OTH)]),
    # --- stroke signs: a drooping mouth corner with words between, a palsy in the past ------------
    ("stroke signs: mouth corner a little crooked: current", "今早脸的右边动不了，口角还有点斜", PARENT, [("stroke_signs", CUR)]),
    ("stroke signs: facial palsy years ago: historical", "孩子三年前得过面瘫，现在能吃鱼吗", PARENT, [("stroke_signs", HIS)]),
    ("stroke signs: 口角 without a droop is no red flag", "口角炎能吃橘子吗", PARENT, []),
    # --- pseudo-negations and terms that say "no" ----------------------------------------------
    ("pseudo 不停", "不停地抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不断", "不断抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不止", "抽搐不止", PARENT, [(SZ, CUR)]),
    ("pseudo 不止 before the mention", "不止抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 止不住", "止不住抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 停不下来", "停不下来抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不退 before the mention", "不退还抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不醒", "不醒还抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不了", "受不了抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不过来 (not the contrast 不过)", "缓不过来抽搐", PARENT, [(SZ, CUR)]),
    ("pseudo 不出来", "哭不出来抽搐", PARENT, [(SZ, CUR)]),
    ("a bare 不 before the same mention negates", "不抽搐", PARENT, [(SZ, NEG)]),
    ("term that says no: 无尿", "无尿", PARENT, [(AN, CUR)]),
    ("term that says no: 没有尿 before a clause end", "孩子没有尿了", PARENT, [(AN, CUR)]),
    ("term that says no: 尿不出来", "尿不出来", PARENT, [(AN, CUR)]),
    ("term that says no: 叫不醒", "叫不醒", PARENT, [(AC, CUR)]),
    ("term that says no: 没反应", "孩子没反应", PARENT, [(AC, CUR)]),
    ("a claim about the situation is not a cue: 不 too far", "这不是紧急情况：孩子抽搐", PARENT, [(SZ, CUR)]),
    ("不 right before the term negates", "这不是抽搐", PARENT, [(SZ, NEG)]),
    # --- negation ----------------------------------------------------------------------------
    ("negation 没有", "没有抽搐", PARENT, [(SZ, NEG)]),
    ("negation 没", "没抽搐", PARENT, [(SZ, NEG)]),
    ("negation 无", "无抽搐", PARENT, [(SZ, NEG)]),
    ("negation 未", "未抽搐", PARENT, [(SZ, NEG)]),
    ("negation 未见", "未见抽搐", PARENT, [(SZ, NEG)]),
    ("negation 并无", "并无抽搐", PARENT, [(SZ, NEG)]),
    ("negation 否认", "否认抽搐", PARENT, [(SZ, NEG)]),
    ("negation 也没", "也没抽搐", PARENT, [(SZ, NEG)]),
    ("negation 没再", "后来没再抽搐", PARENT, [(SZ, NEG)]),
    ("negation 不再", "不再抽搐", PARENT, [(SZ, NEG)]),
    # SPEC §4.7 revision 2 "A negation governs only what it touches": only filler between (咳 is not).
    ("negation reaches 4 characters of filler", "没有出现任何抽搐", PARENT, [(SZ, NEG)]),
    ("rev2: a non-filler word ends the negation", "没有发烧也不咳抽搐", PARENT, [(SZ, CUR)]),
    ("negation does not reach 5 characters", "没有咳嗽吐痰和抽搐", PARENT, [(SZ, CUR)]),
    ("negation stays in its clause", "没有发烧，抽搐", PARENT, [(SZ, CUR)]),
    ("negation covers the next mention only", "没有昏迷抽搐", PARENT, [(AC, NEG), (SZ, CUR)]),
    ("negation carries along an enumeration", "没有抽搐、呕吐或昏迷", PARENT, [(SZ, NEG), (AC, NEG)]),
    ("negation carries over 和 and 及", "没有抽搐和便血及昏迷", PARENT, [(SZ, NEG), (GI, NEG), (AC, NEG)]),
    ("enumeration item over 4 characters stops the carry", "没有抽搐、咳嗽发热流鼻涕或昏迷", PARENT, [(SZ, NEG), (AC, CUR)]),
    ("是不是 is not a negation", "孩子是不是抽搐了", PARENT, [(SZ, CUR)]),
    ("有没有 is not a negation", "有没有抽搐", PARENT, [(SZ, CUR)]),
    ("能不能 is not a negation", "能不能抽搐", PARENT, [(SZ, CUR)]),
    ("要不要 is not a negation", "要不要紧抽搐", PARENT, [(SZ, CUR)]),
    ("不知道 is not a negation", "不知道抽搐了多久", PARENT, [(SZ, CUR)]),
    ("不由自主 is not a negation", "不由自主地抽搐", PARENT, [(SZ, CUR)]),
    ("不自觉 is not a negation", "不自觉抽搐", PARENT, [(SZ, CUR)]),
    ("X不X is not a negation", "要睡不睡嗜睡", PARENT, [(LE, CUR)]),
    # --- time: now and past ---------------------------------------------------------------------
    *[(f"past {cue}", f"孩子{cue}抽搐", PARENT, [(SZ, HIS)]) for cue in (
        "以前", "之前", "曾经", "曾", "既往", "过去", "上次", "那次", "有一次", "有过", "前天", "前两天", "前几天",
        "前段时间", "上周", "上个月", "去年", "前年", "3天前", "几天前", "两天前", "一年多前", "两周前", "三个月前",
        "半年前", "小时候", "从小", "当时",
    )],
    ("N天前 needs N ≥ 2", "孩子1天前抽搐", PARENT, [(SZ, CUR)]),
    ("一天前 is not a past cue either", "孩子一天前抽搐", PARENT, [(SZ, CUR)]),
    *[(f"now {cue} ends a past scope", f"以前很好，{cue}抽搐", PARENT, [(SZ, CUR)]) for cue in (
        "现在", "正在", "目前", "刚才", "刚刚", "今天", "今早", "今晚", "昨天", "昨晚", "昨夜", "这两天", "这几天",
        "最近", "近几天",
    )],
    ("past after-cue 过 right after the term", "孩子抽搐过", PARENT, [(SZ, HIS)]),
    ("past after-cue 史", "有惊厥史", PARENT, [(SZ, HIS)]),
    ("past after-cue 病史", "高热惊厥病史", PARENT, [(SZ, HIS)]),
    ("past after-cue with 1 character between", "惊厥的病史", PARENT, [(SZ, HIS)]),
    ("past after-cue too far", "抽搐很多年的病史", PARENT, [(SZ, CUR)]),
    ("past scope ends at the sentence end", "以前很好。抽搐了", PARENT, [(SZ, CUR)]),
    ("past scope ends at a newline", "以前很好\n抽搐了", PARENT, [(SZ, CUR)]),
    ("past scope ends at an ASCII full stop", "以前很好. 抽搐了", PARENT, [(SZ, CUR)]),
    ("past scope crosses a comma", "以前身体不好，抽搐", PARENT, [(SZ, HIS)]),
    ("past scope ends at a contrast", "以前很好，但抽搐了", PARENT, [(SZ, CUR)]),
    ("和之前 is a comparison, not a cue", "和之前一样，一直在昏睡", PARENT, [(LE, CUR)]),
    ("比之前 is a comparison", "比之前更嗜睡", PARENT, [(LE, CUR)]),
    ("跟以前 is a comparison", "跟以前一样嗜睡", PARENT, [(LE, CUR)]),
    ("较之前 is a comparison", "较之前嗜睡", PARENT, [(LE, CUR)]),
    ("之前 alone is past", "之前嗜睡", PARENT, [(LE, HIS)]),
    # --- hypothetical -----------------------------------------------------------------------------
    *[(f"hypothetical {cue} to the sentence end", f"{cue}发烧了，抽搐怎么办", PARENT, [(SZ, HYP)]) for cue in (
        "如果", "万一", "假如", "要是", "假设",
    )],
    ("hypothetical scope ends at the sentence end", "如果发烧了怎么办？孩子抽搐了", PARENT, [(SZ, CUR)]),
    *[(f"hypothetical {cue} to the clause end", f"{cue}抽搐", PARENT, [(SZ, HYP)]) for cue in (
        "会不会", "担心", "害怕", "怕", "预防", "严重的时候", "发作的时候",
    )],
    ("hypothetical clause cue ends at the comma", "担心发烧，孩子抽搐了", PARENT, [(SZ, CUR)]),
    ("会不会 is one cue, not 不", "会不会抽搐", PARENT, [(SZ, HYP)]),
    ("可怕 is not 怕", "可怕的是抽搐了", PARENT, [(SZ, CUR)]),
    ("恐怕 is not 怕", "恐怕是惊厥", PARENT, [(SZ, CUR)]),
    ("哪怕 is not 怕", "哪怕抽搐", PARENT, [(SZ, CUR)]),
    *[(f"hypothetical after-cue {cue}", f"抽搐{cue}", PARENT, [(SZ, HYP)]) for cue in (
        "会导致", "会引起", "有哪些症状", "是什么原因", "的原因", "怎么预防", "怎么区分", "怎么治疗", "能治好吗", "哪家医院",
    )],
    ("hypothetical after-cue too far", "抽搐了好几次会导致什么", PARENT, [(SZ, CUR)]),
    ("this is only a hypothesis: now beats it", "这只是假设：孩子正在抽搐", PARENT, [(SZ, CUR)]),
    ("if the child is convulsing now: fail safe", "如果孩子正在抽搐", PARENT, [(SZ, CUR)]),
    # --- habitual --------------------------------------------------------------------------------
    *[(f"habitual {cue}", f"孩子{cue}抽搐", PARENT, [(SZ, HYP)]) for cue in ("每次", "经常", "总是", "老是", "有时", "偶尔")],
    ("habitual 一…就", "一发烧就抽搐", PARENT, [(SZ, HYP)]),
    ("一 + a measure word is not 一…就", "一个晚上就抽搐了三次", PARENT, [(SZ, CUR)]),
    ("habitual scope ends at the clause", "经常感冒，抽搐了", PARENT, [(SZ, CUR)]),
    ("a now cue in the sentence cancels habitual", "这两天哭的时候经常喘不上气来", PARENT, [(RD, CUR)]),
    ("without it the cue is habitual", "哭的时候经常喘不上气来", PARENT, [(RD, HYP)]),
    ("总是感觉 is not habitual", "总是感觉孩子嗜睡", PARENT, [(LE, CUR)]),
    ("老是觉得 is not habitual", "老是觉得孩子嗜睡", PARENT, [(LE, CUR)]),
    # --- manner and contrast ----------------------------------------------------------------------
    *[(f"manner {cue} is current", f"孩子{cue}抽搐", PARENT, [(SZ, CUR)]) for cue in (
        "突然", "又", "再次", "一直", "持续", "已经", "还在", "越来越",
    )],
    ("manner 了 right after the term", "抽搐了", PARENT, [(SZ, CUR)]),
    ("manner does not end a past scope", "去年突然抽搐", PARENT, [(SZ, HIS)]),
    *[(f"contrast {cue} ends a hypothetical scope", f"如果发烧{cue}孩子抽搐", PARENT, [(SZ, CUR)]) for cue in (
        "但", "但是", "可是", "不过", "而", "然后", "后来",
    )],
    ("而且 is not a contrast", "如果发烧而且抽搐", PARENT, [(SZ, HYP)]),
    ("反而 is not a contrast", "如果反而抽搐", PARENT, [(SZ, HYP)]),
    ("a contrast never changes a mention before it", "抽搐过，但是现在好了", PARENT, [(SZ, HIS)]),
    # --- precedence --------------------------------------------------------------------------------
    ("negated beats other person", "我爸没有抽搐", PARENT, [(SZ, NEG)]),
    ("other person beats historical", "我爸以前抽搐过", PARENT, [(SZ, OTH)]),
    ("historical beats hypothetical", "如果以前抽搐过", PARENT, [(SZ, HIS)]),
    # --- subjects ------------------------------------------------------------------------------------
    ("colleague's child is the colleague's", "同事的孩子抽搐了", PARENT, [(SZ, OTH)]),
    ("relative's child, 家 link", "亲戚家小孩抽搐了", PARENT, [(SZ, OTH)]),
    ("家里的 link", "邻居家里的孩子抽搐了", PARENT, [(SZ, OTH)]),
    ("a patient word after other words resets the subject", "邻居说孩子抽搐了", PARENT, [(SZ, CUR)]),
    ("the subject carries across sentences", "我爸住院了。昨天吐血", PARENT, [(GI, OTH)]),
    ("他 keeps the current subject", "我爸说他胸痛", PARENT, [("chest_pain", OTH)]),
    ("她 with no earlier subject is the patient", "她突然昏迷", PARENT, [(AC, CUR)]),
    ("我 is another person for the parent's assistant", "我胸痛", PARENT, [("chest_pain", OTH)]),
    ("我 is another person in classify_intent", "我胸痛", None, [("chest_pain", OTH)]),
    ("我 is the patient for the child companion", "我胸痛", CHILD, [("chest_pain", CUR)]),
    ("本人 is the patient for the child companion", "本人胸痛", CHILD, [("chest_pain", CUR)]),
    ("自己 is another person for the doctor's assistant", "自己胸痛", "doctor_assistant", [("chest_pain", OTH)]),
    ("我 + a patient word in the clause is the patient", "我孩子抽搐了", PARENT, [(SZ, CUR)]),
    ("我的 + patient word", "我的宝宝抽搐了", PARENT, [(SZ, CUR)]),
    ("我 + a perception verb is not a subject word", "我觉得很嗜睡", PARENT, [(LE, CUR)]),
    ("我发现 is not a subject word", "我发现抽搐了", PARENT, [(SZ, CUR)]),
    ("我们 is not 我", "我们抽血时抽搐了", PARENT, [(SZ, CUR)]),
    ("自己 right after a subject word changes nothing", "孩子自己说胸痛", PARENT, [("chest_pain", CUR)]),
    ("自己 right after 她 changes nothing", "她自己说胸痛", PARENT, [("chest_pain", CUR)]),
    ("爸爸 alone is not an other-person word", "爸爸抽搐了", PARENT, [(SZ, CUR)]),
    ("老师 alone is not an other-person word", "老师说抽搐了", PARENT, [(SZ, CUR)]),
    # --- matching hygiene ----------------------------------------------------------------------------
    ("seizure pattern: 又抽了", "孩子又抽了", PARENT, [(SZ, CUR)]),
    ("seizure pattern: 一直抽个不停", "一直抽个不停", PARENT, [(SZ, CUR)]),
    ("seizure pattern is not a blood test", "又抽了血", PARENT, []),
    ("a bare 抽 is not a seizure", "抽动症", PARENT, []),
    ("epileptic attack now", "癫痫发作了", PARENT, [(SZ, CUR)]),
    ("退烧药也不退热 is not a fever pattern", "退烧药也不退热", PARENT, []),
    ("没尿 before 了", "一天都没尿了", PARENT, [(AN, CUR)]),
    ("没尿血 is not anuria", "没尿血", PARENT, []),
    ("没有尿路感染 is not anuria", "没有尿路感染", PARENT, []),
    ("stool blood within two characters", "大便有血", PARENT, [(GI, CUR)]),
    ("stool blood never across a comma", "大便，有血", PARENT, []),
    ("projectile vomiting, 状 variant", "喷射状呕吐", PARENT, [("vomits_everything", CUR)]),
    # --- vocabulary added on real text (issue 12): wording variants, each with a refusing twin ------
    ("a limb convulsing, written 抽经", "孩子手脚抽经", PARENT, [(SZ, CUR)]),
    ("抽动 is a convulsion", "孩子突然抽动", PARENT, [(SZ, CUR)]),
    ("抽动症 is a tic disorder (safe phrase)", "孩子有抽动症", PARENT, []),
    ("epilepsy flaring up now", "癫痫病又犯了", PARENT, [(SZ, CUR)]),
    ("epilepsy attack before 的时候 is a question's cue, not a mention", "癫痫发作的时候", PARENT, []),
    ("breathing hard, 呼吸 + 困难 with a gap", "宝宝喘气有点困难", PARENT, [(RD, CUR)]),
    ("black stool", "大便发黑", PARENT, [(GI, CUR)]),
    ("black tea is not black stool", "喝了红茶大便正常", PARENT, []),
    ("urine will not come", "尿都拉不出", PARENT, [(AN, CUR)]),
    # SPEC §3.5 revision 2: the value 180 is a blood-pressure critical value of its own.
    ("blood pressure very high, a pattern", "血压又飙到180", PARENT, [("hypertensive_emergency", CUR)] * 2),
    ("blood pressure normal is nothing", "血压正常吗", PARENT, []),
    ("vomiting nonstop", "不停地呕吐", PARENT, [("vomits_everything", CUR)]),
    ("弟弟 alone is not an other-person word", "弟弟抽搐了", PARENT, [(SZ, CUR)]),
    ("an overlapping patient word stays governed", "小姨的小宝宝抽搐了", PARENT, [(SZ, OTH)]),
    ("我就发现 is the writer observing", "我就发现抽搐了", PARENT, [(SZ, CUR)]),
    # --- infant fever: temperature + the text's own infant age --------------------------------------
    ("infant age 出生N天", "出生20天，体温38.5度", PARENT, [(IF, CUR)]),
    ("infant age N天大", "47天大，发烧38.2℃", PARENT, [(IF, CUR)]),
    ("infant age N天的 + child word", "47天的宝宝体温38度", PARENT, [(IF, CUR)]),
    ("infant age child word + N天", "宝宝47天，烧到39度", PARENT, [(IF, CUR)]),
    ("infant age N个月大 with N < 3", "两个月大，体温38.5度", PARENT, [(IF, CUR)]),
    ("infant age N个月的 + child word", "2个月的宝宝发烧三十八度五", PARENT, [(IF, CUR)]),
    ("infant age 新生儿", "新生儿体温38.1度", PARENT, [(IF, CUR)]),
    ("infant age 未满月", "未满月发烧38.5度", PARENT, [(IF, CUR)]),
    ("infant age 刚满月", "刚满月发烧38.5度", PARENT, [(IF, CUR)]),
    ("infant age 没满月", "没满月发烧38.5度", PARENT, [(IF, CUR)]),
    ("infant age 不到满月", "不到满月发烧38.5度", PARENT, [(IF, CUR)]),
    ("3 months is not under 3 months", "三个月大，体温38.5度", PARENT, []),
    ("100 days is not under 90", "宝宝100天，发烧38.5度", PARENT, []),
    ("below 38.0 is not a fever", "宝宝47天，体温37.8度", PARENT, []),
    ("一天大概 is not an age", "一天大概发烧38.5度", PARENT, []),
    ("no age, no infant fever", "孩子发烧38.5度", PARENT, []),
    ("an infant fever in a hypothetical", "宝宝47天，如果烧到38.5度怎么办", PARENT, [(IF, HYP)]),
]


def flags(policy, text: str, caller):
    return [(f.concept, f.context) for f in analyze(policy, text, caller).red_flags]


@pytest.mark.parametrize(("text", "caller", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_context(policy, text, caller, expected):
    assert flags(policy, text, caller) == expected


def _cue_words() -> dict[str, list[str]]:
    data = tomllib.loads(default_policy_bytes().decode("utf-8"))
    kinds: dict[str, list[str]] = {}
    for cue in data["context"]["cues"]:
        kinds.setdefault(cue["kind"], []).extend(cue["words"])
    return kinds


def test_every_cue_kind_and_pseudo_negation_has_a_row():
    ids = " ".join(r[0] for r in ROWS)
    kinds = _cue_words()
    for kind in ("negation", "now", "past", "hypothetical", "habitual", "manner", "contrast", "pseudo"):
        assert kind in kinds, kind
        assert kind in ids, f"no row for cue kind {kind}"
    spec_pseudo = ["不停", "不断", "不止", "止不住", "停不下来", "不退", "不醒", "不了", "不过来", "不出来"]
    for word in spec_pseudo:
        assert word in kinds["pseudo"], word
        assert f"pseudo {word}" in ids, f"no row for pseudo-negation {word}"


def test_red_flags_report_policy_names_not_request_text(router):
    result = router.route_request("宝宝47天，体温38.5度，血钾6.9，大便带血丝", PARENT, "P0001")
    terms = [(f.concept, f.term) for f in result.red_flags]
    assert terms == [(IF, "infant_temperature"), ("hyperkalemia", "potassium_critical_value"), (GI, "stool_blood")]


# SPEC §4.7 revision 3: a fever that will not come down is a symptom word (symptom.general), read in
# the same context: current, it is a symptom mention of the patient; not current, it is none.
FEVER_CONTEXT = [
    # id, text, whether it is a current symptom mention
    ("pseudo 不退", "高烧不退", True),
    ("now in the clause beats a hypothetical cue", "现在很担心的是高烧不退", True),
    ("without the now cue the worry is hypothetical", "很担心的是高烧不退", False),
    ("fever not breaking", "烧了三天不退", True),
    ("退不下 stays a fever pattern after 退烧", "退烧药吃了还是退不下来", True),
    ("烧一直没退", "烧一直没退", True),
    ("低烧不退 is a fever that lingers", "低烧不退", True),
]


@pytest.mark.parametrize(("text", "current"), [r[1:] for r in FEVER_CONTEXT], ids=[r[0] for r in FEVER_CONTEXT])
def test_a_fever_word_is_read_in_context(policy, text, current):
    analysis = analyze(policy, text, PARENT)
    assert analysis.red_flags == []
    assert [(f.concept, f.context) for f in analysis.symptoms] == ([("symptom.general", CUR)] if current else [])
