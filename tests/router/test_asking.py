"""What is asked counts first (SPEC §4.2): question clauses, medicines, consume verbs, weak words.

Each rule has rows that apply it and rows where it must not apply. The whole classify table of
tests/router/test_classify.py runs unchanged on top of these rules: it is the proof that a text
whose only clause is a question ranks exactly as before.
"""

from __future__ import annotations

import pytest

# (id, text, expected intent)
QUESTION_FIRST = [
    ("story lab words, question about a revisit -> followup",
     "化验结果出来了，下次什么时候复查？", "followup"),
    ("same story, no question clause -> the story's lab words win",
     "化验结果出来了，下次复查", "lab_result"),
    ("question mark alone makes the clause a question",
     "化验结果出来了，复诊?", "followup"),
    ("question word 吗 makes the clause a question",
     "检查结果都出来了，需要复诊吗", "followup"),
    ("story diagnosis, question about a food -> nutrition calc",
     "孩子肾病综合征三年，查过血肌酐，请问能喝豆浆吗？", "nutrition_calc"),
    ("question first, story after -> the question still decides",
     "紫癜性肾炎可以吃核桃吗？孩子去年住院，检查结果是紫癜性肾炎", "nutrition_calc"),
    ("history words in the story, symptom question -> knowledge",
     "孩子有过敏史，肾炎有什么症状？", "knowledge"),
    ("history words with no question -> profile",
     "孩子有过敏史，肾炎", "patient_profile"),
    ("a decimal point is no clause end",
     "血钾5.2，化验单上还写了什么", "lab_result"),
    # the A-not-A question (要不要, 有没有, 是不是…) asks as 吗 does
    ("an A-not-A clause is a question: whether to come back -> followup",
     "孩子的化验单我看过了，要不要复诊", "followup"),
    ("the same story, a told plan -> the story's lab words win",
     "孩子的化验单我看过了，下周复诊", "lab_result"),
    # a question word used as an indefinite (过几天, 没什么) asks nothing; the question clause decides
    ("过几天 tells a plan, which test is asked -> knowledge",
     "再过几天就复查了，先验尿还是先抽血", "knowledge"),
    ("几 that asks how often -> followup",
     "几天复查一次", "followup"),
]

MEDICINES = [
    ("medicine by suffix with an eat verb -> knowledge", "肾炎的孩子能吃归脾丸吗？", "knowledge"),
    ("medicine by name -> knowledge", "孩子能吃泼尼松吗", "knowledge"),
    ("capsule suffix -> knowledge", "百令胶囊可以吃吗", "knowledge"),
    ("drink verb with a medicine -> knowledge", "孩子肾炎能喝药吗", "knowledge"),
    ("medicine mention alone is knowledge evidence", "他克莫司和环孢素有什么区别", "knowledge"),
    ("medicine in the story, food in the question -> nutrition calc", "孩子在吃泼尼松，能吃香蕉吗", "nutrition_calc"),
    ("the verb's object is the food after it, not the medicine before", "吃完碳酸钙以后能吃苹果吗", "nutrition_calc"),
    ("a portion is no medicine: 两片 + food -> nutrition calc", "两片面包能吃吗", "nutrition_calc"),
    ("a food containing a suffix is no medicine: 薯片", "薯片能不能吃", "nutrition_calc"),
]

CONSUME_VERBS = [
    ("能喝 + a drink -> nutrition calc", "孩子肾炎能喝豆浆吗？", "nutrition_calc"),
    ("可以喝 + a drink -> nutrition calc", "尿毒症可以喝牛奶吗", "nutrition_calc"),
    ("能不能喝 + a drink -> nutrition calc", "孩子肾炎能不能喝骨头汤", "nutrition_calc"),
    ("food named elsewhere, verb asks nothing in its clause -> the topic", "豆浆喝了一点，肾炎能不能好", "knowledge"),
]

WEAK_WORDS = [
    ("怎么办 loses to a lab keyword", "孩子肌酐高怎么办", "lab_result"),
    ("是什么 loses to a followup keyword", "复诊是什么流程", "followup"),
    ("怎么办 alone still decides", "孩子老是哭闹怎么办", "knowledge"),
    ("a topic noun loses to a lab keyword with a value", "肾病综合征的尿蛋白偏高", "lab_result"),
    ("a topic noun alone still decides", "肾病综合征", "knowledge"),
]

KNOWLEDGE_QUESTIONS = [
    ("symptoms", "小孩子肾炎都会有什么症状？", "knowledge"),
    ("medicine for a disease", "尿路感染吃什么药", "knowledge"),
    ("cause of a lab value", "肌酐高是什么原因", "knowledge"),
    ("treatment", "紫癜性肾炎怎么治疗", "knowledge"),
    ("department", "尿蛋白高应该挂哪个科", "knowledge"),
    ("diet advice after a diagnosis, no food -> knowledge (§4.2 rev 2)", "被诊断为先天性肾病综合征，饮食疗法需要有留意什么？", "knowledge"),
    ("a lab value's normality stays a lab question", "血钾5.2正常吗", "lab_result"),
]


# SPEC §4.2 "Revision 2 — parents' questions": each form both ways.
PARENTS = [
    # diet advice: knowledge without a named food, nutrition_calc with one
    ("diet advice, no food -> knowledge", "孩子肺炎期间吃点什么好", "knowledge"),
    ("忌口, no food -> knowledge", "饮食上要忌口吗", "knowledge"),
    ("不能吃什么, no food -> knowledge", "肾病综合征不能吃什么", "knowledge"),
    ("diet advice naming a food -> nutrition calc", "肾炎的孩子吃什么水果好", "nutrition_calc"),
    # nutrition_calc needs a named food or drink: a verb that names none asks about what was said
    # before (a medicine as often as a food) and is knowledge, as every other question without one
    ("a consume verb with no object -> knowledge", "宝宝现在能吃吗", "knowledge"),
    ("a consume verb before a food the dictionary lacks -> nutrition calc", "肾病能吃石榴吗", "nutrition_calc"),
    ("a consume verb with the food in the clause before -> nutrition calc", "香蕉含钾多少？能不能吃", "nutrition_calc"),
    # feeding and fluids: never unknown
    ("adding complementary food -> knowledge", "宝宝现在还能加辅食吗", "knowledge"),
    # SPEC §4.2 revision 2: "nutrition_calc when it asks whether or how much of a named food or
    # drink" (LABELS.md: 能喂水吗 is nutrition_calc); knowledge before the feeding question was read
    ("water besides formula -> nutrition calc", "吃奶粉的话还用另外喂水吗", "nutrition_calc"),
    ("weaning -> knowledge", "什么时候断奶比较好", "knowledge"),
    ("a named drink with a consume verb -> nutrition calc", "宝宝能喝奶粉吗", "nutrition_calc"),
    ("how much milk a day -> nutrition calc", "宝宝一天喝多少奶", "nutrition_calc"),
    ("a drink amount for a fluid-restricted child -> nutrition calc", "孩子限水，一天能喝多少水", "nutrition_calc"),
    # tests and procedures: knowledge / followup; lab_result needs something to read
    ("which test: allergen blood draw -> knowledge", "查过敏原要抽血吗", "knowledge"),
    ("what a test is for -> knowledge", "尿常规主要查什么", "knowledge"),
    ("a bare 正常吗 after a story with no value -> knowledge", "孩子肾病三年了，最近尿检正常吗", "knowledge"),
    ("when to re-test -> followup", "多久复查一次尿常规", "followup"),
    ("a value to read -> lab", "血钾5.2正常吗", "lab_result"),
    ("a direction after the analyte -> lab", "孩子肌酐高了", "lab_result"),
    ("a report to look at -> lab", "化验单帮我看看", "lab_result"),
    ("results asked for -> lab", "孩子的血常规出来了吗", "lab_result"),
    ("a look-up of the latest result -> lab", "查看最近一次血钾化验", "lab_result"),
    ("正常吗 with only an age's digits -> knowledge", "20多天大的宝宝偶尔咳嗽正常吗", "knowledge"),
    ("a question about a named drink with no keyword -> nutrition calc", "能给宝宝喝点温水么？", "nutrition_calc"),
    # consultation-form boilerplate
    ("form headings pull nothing", "病情描述：孩子咳嗽三天。需要医生帮助提供远程诊断：想得到怎样的帮助：怎么治疗", "knowledge"),
    ("远程诊断 alone is no diagnosis", "需要医生帮助提供远程诊断：孩子湿疹", "knowledge"),
    ("诊断 outside a heading still counts", "诊断书在哪里看", "patient_profile"),
    # kidney diet in plain words
    ("a week of low-salt meals -> meal plan", "给孩子排一周的低盐饭菜", "meal_plan"),
]

# Body, complaint and care words parents use (pediatric dev split, issue 21, second pass): alone
# they make a question knowledge, never unknown; as weak words any other keyword outranks them.
COMPLAINTS = [
    ("jaundice alone -> knowledge", "宝宝的黄疸一直没退", "knowledge"),
    ("a swallowed household product -> knowledge", "孩子误食了一点洗衣液", "knowledge"),
    ("a bloated belly -> knowledge", "宝宝肚胀，晚上老是哼哼", "knowledge"),
    ("a bare 咳 -> knowledge", "只是有点咳，有时有鼻涕", "knowledge"),
    ("thumb sucking -> knowledge", "三岁了还是吃手", "knowledge"),
    ("a medicine name parents use -> knowledge", "双黄连给孩子用可以吗", "knowledge"),
    ("a body temperature range -> knowledge", "婴儿体温多少范围算正常？", "knowledge"),
    ("a weak complaint loses to a lab reading", "肚脐周围疼，白细胞偏高", "lab_result"),
    ("a weak complaint loses to how serious", "有点咳，要紧吗", "risk_assessment"),
    ("a weak procedure loses to a food question", "手术后能喝牛奶吗", "nutrition_calc"),
    ("a weak procedure loses to when to come back", "手术后多久复查", "followup"),
    # whether weight, growth or intake is adequate -> nutrition assessment; a diet question stays
    ("overweight for age -> nutrition assessment", "孩子三岁，身高95厘米，体重20公斤，是不是超胖？", "nutrition_assessment"),
    ("never full -> nutrition assessment", "宝宝每次喂完都吃不饱", "nutrition_assessment"),
    ("a food question beside the weight stays nutrition calc", "孩子偏胖，能吃香蕉吗", "nutrition_calc"),
    # whether the child's condition recovers: prognosis
    ("can it recover -> risk assessment", "近视三百度了，可以恢复吗", "risk_assessment"),
    # which medicine, with a food in the story -> knowledge; diet advice with one -> nutrition calc
    ("吃点什么药 after a food -> knowledge", "吃香蕉也不管用，吃点什么药", "knowledge"),
    ("吃点什么好 after a food -> nutrition calc", "吃香蕉也不管用，吃点什么好", "nutrition_calc"),
    # a diagnosis in the story and a medication question are no request for the record
    ("the doctor's diagnosis in the story -> knowledge", "医生诊断是支气管炎，平时怎么护理", "knowledge"),
    ("whether to medicate -> knowledge", "现在还需要用药吗", "knowledge"),
    ("the medication record stays the profile", "调出他的用药记录", "patient_profile"),
    # how serious, in more of the parents' words -> risk assessment; a value to read still wins
    ("有影响 of the child's own condition -> risk", "他是早产儿，会不会也有影响", "risk_assessment"),
    ("问题大吗 -> risk", "医生，宝宝这个问题大吗？", "risk_assessment"),
    ("没多大关系 -> risk", "大便里没有血丝了，是不是就没多大关系了？", "risk_assessment"),
    ("a lab reading in the question outranks 有影响", "血钾偏高有影响吗", "lab_result"),
    # 很严重 / 不严重 describe the story: weak, so a medicine or a question decides
    ("很严重 in the story loses to a medicine", "咳嗽很严重，吃了两天止咳颗粒", "knowledge"),
    ("不严重 in the story loses to a medicine", "有点低烧，不严重，吃了小儿豉翘颗粒", "knowledge"),
    ("很严重 alone still asks how serious", "孩子这样是不是很严重", "risk_assessment"),
]


# Colloquial question endings (issue 21): a clause that ends, after a predicate, in 嘛 / 么 / 是吧 /
# 吧 / 不 asks; the longest ending decides, so an assent, a suggestion or an adverb before 不 asks
# nothing. A named food with no keyword shows it: asked -> nutrition_calc, told -> unknown.
QUESTION_ENDINGS = [
    ("嘛 after a modal asks", "明天给宝宝喝点米汤可以嘛", "nutrition_calc"),
    ("么 after a verb asks", "晚上给她喝点酸奶么", "nutrition_calc"),
    ("是吧 asks", "现在可以加蛋黄了是吧", "nutrition_calc"),
    ("不 after a modal asks", "早上煮点小米粥给他可以不", "nutrition_calc"),
    ("不 after 行 asks", "给孩子吃点苹果泥行不", "nutrition_calc"),
    ("吧 seeking agreement asks", "前天吃了点橘子没关系吧", "nutrition_calc"),
    ("不好吧 asks though 好吧 does not", "天天喝酸奶不好吧", "nutrition_calc"),
    ("a trailing particle is skipped", "给宝宝吃点山药可以嘛~", "nutrition_calc"),
    ("好吧 assents", "米汤先喝着好吧", "unknown"),
    ("看看吧 suggests", "那就先喝两天米汤看看吧", "unknown"),
    ("算了吧 gives up", "米汤就算了吧", "unknown"),
    ("不 after an adverb ends no question", "这两天的米汤她都不", "unknown"),
    ("那么 ends no question", "米汤现在喝得没有以前那么", "unknown"),
    ("不 inside 不喝 ends nothing", "牛奶她一口都不喝", "unknown"),
    ("不 inside 不行 ends nothing", "米汤她只喝了两口，不行", "unknown"),
]

# A reading word that asks (多少) beside a reference word asks the norm: knowledge. Without one it
# asks for the child's values, and a value in the clause is still a reading. An age is no value.
NORMS = [
    ("a normal value asked -> knowledge", "儿童血钾正常值是多少", "knowledge"),
    ("多少算正常 -> knowledge", "尿酸多少算正常", "knowledge"),
    ("an age in the clause is no value -> knowledge", "5岁孩子血常规正常值是多少", "knowledge"),
    ("months in the clause are no value -> knowledge", "3个月宝宝血红蛋白多少算正常", "knowledge"),
    ("the child's own value asked -> lab", "他的血钾是多少", "lab_result"),
    ("a value beside the norm question -> lab", "血钾5.8，正常值是多少", "lab_result"),
    ("多少说明 asks a threshold -> knowledge", "孩子的尿酸到多少就说明有问题", "knowledge"),
    # a visit (去医院看看) reads nothing; a request to look at a sheet does
    ("a visit is no reading -> knowledge", "宝宝鼻子老痒，正常吗，要不要带去医院看一下", "knowledge"),
    ("a sheet to look at -> lab", "化验单出来了，帮我看看正常吗", "lab_result"),
    ("a sheet the parent cannot read -> lab", "尿常规那张单子我们看不懂", "lab_result"),
    ("a blood test's result in plain words -> lab", "照片是昨天的血检结果", "lab_result"),
    ("a visit on this occasion is no reading -> knowledge", "这次来医院要不要顺便抽血查一下", "knowledge"),
    ("this occasion's result to look at -> lab", "这次化验的结果帮我看看", "lab_result"),
    ("what results a test can have -> knowledge", "尿常规一般会有哪些结果", "knowledge"),
]

# How serious (issue 21): a question clause that ends asking it decides risk_assessment over the
# story's symptom nouns; a medicine, a reading or people in general leave it to the other rules.
SERIOUS = [
    ("没事吧 ending the question beats symptom nouns", "宝宝脸上和脖子上起了红疹子，没事吧", "risk_assessment"),
    ("严重么 ending the only clause beats symptom nouns", "宝宝咳嗽有痰还流鼻涕严重么", "risk_assessment"),
    ("the same rash asked of adults in general -> knowledge", "成年人身上起了好多小红疹子没事吧", "knowledge"),
    ("严重 inside the clause asks no seriousness", "会不会是严重的湿疹", "knowledge"),
    ("a medicine decides -> knowledge", "退烧药和止咳药一起吃没事吧", "knowledge"),
    ("a reading decides -> lab", "白细胞偏高要紧吗", "lab_result"),
    # what a thing did to the child: the food or medicine named just before the effect word decides
    ("effect of a food eaten -> nutrition calc", "昨天吃了几个虾仁，有没有影响", "nutrition_calc"),
    ("effect of a medicine taken again -> knowledge", "上个月刚吃完阿莫西林，这回再吃一个疗程有什么影响", "knowledge"),
    ("worse asked at the clause's end -> risk", "这个疹子是好了还是加重了", "risk_assessment"),
    ("worse told, care asked -> knowledge", "疹子加重了，平时怎么护理", "knowledge"),
    ("effect of the illness itself -> risk", "连着烧了两天，以后记忆力有影响吗", "risk_assessment"),
]


def _rows(rows):
    return [pytest.param(text, intent, id=rid) for rid, text, intent in rows]


@pytest.mark.parametrize(
    ("text", "intent"), _rows(QUESTION_FIRST + MEDICINES + CONSUME_VERBS + WEAK_WORDS + KNOWLEDGE_QUESTIONS + PARENTS + COMPLAINTS)
)
def test_what_is_asked_decides(router, text, intent):
    r = router.classify_intent(text)
    assert r.intent == intent, (r.intent, r.candidates)
    assert r.candidates[0].intent == intent


@pytest.mark.parametrize(("text", "intent"), _rows(QUESTION_ENDINGS + NORMS + SERIOUS))
def test_endings_norms_and_how_serious(router, text, intent):
    assert router.classify_intent(text).intent == intent


def test_score_and_confidence_stay_the_whole_texts(router):
    r = router.classify_intent("化验结果出来了，下次什么时候复查？")
    scores = {c.intent: c.score for c in r.candidates}
    assert r.intent == "followup"
    assert scores == {"followup": 2, "lab_result": 4}  # 复查; 化验结果 (outranked, not rescored)
    assert r.confidence == 0.60  # 0.50 + 0.05 × the winner's own whole-text score
    assert r.matched_keywords == ["复查"]


def test_food_bonus_ranks_but_is_never_listed(router):
    r = router.classify_intent("孩子肾炎能喝豆浆吗？")
    best = r.candidates[0]
    assert (best.intent, best.score) == ("nutrition_calc", 2)  # 能喝 only: 豆浆 is a food, not a keyword
    assert r.matched_keywords == ["能喝"]


@pytest.mark.parametrize(
    ("text", "medicine"),
    [
        pytest.param("能吃金匮肾气丸吗", "丸", id="suffix after a name"),
        pytest.param("骨化三醇能吃吗", "骨化三醇", id="name"),
        pytest.param("能喝肾炎康复口服液吗", "口服液", id="oral liquid"),
        pytest.param("宝宝拉肚子能吃健脾散吗", "散", id="powder after a name"),
        pytest.param("退热栓可以用吗", "退热栓", id="suppository by name"),
        pytest.param("可以喝抗病毒合剂吗", "合剂", id="mixture after a name"),
        pytest.param("宝宝能吃保和丹吗", "丹", id="pill after a name"),
        pytest.param("宝宝能喝999冲剂吗", "冲剂", id="granules after a brand's digits"),
        pytest.param("每天吃ad滴剂可以吗", "滴剂", id="drops after a brand's letters"),
    ],
)
def test_medicine_is_listed_as_knowledge_evidence(router, text, medicine):
    r = router.classify_intent(text)
    assert r.intent == "knowledge"
    assert medicine in r.matched_keywords


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("一次吃两片可以吗", id="numeral before 片"),
        pytest.param("一次吃2片可以吗", id="a digit before a one-character form is a portion"),
        pytest.param("拍片能看出肾炎吗", id="拍片 is an X-ray"),
        pytest.param("肉丸子能吃吗", id="肉丸 is a food word"),
        pytest.param("照片发给医生了，能吃吗", id="照片 is a photo"),
        pytest.param("晚饭后去散步，回来能吃香蕉吗", id="散步 is a walk"),
        pytest.param("穿太多不散热，能喝点酸奶吗", id="散热 is losing heat"),
        pytest.param("血栓的病人能吃鸡蛋吗", id="血栓 is a clot"),
        pytest.param("牡丹花饼孩子能吃吗", id="牡丹 is a flower"),
    ],
)
def test_words_with_a_suffix_that_are_no_medicine(router, text):
    r = router.classify_intent(text)
    listed = {k for c in [r] for k in c.matched_keywords}
    assert not listed & {"片", "丸", "散", "栓", "丹"}, r.matched_keywords


@pytest.mark.parametrize("text", [pytest.param("好的谢谢", id="thanks"), pytest.param("那明天呢", id="and tomorrow?"),
                                  pytest.param("这种可以吧", id="this one is fine?"), pytest.param("具体有什么", id="what exactly?")])
def test_a_short_follow_up_with_no_domain_word_stays_unknown(router, text):
    """SPEC §4.2 revision 2: the dispatcher holds the conversation."""
    r = router.classify_intent(text)
    assert (r.intent, r.candidates, r.fallback) == ("unknown", [], "llm")
