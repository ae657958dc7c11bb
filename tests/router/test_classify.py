"""classify_intent (SPEC §4.2): one row per realistic phrasing, table-driven.

Rules first: a P0 hit is ``emergency_red_flag`` on ``a207-router-mcp`` with ``fallback="halt"`` and
confidence 1.0. Otherwise each intent scores the sum of the lengths of its distinct matched keywords
(longest match wins); the best score wins, ties go to the higher priority (P0 … P5), then to the
order of the policy's intent table. ``confidence = min(0.95, 0.50 + 0.05 × score)``, two decimals.
No hit is ``unknown``: ``mcp=None``, ``confidence=0.0``, ``fallback="llm"``.

The tie rows compute the scores from the keyword lists in ``app/router/policy.toml`` (read with
``tomllib``, independently of the router) so that a policy edit that breaks the tie is reported as a
broken test premise rather than as a silent change of meaning.
"""

from __future__ import annotations

import tomllib
import unicodedata
from pathlib import Path

import pytest

import app.router

ROUTER_MCP = "a207-router-mcp"

# SPEC §4.2 intent table: intent → MCP registry name (§3.2), independent of the policy file.
MCP = {
    "emergency_red_flag": ROUTER_MCP,
    "clinical_staging": "a207-ckd-clinical-calc-mcp",
    "lab_result": "a207-lis-mcp",
    "risk_assessment": "a207-risk-rules-mcp",
    "patient_profile": "a207-his-mcp",
    "nutrition_assessment": "a207-nutrition-assessment-mcp",
    "followup": "a207-followup-mcp",
    "meal_plan": "a207-meal-plan-mcp",
    "nutrition_calc": "a207-nutrition-calc-mcp",
    "report": "a207-report-mcp",
    "notify": "a207-notify-mcp",
    "knowledge": "a207-knowledge-mcp",
    "gamification": "a207-gamification-mcp",
}

# (id, text, expected intent). Who says it is in the id: parent, doctor, nutritionist, child,
# risk agent (the risk-warning agent), dispatcher.
PHRASINGS = [
    # --- emergency_red_flag (P0 forced first) -------------------------------------------------
    ("parent: sudden convulsion -> emergency", "孩子突然抽搐了怎么办", "emergency_red_flag"),
    ("parent: cannot wake, lips purple -> emergency", "宝宝叫不醒，嘴唇发紫", "emergency_red_flag"),
    ("parent: potassium 6.8 plus a food question -> emergency", "血钾6.8要紧吗，能吃香蕉吗", "emergency_red_flag"),
    ("risk agent: K 7.0 mmol/L beats a risk request -> emergency", "P0012 K 7.0 mmol/L，请评估风险", "emergency_red_flag"),
    ("parent: no urine all day -> emergency", "孩子一天没尿了，肚子胀", "emergency_red_flag"),
    ("doctor: Traditional 驚厥 and foaming -> emergency", "患兒驚厥，口吐白沫", "emergency_red_flag"),
    ("nutritionist: English seizure during dialysis -> emergency", "child had a seizure during dialysis", "emergency_red_flag"),
    # --- clinical_staging (M3) ----------------------------------------------------------------
    ("doctor: compute eGFR for a patient -> staging", "帮我算一下P0012的eGFR", "clinical_staging"),
    ("doctor: which CKD stage -> staging", "这个孩子CKD几期了", "clinical_staging"),
    ("doctor: creatinine and height for GFR beats the lab word -> staging", "肌酐120μmol/L，身高130cm，肾小球滤过率多少", "clinical_staging"),
    ("doctor: PEW assessment -> staging", "做个PEW评估", "clinical_staging"),
    ("doctor: height and blood-pressure percentiles -> staging", "身高百分位和血压百分位算一下", "clinical_staging"),
    ("doctor: growth retardation with age -> staging", "9岁男孩，生长迟缓要不要查", "clinical_staging"),
    ("doctor: Traditional 腎功能分期 -> staging", "患兒腎功能分期是多少", "clinical_staging"),
    ("parent: colloquial 到哪一期了 -> staging", "孩子的肾功能到哪一期了", "clinical_staging"),
    ("doctor: growth curve -> staging", "孩子身高是不是落后了，看下生长曲线", "clinical_staging"),
    # --- lab_result (M2) ----------------------------------------------------------------------
    ("doctor: latest lab results of a patient -> lab", "查一下P0012最近的化验结果", "lab_result"),
    ("parent: is the blood count out -> lab", "孩子的血常规出来了吗", "lab_result"),
    ("doctor: creatinine and BUN values -> lab", "肌酐和尿素氮多少", "lab_result"),
    ("doctor: English abbreviations Scr BUN labs -> lab", "Scr 85, BUN 6.2, 帮我看看labs", "lab_result"),
    ("doctor: PTH and serum phosphorus -> lab", "最新的PTH和血磷", "lab_result"),
    ("parent: potassium 5.2 below the critical value -> lab", "血钾5.2正常吗", "lab_result"),
    ("parent: Traditional 化驗單 -> lab", "孩子的化驗單出來了嗎", "lab_result"),
    ("parent: 24-h urine protein result -> lab", "尿蛋白定量结果出来没", "lab_result"),
    ("parent: colloquial 检查结果 -> lab", "孩子最近的检查结果怎么样", "lab_result"),
    ("parent: urine test -> lab", "这次尿检结果", "lab_result"),
    ("doctor: albumin with g/L -> lab", "白蛋白32 g/L", "lab_result"),
    # --- risk_assessment (M6) -----------------------------------------------------------------
    ("doctor: risk grade -> risk", "评估一下这个孩子的风险等级", "risk_assessment"),
    ("risk agent: potassium trend risk assessment beats the lab word -> risk", "P0012血钾趋势做个风险评估", "risk_assessment"),
    ("doctor: risk of progressing to dialysis -> risk", "进展到透析的风险", "risk_assessment"),
    ("risk agent: risk stratification -> risk", "做个风险分层", "risk_assessment"),
    ("doctor: prognosis -> risk", "这孩子预后怎么样", "risk_assessment"),
    ("risk agent: English risk score -> risk", "risk score for P0012", "risk_assessment"),
    ("risk agent: risk of deterioration -> risk", "有没有恶化风险", "risk_assessment"),
    # --- patient_profile (M1) -----------------------------------------------------------------
    ("dispatcher: pull the medical record -> profile", "调一下P0012的病历", "patient_profile"),
    ("nutritionist: allergy history -> profile", "孩子有什么过敏史", "patient_profile"),
    ("doctor: basic information of the child -> profile", "查看患儿基本信息", "patient_profile"),
    ("doctor: past history and medication record -> profile", "既往史和用药记录", "patient_profile"),
    ("doctor: diagnosis in the EMR -> profile", "EMR里的诊断", "patient_profile"),
    ("parent: Traditional 病歷 -> profile", "這個孩子的病歷", "patient_profile"),
    ("doctor: admission records -> profile", "看一下住院记录", "patient_profile"),
    # --- nutrition_assessment (M4) ------------------------------------------------------------
    ("nutritionist: nutrition assessment for a patient -> assessment", "给P0012做一下营养评估", "nutrition_assessment"),
    ("nutritionist: recent nutritional status -> assessment", "孩子最近营养状况怎么样", "nutrition_assessment"),
    ("doctor: SGA score -> assessment", "SGA评分", "nutrition_assessment"),
    ("nutritionist: food diary and intake -> assessment", "看下这周的饮食日记，摄入量够不够", "nutrition_assessment"),
    ("doctor: malnutrition -> assessment", "有没有营养不良", "nutrition_assessment"),
    ("parent: is the child eating enough -> assessment", "孩子吃得够不够", "nutrition_assessment"),
    ("parent: enough protein eaten -> assessment", "孩子蛋白质吃够了吗", "nutrition_assessment"),
    ("nutritionist: diet assessment -> assessment", "帮忙做个饮食评估", "nutrition_assessment"),
    # --- followup (M12) -----------------------------------------------------------------------
    ("parent: when is the next recheck -> followup", "下次复查是什么时候", "followup"),
    ("doctor: book a revisit for a patient -> followup", "帮P0012预约复诊", "followup"),
    ("doctor: follow-up plan -> followup", "出一个随访计划", "followup"),
    ("nutritionist: this month's follow-up records -> followup", "这个月的随访记录", "followup"),
    ("doctor: English follow-up -> followup", "schedule a follow-up visit", "followup"),
    ("parent: Traditional 復診時間 -> followup", "復診時間定在哪天", "followup"),
    ("parent: next clinic visit -> followup", "帮我约一下下周的门诊", "followup"),
    # --- meal_plan (M7) -----------------------------------------------------------------------
    ("nutritionist: arrange a menu -> meal plan", "帮孩子排食谱", "meal_plan"),
    ("nutritionist: one week menu for a patient -> meal plan", "给P0012做一周食谱", "meal_plan"),
    ("parent: how to arrange three meals -> meal plan", "三餐怎么安排", "meal_plan"),
    ("nutritionist: low-protein diet plan -> meal plan", "做个低蛋白饮食计划", "meal_plan"),
    ("nutritionist: English meal plan -> meal plan", "meal plan for next week", "meal_plan"),
    ("parent: Traditional 一週食譜 -> meal plan", "給孩子排一週食譜", "meal_plan"),
    ("nutritionist: three meals a day -> meal plan", "帮忙安排一下一日三餐", "meal_plan"),
    # --- nutrition_calc (M5) ------------------------------------------------------------------
    ("parent: potassium in a banana -> nutrition calc", "香蕉含钾多少", "nutrition_calc"),
    ("parent: protein in a bowl of rice -> nutrition calc", "一碗米饭多少蛋白", "nutrition_calc"),
    ("parent: may the child eat apples -> nutrition calc", "苹果能不能吃", "nutrition_calc"),
    ("nutritionist: energy of 100 g potato in kcal -> nutrition calc", "100g土豆热量多少kcal", "nutrition_calc"),
    ("parent: high-potassium foods (not P0) -> nutrition calc", "高钾食物有哪些", "nutrition_calc"),
    ("parent: watermelon allowed -> nutrition calc", "西瓜可以吃吗", "nutrition_calc"),
    ("parent: Traditional 營養成分 -> nutrition calc", "番茄炒蛋的營養成分", "nutrition_calc"),
    ("parent: phosphorus in a box of milk -> nutrition calc", "一盒牛奶含磷多少", "nutrition_calc"),
    # --- report (M10) -------------------------------------------------------------------------
    ("nutritionist: generate this month's report -> report", "生成本月营养报告", "report"),
    ("doctor: export a monthly report -> report", "导出P0012的月报", "report"),
    ("nutritionist: a weekly report -> report", "出一份周报", "report"),
    ("doctor: print the report -> report", "打印报告", "report"),
    ("risk agent: English report -> report", "generate a report", "report"),
    ("doctor: quarterly statement -> report", "这季度的报表", "report"),
    ("nutritionist: summarize the month -> report", "把这个月的情况总结一下", "report"),
    # --- notify (M9) --------------------------------------------------------------------------
    ("risk agent: message and reminder to the parent -> notify", "给家长发消息提醒", "notify"),
    ("risk agent: warning event -> notify", "触发预警事件", "notify"),
    ("risk agent: SMS reminder -> notify", "短信提醒家长", "notify"),
    ("risk agent: English alert -> notify", "send an alert", "notify"),
    ("risk agent: push an alarm to the doctor -> notify", "推送告警给医生", "notify"),
    ("risk agent: push a revisit reminder beats the followup word -> notify", "给家长推送复诊提醒", "notify"),
    # --- knowledge (M11) ----------------------------------------------------------------------
    ("parent: what is chronic kidney disease -> knowledge", "慢性肾病是什么", "knowledge"),
    ("parent: why restrict phosphorus -> knowledge", "为什么要限磷", "knowledge"),
    ("child: what does dialysis mean -> knowledge", "透析是什么意思", "knowledge"),
    ("parent: CKD diet precautions -> knowledge", "CKD饮食注意事项", "knowledge"),
    ("nutritionist: principle of peritoneal dialysis -> knowledge", "腹膜透析的原理", "knowledge"),
    ("doctor: English guideline -> knowledge", "KDOQI guideline", "knowledge"),
    ("parent: Traditional 腎病 怎麼辦 -> knowledge", "腎病孩子能運動嗎，怎麼辦", "knowledge"),
    ("child: why eat less salt -> knowledge", "为什么要少吃盐", "knowledge"),
    # --- gamification (M8) --------------------------------------------------------------------
    ("child: stars earned today -> gamification", "我今天得了几颗星星", "gamification"),
    ("child: how many points -> gamification", "我有多少积分", "gamification"),
    ("child: rank on the leaderboard -> gamification", "排行榜上我第几名", "gamification"),
    ("child: play a mini game -> gamification", "我想玩小游戏", "gamification"),
    ("child: reward for a 7-day streak -> gamification", "连续打卡七天有什么奖励", "gamification"),
    ("child: Traditional 勳章 -> gamification", "我的勳章呢", "gamification"),
    ("child: English badge -> gamification", "show my badge", "gamification"),
    ("child: today's task done -> gamification", "我今天的任务完成了吗", "gamification"),
]


def _rows(rows):
    return [pytest.param(text, intent, id=rid) for rid, text, intent in rows]


def test_every_intent_has_at_least_three_phrasings():
    counts = {name: 0 for name in MCP}
    for _, _, intent in PHRASINGS:
        counts[intent] += 1
    assert len(PHRASINGS) >= 60
    assert {k: v for k, v in counts.items() if v < 3} == {}


@pytest.mark.parametrize(("text", "intent"), _rows(PHRASINGS))
def test_phrasing_routes_to_intent_and_mcp(router, text, intent):
    r = router.classify_intent(text)
    assert (r.intent, r.mcp) == (intent, MCP[intent]), (r.intent, r.matched_keywords, r.candidates)
    if intent == "emergency_red_flag":
        assert (r.confidence, r.fallback) == (1.0, "halt")
    else:
        assert r.fallback is None
        assert r.candidates and r.candidates[0].intent == intent
        assert r.matched_keywords


# --- the 食谱 rule (SPEC §4.2) ------------------------------------------------------------------

MEAL_PLAN_RECIPES = [
    ("排食谱 -> meal plan, no note", "帮孩子排食谱"),
    ("一周食谱 -> meal plan, no note", "下周的一周食谱发我"),
    ("三餐怎么安排 -> meal plan, no note", "孩子透析期间三餐怎么安排"),
    ("Traditional 排食譜 -> meal plan, no note", "幫孩子排食譜"),
]
BARE_RECIPES = [
    ("bare 食谱 alone -> nutrition calc with a note", "食谱"),
    ("bare 食谱 in a sentence -> nutrition calc with a note", "这个食谱怎么样"),
    ("bare 食谱 from a parent with a food -> nutrition calc with a note", "冬瓜排骨汤的食谱"),
    ("bare Traditional 食譜 -> nutrition calc with a note", "這個食譜"),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in MEAL_PLAN_RECIPES])
def test_arranging_recipes_is_a_meal_plan(router, text):
    r = router.classify_intent(text)
    assert (r.intent, r.mcp) == ("meal_plan", "a207-meal-plan-mcp")
    assert "食谱" not in r.matched_keywords  # the longer keyword hides the bare word
    assert r.note is None


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in BARE_RECIPES])
def test_bare_recipe_word_is_nutrition_calc_with_a_note(router, text):
    r = router.classify_intent(text)
    assert (r.intent, r.mcp) == ("nutrition_calc", "a207-nutrition-calc-mcp")
    assert "食谱" in r.matched_keywords
    assert isinstance(r.note, str) and r.note.strip()


# --- scores, ties, confidence, candidate order --------------------------------------------------


def _policy_table() -> list[dict]:
    path = Path(app.router.__file__).with_name("policy.toml")
    with path.open("rb") as fh:
        return tomllib.load(fh)["intents"]


INTENTS = _policy_table()
PRIORITY = {i["name"]: i["priority"] for i in INTENTS}
ORDER = {i["name"]: n for n, i in enumerate(INTENTS)}


def _is_ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def expected_scores(text: str) -> dict[str, int]:
    """SPEC §4.2 scoring, recomputed from policy.toml: sum of lengths of distinct matched keywords,
    where an occurrence strictly inside a longer occurrence of any intent keyword does not count and
    ASCII keywords match whole words only. Texts used with it are plain Simplified Chinese."""
    view = unicodedata.normalize("NFKC", text).lower()
    occurrences = []
    for intent in INTENTS:
        for kw in intent["keywords"]:
            kw = unicodedata.normalize("NFKC", kw).lower()
            start = view.find(kw)
            while start != -1:
                end = start + len(kw)
                head_ok = not (_is_ascii_letter(kw[0]) and start > 0 and _is_ascii_letter(view[start - 1]))
                tail_ok = not (_is_ascii_letter(kw[-1]) and end < len(view) and _is_ascii_letter(view[end]))
                if head_ok and tail_ok:
                    occurrences.append((start, end, kw, intent["name"]))
                start = view.find(kw, start + 1)
    kept = [
        o for o in occurrences
        if not any(p[0] <= o[0] and o[1] <= p[1] and (p[1] - p[0]) > (o[1] - o[0]) for p in occurrences)
    ]
    words: dict[str, set[str]] = {}
    for _, _, kw, name in kept:
        words.setdefault(name, set()).add(kw)
    return {name: sum(len(k) for k in kws) for name, kws in words.items()}


# (id, text, winner, loser): the two intents score equally and nothing else scores as high.
TIES = [
    ("tie 复查 vs 阳性: P1 lab beats P2 followup", "复查阳性", "lab_result", "followup"),
    ("tie 透析 vs 风险: P1 risk beats P5 knowledge", "透析风险", "risk_assessment", "knowledge"),
    ("tie 病历 vs 报告: P2 profile beats P4 report", "病历报告", "patient_profile", "report"),
    ("tie 勋章 vs 通知: P4 notify beats P5 gamification", "勋章通知", "notify", "gamification"),
    ("tie 随访 vs 分期: P1 staging beats P2 followup", "随访分期", "clinical_staging", "followup"),
    ("tie same priority P1: lab before risk in table order", "阳性风险", "lab_result", "risk_assessment"),
    ("tie same priority P2: profile before followup in table order", "随访病历", "patient_profile", "followup"),
    ("tie same priority P3: meal plan before nutrition calc in table order", "定制一份低钾餐单", "meal_plan", "nutrition_calc"),
    ("tie same priority P4: report before notify in table order", "周报短信", "report", "notify"),
    ("tie same priority P5: knowledge before gamification in table order", "透析积分", "knowledge", "gamification"),
]


@pytest.mark.parametrize(("text", "winner", "loser"), [pytest.param(t, w, lo, id=i) for i, t, w, lo in TIES])
def test_ties_break_by_priority_then_table_order(router, text, winner, loser):
    scores = expected_scores(text)
    # the premise, from policy.toml alone
    assert scores.get(winner, 0) > 0 and scores[winner] == scores.get(loser), scores
    assert max(scores.values()) == scores[winner], scores
    assert (PRIORITY[winner], ORDER[winner]) < (PRIORITY[loser], ORDER[loser])
    r = router.classify_intent(text)
    assert (r.intent, r.mcp) == (winner, MCP[winner])
    got = {c.intent: c.score for c in r.candidates}
    assert got[winner] == got[loser] == scores[winner]
    assert [c.intent for c in r.candidates][:2] == [winner, loser]


CONFIDENCE = [
    ("score 2 -> 0.60", "复诊", 2),
    ("score 3 -> 0.65", "血常规", 3),
    ("score 4 -> 0.70", "营养评估", 4),
    ("score 5 -> 0.75 (two keywords add up)", "肌酐和尿素氮多少", 5),
    ("score 6 -> 0.80", "三餐怎么安排", 6),
    ("score 7 -> 0.85", "既往史和用药记录", 7),
    ("score 9 -> 0.95 exactly", "透析是什么意思", 9),
    ("score 10 -> capped at 0.95", "身高百分位和血压百分位算一下", 10),
    ("score 13 -> capped at 0.95", "给家长发消息提醒，预警事件短信", 13),
]


@pytest.mark.parametrize(("text", "score"), [pytest.param(t, s, id=i) for i, t, s in CONFIDENCE])
def test_confidence_formula_from_the_best_candidate_score(router, text, score):
    assert max(expected_scores(text).values()) == score  # premise from policy.toml
    r = router.classify_intent(text)
    best = r.candidates[0].score
    assert best == score
    assert r.confidence == round(min(0.95, 0.50 + 0.05 * best), 2)
    assert r.confidence <= 0.95


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("孩子抽搐了", id="emergency: plain convulsion"),
        pytest.param("血钾7.2，帮我排一周食谱，再查一下化验单", id="emergency: critical value beats other keywords"),
        pytest.param("昏迷", id="emergency: one red-line word"),
    ],
)
def test_emergency_is_forced_with_confidence_one_and_halt(router, text):
    r = router.classify_intent(text)
    assert r.intent == "emergency_red_flag"
    assert r.mcp == ROUTER_MCP
    assert r.confidence == 1.0
    assert r.fallback == "halt"
    assert r.candidates[0].intent == "emergency_red_flag"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("今天天气不错", id="unknown: small talk"),
        pytest.param("你好呀", id="unknown: greeting"),
        pytest.param("hello there", id="unknown: English greeting"),
        pytest.param("P0012", id="unknown: only a patient id"),
        pytest.param("glaucoma", id="unknown: coma inside glaucoma is no ASCII whole word"),
        pytest.param("\u200b\u200d", id="unknown: invisible characters only"),
    ],
)
def test_no_keyword_is_unknown_with_llm_fallback(router, text):
    r = router.classify_intent(text)
    assert r.intent == "unknown"
    assert r.mcp is None
    assert r.confidence == 0.0
    assert r.fallback == "llm"
    assert r.candidates == []
    assert r.note is None


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("肌酐120μmol/L，身高130cm，肾小球滤过率多少", id="candidates: staging over lab"),
        pytest.param("给家长推送复诊提醒", id="candidates: notify over followup"),
        pytest.param("下次复查是什么时候", id="candidates: followup over knowledge"),
        pytest.param("复查化验，看看风险，出个报告，透析是什么", id="candidates: five intents"),
        pytest.param("定制一份低钾餐单", id="candidates: equal scores in table order"),
    ],
)
def test_candidates_are_sorted_best_first(router, text):
    r = router.classify_intent(text)
    cands = r.candidates
    assert len(cands) >= 2
    keys = [(-c.score, PRIORITY[c.intent], ORDER[c.intent]) for c in cands]
    assert keys == sorted(keys)
    assert len({c.intent for c in cands}) == len(cands)
    assert all(c.mcp == MCP[c.intent] for c in cands)
    assert cands[0].intent == r.intent
    assert {c.intent: c.score for c in cands} == expected_scores(text)


@pytest.mark.parametrize(
    ("text", "intent", "contexts"),
    [
        pytest.param("孩子以前有过高热惊厥，现在能吃香蕉吗", "nutrition_calc", ["historical"], id="past red flag: classified as usual, reported"),
        pytest.param("我胸痛，孩子能吃香蕉吗", "nutrition_calc", ["other_person"], id="我 has no caller here: another person"),
        pytest.param("孩子现在抽搐，能吃香蕉吗", "emergency_red_flag", ["current"], id="current red flag: forced emergency"),
        pytest.param("香蕉能吃吗", "nutrition_calc", [], id="no red flag: empty list"),
    ],
)
def test_red_flags_in_other_contexts_do_not_force_an_intent(router, text, intent, contexts):
    r = router.classify_intent(text)
    assert r.intent == intent
    assert [f.context for f in r.red_flags] == contexts
    assert all(f.acknowledged is False for f in r.red_flags)  # classify_intent takes no acknowledgement


# --- what parents of young children ask: concept families (SPEC §4.2 revision 2, issue 21) ----
# Each family both ways: its words make the intent, and a text where something else is asked
# keeps that other intent. Own sentences, written for these rows.

PARENT_FAMILIES = [
    # feeding and appetite: never unknown; a named food asked about stays nutrition_calc
    ("feeding: appetite -> knowledge", "宝宝最近胃口不好怎么办", "knowledge"),
    ("feeding: not eating meals -> knowledge", "孩子不爱吃饭是什么原因", "knowledge"),
    ("feeding: mother's milk supply -> knowledge", "我奶水不够宝宝会饿吗", "knowledge"),
    ("feeding: a named food beats the appetite topic -> nutrition calc", "宝宝胃口不好，能吃山药吗", "nutrition_calc"),
    # fluids: how to rehydrate is knowledge; whether to give (more) water is nutrition_calc
    ("fluids: how to rehydrate -> knowledge", "腹泻的孩子怎么补液", "knowledge"),
    ("fluids: whether to drink more water -> nutrition calc", "需要给孩子多喝水吗", "nutrition_calc"),
    ("fluids: whether to give water -> nutrition calc", "需要喂水吗", "nutrition_calc"),
    ("fluids: the same verb with a medicine -> knowledge", "需要喂药吗", "knowledge"),
    ("fluids: water in the story, a cause asked -> knowledge", "女儿有肾结石，多喝点水就尿频，有关系吗", "knowledge"),
    # tests parents name: lab_result only with something to read
    ("tests: what a stool test shows -> knowledge", "大便常规主要看什么", "knowledge"),
    ("tests: a stool test with a value -> lab result", "大便常规白细胞5个正常吗", "lab_result"),
    ("tests: a positive mycoplasma test -> lab result", "支原体阳性要紧吗", "lab_result"),
    ("tests: mycoplasma pneumonia in the story, no reading -> knowledge", "去年得过支原体肺炎，最近10天又咳", "knowledge"),
    ("tests: preparing for an ultrasound -> knowledge", "宝宝做彩超前要空腹吗", "knowledge"),
    ("tests: what a blood-test report can show -> knowledge", "验血报告能看出是不是缺铁吗", "knowledge"),
    ("tests: a report to look at -> lab result", "帮我看看这个化验报告", "lab_result"),
    # care and procedures
    ("care: another drip -> knowledge", "还要挂水吗", "knowledge"),
    ("care: cooling the child down -> knowledge", "物理降温怎么做", "knowledge"),
    ("care: back to kindergarten with a fever -> knowledge", "孩子发烧了能去幼儿园吗", "knowledge"),
    # the body part a complaint names
    ("body: rubbing the eyes -> knowledge", "宝宝眼睛老是揉是怎么回事", "knowledge"),
    ("body: ear pain -> knowledge", "孩子说耳朵里面疼", "knowledge"),
    # diet advice with no named food is knowledge; with one it stays nutrition_calc
    ("diet advice: what may a coughing child eat -> knowledge", "孩子咳嗽能吃什么", "knowledge"),
    ("diet advice: a named fruit -> nutrition calc", "孩子咳嗽能吃梨吗", "nutrition_calc"),
    ("diet advice: avoid 发物 -> knowledge", "出疹子要忌发物吗", "knowledge"),
    ("diet advice: a named meat that may be 发物 -> nutrition calc", "羊肉是发物吗，出疹子能吃吗", "nutrition_calc"),
    ("diet advice: what to feed after weaning -> knowledge", "断奶以后喂什么", "knowledge"),
    # medicines: dosage forms, course and effect are knowledge
    ("medicine: a powder -> knowledge", "蒙脱石散可以吃吗", "knowledge"),
    ("medicine: a suppository -> knowledge", "退热栓怎么用", "knowledge"),
    ("medicine: how many days -> knowledge", "妈咪爱吃几天", "knowledge"),
    ("medicine: a dose per time -> knowledge", "益生菌一次吃半包够吗", "knowledge"),
    ("medicine: no effect -> knowledge", "这个药吃了没效果", "knowledge"),
    # advice, combining things, fever words, compresses and air
    ("advice: any suggestion -> knowledge", "平时有什么建议吗", "knowledge"),
    ("advice: what to watch -> knowledge", "在家要注意些什么", "knowledge"),
    ("combining: two things together, no food named -> knowledge", "这两样可以一起吃吗", "knowledge"),
    ("combining: two named foods together -> nutrition calc", "香蕉和牛奶可以一起吃吗", "nutrition_calc"),
    ("fever word: how long a low fever lasts -> knowledge", "低烧一般几天能退", "knowledge"),
    ("compress: how long -> knowledge", "冷敷一次敷多久", "knowledge"),
    ("air: a humidifier in the room -> knowledge", "晚上开加湿器可以吗", "knowledge"),
    ("weight gain: weight not growing -> nutrition assessment", "这两个月体重没怎么长", "nutrition_assessment"),
    ("weight gain: a named food asked about -> nutrition calc", "体重没怎么长，能多吃鸡蛋吗", "nutrition_calc"),
    ("recovery: how long until better -> knowledge", "一般要多久才能好转", "knowledge"),
    ("how serious: no big problem? -> risk assessment", "孩子这样应该没什么大问题吧", "risk_assessment"),
    ("how serious: a value to read in the same clause beats it -> lab result", "白细胞13.5没什么大问题吧", "lab_result"),
    # a feeding question with its modal apart from its verb: whether of a named food or drink
    ("feeding question: formula as usual -> nutrition calc", "奶粉可以照常喝吗", "nutrition_calc"),
    ("feeding question: rice cereal, child between modal and verb -> nutrition calc", "米糊能给宝宝吃吗", "nutrition_calc"),
    ("feeding question: stop breast milk -> nutrition calc", "要不要停母乳？", "nutrition_calc"),
    ("feeding question: change the formula -> nutrition calc", "这样的话需要换奶粉吗", "nutrition_calc"),
    ("feeding question: 可能 is no modal -> knowledge", "可能是吃奶粉引起的吗", "knowledge"),
    ("feeding question: 主要 is no modal -> knowledge", "主要是吃了米粉以后拉肚子吗", "knowledge"),
    ("feeding question: a medicine in the clause asks the medicine -> knowledge", "喝了奶粉可以吃药吗", "knowledge"),
    ("feeding question: complementary food is no named food -> knowledge", "生病这几天还能继续加辅食吗", "knowledge"),
]


@pytest.mark.parametrize(("text", "intent"), _rows(PARENT_FAMILIES))
def test_parents_concept_families(router, text, intent):
    r = router.classify_intent(text)
    assert r.intent == intent, (r.intent, r.matched_keywords, r.candidates)
    assert r.fallback is None


# --- parents' follow-ups and their words, second dev-side sample (SPEC §4.2 revision 2, issue 21) --
# Each family both ways, in own sentences.

PARENT_FOLLOW_UPS = [
    # a consume verb followed by nothing but particles names no food or drink: knowledge
    ("no object: may he drink (still)? -> knowledge", "那今晚还可以喝么", "knowledge"),
    ("no object: a child's age, then may she eat -> knowledge", "四个多月大的宝宝能吃吗", "knowledge"),
    ("no object: a little, a tag question -> knowledge", "现在可以喝点是么", "knowledge"),
    ("no object: keep taking it -> knowledge", "已经好多了，还要继续吃么", "knowledge"),
    ("no object: a drink the dictionary lacks, after the verb -> nutrition calc", "能喝薄荷水吗", "nutrition_calc"),
    ("no object: a named food before the verb -> nutrition calc", "苹果孩子可以吃吗", "nutrition_calc"),
    ("no object: an amount asks about something named before -> nutrition calc", "榴莲可以多吃吗", "nutrition_calc"),
    ("no object: how much a day -> nutrition calc", "两岁一天喝多少", "nutrition_calc"),
    # topic words of the second sample: knowledge, and a stronger question keeps its own intent
    ("a chill as the cause -> knowledge", "是不是晚上踢被子受凉了", "knowledge"),
    ("a chill in the story, a named fruit asked -> nutrition calc", "受凉以后能吃梨吗", "nutrition_calc"),
    ("how the child feels -> knowledge", "宝宝看起来很难受", "knowledge"),
    ("how the child feels, how serious asked -> risk assessment", "宝宝难受得厉害，要紧吗", "risk_assessment"),
    ("the emergency room -> knowledge", "这样需要挂急诊吗", "knowledge"),
    ("what it is called -> knowledge", "这个病叫什么", "knowledge"),
    ("whether a saying holds -> knowledge", "老人说捂汗好得快，这个说法对吗", "knowledge"),
    ("stool colour -> knowledge", "这两天便便有点发绿，还带血丝", "knowledge"),
    ("stool colour, a report to look at -> lab result", "便便有点发绿，化验单帮我看看", "lab_result"),
    ("a -炎 disease -> knowledge", "腮腺炎会传染给弟弟吗", "knowledge"),
    ("a blood test in plain words -> knowledge", "需要去医院查一下血吗", "knowledge"),
    ("a blood test with a result -> lab result", "查一下血，血红蛋白偏低", "lab_result"),
    ("a fever patch is a medicine -> knowledge", "退烧贴可以一直贴着吗", "knowledge"),
    # a request to look (您看看, 帮我看) asks as a question does; a blood test's sheet is a result to read
    ("a request to look at a sheet, what to do asked -> lab result", "您看看这张化验单，接下来怎么办", "lab_result"),
    ("a request to look, no result named -> knowledge", "您看看孩子这样还要不要去医院", "knowledge"),
    ("a blood test's sheet in plain words -> lab result", "验血单拿到了，上面箭头多吗", "lab_result"),
    ("a blood test to take in plain words -> knowledge", "去医院查个血要空腹吗", "knowledge"),
    # 还是 asks a choice (A还是B): its clause is a question
    ("a choice between named drinks -> nutrition calc", "晚上喝白开水还是果汁", "nutrition_calc"),
    ("还是 in the story, what to do asked -> knowledge", "吃了药还是一直咳嗽，怎么办", "knowledge"),
    # whether the child gets better on its own, and reassurance asked: risk_assessment
    ("better on its own, without medicine -> risk assessment", "不打针的话会自己好吗", "risk_assessment"),
    ("better on its own in the story, care asked -> knowledge", "听说这种疹子会自己好，平时怎么护理", "knowledge"),
    ("reassurance asked -> risk assessment", "打完疫苗有点低烧，应该不会有事吧", "risk_assessment"),
    ("how many weeks until better -> knowledge", "这种咳嗽要几周才能好", "knowledge"),
    # a named food or drink in a clause that ends asking, and no other topic asked: nutrition_calc
    ("a named milk asked about -> nutrition calc", "晚上那顿换成羊奶粉行吗？", "nutrition_calc"),
    ("two named milks, a choice -> nutrition calc", "母乳和配方奶轮着来呢", "nutrition_calc"),
    ("a named food and a how-much ending -> nutrition calc", "米糊一次冲多少", "nutrition_calc"),
    ("a named milk and a complaint asked -> knowledge", "喝了羊奶粉就拉肚子怎么办", "knowledge"),
    ("a named food in a clause that only holds a question word -> knowledge", "喂了几勺米糊就干呕", "knowledge"),
    ("a named food told, the question elsewhere -> knowledge", "早上吃了米糊，这两天便秘是什么原因", "knowledge"),
]


@pytest.mark.parametrize(("text", "intent"), _rows(PARENT_FOLLOW_UPS))
def test_parents_follow_ups(router, text, intent):
    r = router.classify_intent(text)
    assert r.intent == intent, (r.intent, r.matched_keywords, r.candidates)
    assert r.fallback is None


# --- session 4 (issue 21): families that generalise the tuning texts' misses, each both ways ------

CONSEQUENCES_AND_TOPICS = [
    # whether the child's illness leads to a complication or lasting harm: risk_assessment
    ("consequence: will the fever harm him -> risk", "发烧这么久，脑子会不会烧坏", "risk_assessment"),
    ("consequence: will the cough turn into pneumonia -> risk", "咳了一个礼拜，会不会发展成肺炎", "risk_assessment"),
    ("consequence: will it bring on another illness -> risk", "他拉肚子这么久，会不会引起肠炎", "risk_assessment"),
    ("consequence: will something go wrong -> risk", "心里总担心他会不会出什么问题", "risk_assessment"),
    ("consequence: a medicine's side effect stays knowledge", "这个药会不会引起过敏", "knowledge"),
    ("consequence: a bare 会引起 asked in general stays knowledge", "感冒会引起肺炎吗", "knowledge"),
    ("consequence: a reading in the clause decides -> lab result", "白细胞偏高会不会引起发烧", "lab_result"),
    # whether it could be a given illness: knowledge; how serious asked after it: risk
    ("could it be: a feared illness -> knowledge", "不会是白血病吧", "knowledge"),
    ("could it be: newborn haemolysis -> knowledge", "会不会是溶血", "knowledge"),
    ("could it be, then how serious -> risk", "不会是溶血吧，严重吗", "risk_assessment"),
    # bringing a fever down, and whether a reading counts as fever: knowledge
    ("fever: how to bring it down -> knowledge", "怎么才能让孩子快点退烧", "knowledge"),
    ("fever: does a reading count -> knowledge", "38度2算发烧吗", "knowledge"),
    ("fever in the story, a named food asked -> nutrition calc", "退烧以后能吃鸡蛋吗", "nutrition_calc"),
    # newborn jaundice and its treatment: knowledge; a bilirubin reading: lab result
    ("jaundice: yellow face, phototherapy asked -> knowledge", "新生儿脸有点发黄，要照蓝光吗", "knowledge"),
    ("jaundice with a reading -> lab result", "宝宝发黄，胆红素偏高", "lab_result"),
    # a feeding word asked as the food of a question clause is that food, not a feeding topic asked
    ("asked food: breast milk at night, a complaint in the story -> nutrition calc", "上午拉了两次肚子，睡前的母乳还照常吗", "nutrition_calc"),
    ("asked food: is formula good for him -> nutrition calc", "我感冒了，配方奶粉给宝宝喝好不好？", "nutrition_calc"),
    ("asked food beside a topic asked: an allergy to formula -> knowledge", "最近老拉肚子，是不是对奶粉过敏呢", "knowledge"),
    # topic words by family: alone they make a question knowledge; a stronger question keeps its intent
    ("chill: caught a chill at night -> knowledge", "是不是晚上睡觉凉到了", "knowledge"),
    ("chill in the story, a named drink asked -> nutrition calc", "晚上凉到了，能喝点姜汤吗", "nutrition_calc"),
    ("jaundice by its degree -> knowledge", "新生儿十天，眼白有点黄", "knowledge"),
    ("crying -> knowledge", "宝宝一直哭，会不会是肠绞痛", "knowledge"),
    ("crying in the story, a sheet to read -> lab result", "宝宝一直哭，化验单帮我看看", "lab_result"),
    ("nappies -> knowledge", "纸尿裤多久换一次", "knowledge"),
    ("speech -> knowledge", "三岁了还不太会讲话", "knowledge"),
    ("blood groups -> knowledge", "爸爸是o型，妈妈是a型，孩子可能是什么血型", "knowledge"),
    # a dose in milligrams and a spray are medicines; a concentration in a lab report is none
    ("a dose in milligrams -> knowledge", "剩下半片5mg的，孩子能用吗", "knowledge"),
    ("a spray -> knowledge", "一岁以下可以用鼻喷雾剂吗", "knowledge"),
    ("a concentration in mg/dl is a reading -> lab result", "肌酐1.2mg/dl正常吗", "lab_result"),
    # ate little (没吃什么东西) tells an appetite, it asks no diet advice; 几口 is a few mouthfuls
    ("ate little, a complaint asked -> knowledge", "一整天几乎没吃什么东西，肚子鼓鼓的怎么办", "knowledge"),
    ("diet advice asked -> knowledge", "肺炎期间吃什么东西好", "knowledge"),
    ("a few mouthfuls, then vomiting told -> knowledge", "早上喂了几口米糊就吐了", "knowledge"),
    ("a few mouthfuls, then whether to feed more -> nutrition calc", "早上喂了几口米糊，还能喂吗", "nutrition_calc"),
    # how long until cured and how to cure ask the course and the treatment; whether it can be cured, the prognosis
    ("how long until cured -> knowledge", "孩子的湿疹多久能治好", "knowledge"),
    ("whether it can be cured -> risk", "孩子的湿疹能治好吗", "risk_assessment"),
    ("how to cure -> knowledge", "尿床怎么才能治好", "knowledge"),
    # how serious as a grade, dehydration as a complication, reassurance in more endings
    ("a grade of severity asked -> risk", "应该只算轻度的吧", "risk_assessment"),
    ("a grade told, a medicine asked -> knowledge", "医生说是轻度肺炎，要吃什么药", "knowledge"),
    ("will he dehydrate -> risk", "拉了这么多次，会不会脱水", "risk_assessment"),
    ("how to prevent dehydration -> knowledge", "拉肚子怎么防止脱水", "knowledge"),
    ("没事儿吧 ending the question -> risk", "咳了两天了，没事儿吧", "risk_assessment"),
    # the amount of a feed asked is nutrition_calc; told in the story it loses to the complaint asked
    ("the amount of milk as before -> nutrition calc", "拉肚子好了，奶量还按以前的量吗", "nutrition_calc"),
    ("less milk told, what is it asked -> knowledge", "这几天奶量少了一半，怎么回事", "knowledge"),
    ("a medicine's amount as before -> knowledge", "药还照以前的量吃吗", "knowledge"),
    # a food before 里 / 中 is the vehicle of what is put in it, not the food asked
    ("a probiotic in the formula -> knowledge", "打算把益生菌兑到奶粉中喂他", "knowledge"),
    ("this one in the formula -> knowledge", "这包能兑到奶粉中给他喝吗", "knowledge"),
    ("rice cereal in the formula: the food added is asked -> nutrition calc", "奶粉里可以加米粉吗", "nutrition_calc"),
    # a cause suspected, stool counts, sleep around feeds and keeping milk: knowledge topics
    ("a cause suspected -> knowledge", "跟换了新牌子的牛奶有关吗", "knowledge"),
    ("a stool count told -> knowledge", "她现在一天拉七八回，多不多", "knowledge"),
    ("a stool count told, a sheet to read -> lab result", "她现在一天拉七八回，化验单帮我看看", "lab_result"),
    ("waking a sleeping baby for a feed -> knowledge", "半夜睡得正香，用不用叫醒喂奶", "knowledge"),
    ("kept milk, a named drink asked -> nutrition calc", "泡好的奶粉放冰箱，第二天能喝吗", "nutrition_calc"),
    ("a disease named after an analyte -> knowledge", "血小板减少症平时要注意什么", "knowledge"),
    ("the same disease with a value -> lab result", "血小板减少症，血小板只有50", "lab_result"),
    ("a result asked to be looked at -> lab result", "医生能不能看下结果", "lab_result"),
]


@pytest.mark.parametrize(("text", "intent"), _rows(CONSEQUENCES_AND_TOPICS))
def test_consequences_and_topics(router, text, intent):
    r = router.classify_intent(text)
    assert r.intent == intent, (r.intent, r.matched_keywords, r.candidates)
    assert r.fallback is None
