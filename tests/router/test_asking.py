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
    ("a topic noun loses to a lab keyword", "肾病综合征的尿蛋白", "lab_result"),
    ("a topic noun alone still decides", "肾病综合征", "knowledge"),
]

KNOWLEDGE_QUESTIONS = [
    ("symptoms", "小孩子肾炎都会有什么症状？", "knowledge"),
    ("medicine for a disease", "尿路感染吃什么药", "knowledge"),
    ("cause of a lab value", "肌酐高是什么原因", "knowledge"),
    ("treatment", "紫癜性肾炎怎么治疗", "knowledge"),
    ("department", "尿蛋白高应该挂哪个科", "knowledge"),
    ("diet advice after a diagnosis -> nutrition calc", "被诊断为先天性肾病综合征，饮食疗法需要有留意什么？", "nutrition_calc"),
    ("a lab value's normality stays a lab question", "血钾5.2正常吗", "lab_result"),
]


def _rows(rows):
    return [pytest.param(text, intent, id=rid) for rid, text, intent in rows]


@pytest.mark.parametrize(
    ("text", "intent"), _rows(QUESTION_FIRST + MEDICINES + CONSUME_VERBS + WEAK_WORDS + KNOWLEDGE_QUESTIONS)
)
def test_what_is_asked_decides(router, text, intent):
    r = router.classify_intent(text)
    assert r.intent == intent, (r.intent, r.candidates)
    assert r.candidates[0].intent == intent


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
        pytest.param("拍片能看出肾炎吗", id="拍片 is an X-ray"),
        pytest.param("肉丸子能吃吗", id="肉丸 is a food word"),
        pytest.param("照片发给医生了，能吃吗", id="照片 is a photo"),
    ],
)
def test_words_with_a_suffix_that_are_no_medicine(router, text):
    r = router.classify_intent(text)
    listed = {k for c in [r] for k in c.matched_keywords}
    assert not listed & {"片", "丸"}, r.matched_keywords
