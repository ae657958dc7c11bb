"""SPEC §4.7 "Parents' stories (revision 2)": each rule with rows both ways.

Each row: an id that names the rule, the text, the caller and the expected ``(concept, context)``
of each red-flag mention in text order. Where a rule can refuse, a row shows the refusal too (the
rule does not reach, or the older reading stays).
"""

from __future__ import annotations

import pytest

from app.router.analysis import analyze

PARENT, CHILD = "parent_assistant", "child_companion"
CUR, NEG, OTH, HIS, HYP = "current", "negated", "other_person", "historical", "hypothetical"
SZ, AC, LE, RD, AN, GI, IF = (
    "seizure", "altered_consciousness", "lethargy", "respiratory_distress", "anuria", "gi_bleeding", "infant_fever",
)
HK, HE = "hyperkalemia", "hypertensive_emergency"

ROWS = [
    # --- past scopes stop at a clause that speaks of now ---------------------------------------
    ("past scope: history, then a now clause halts", "儿子前年查出肾炎，今天早上突然惊厥", PARENT, [(SZ, CUR)]),
    ("past scope: a part of today opens a now clause", "孩子去年做过肾穿刺，早上抽搐了", PARENT, [(SZ, CUR)]),
    ("past scope: 刚 opens a now clause", "女儿上个月住过院，刚抽搐了一次", PARENT, [(SZ, CUR)]),
    ("past scope: last night opens a now clause", "孩子以前很健康，半夜突然昏迷", PARENT, [(AC, CUR)]),
    ("past scope: its own clause stays past", "前两天她突然口吐白沫", PARENT, [(SZ, HIS)]),
    ("past scope: a clause without now stays past", "孩子去年住院，抽搐了好几次", PARENT, [(SZ, HIS)]),
    ("past scope: 一直 alone does not stop it (†)", "孩子去年住院，一直抽搐", PARENT, [(SZ, HIS)]),
    ("past scope: 了 alone does not stop it (†)", "孩子去年肾炎，抽搐了", PARENT, [(SZ, HIS)]),
    # --- a recurrence is current ------------------------------------------------------------------
    ("recurrence: like last time, again", "跟上次一样又惊厥了", PARENT, [(SZ, CUR)]),
    ("recurrence: 又 right before the term under a past cue", "孩子以前有过抽搐，这次又抽搐", PARENT, [(SZ, HIS), (SZ, CUR)]),
    ("recurrence: 再次 two characters before", "去年住院后，再次出现抽搐", PARENT, [(SZ, CUR)]),
    ("recurrence: 又 too far away does not reach", "去年他又住院又打针还抽搐", PARENT, [(SZ, HIS)]),
    ("ongoing: to now, still convulsing", "两天前开始抽搐，到现在还在抽", PARENT, [(SZ, CUR)]),
    ("ongoing: 至今 makes the past mention current", "三天前开始便血，至今没停", PARENT, [(GI, CUR)]),
    ("ongoing: none, the past stays", "两天前开始抽搐，后来好了", PARENT, [(SZ, HIS)]),
    # --- negation governs only through filler -----------------------------------------------------
    ("negation: a symptom between ends it", "没咳嗽就开始呼吸困难", PARENT, [(RD, CUR)]),
    ("negation: no warning, then a fit", "一点预兆没有地惊厥了", PARENT, [(SZ, CUR)]),
    ("negation: 没效果 is a pseudo-negation", "药吃了也没效果还在抽搐", PARENT, [(SZ, CUR)]),
    ("negation: 撑不住 is a pseudo-negation", "快撑不住了喘不上气", PARENT, [(RD, CUR)]),
    ("negation: 毫无征兆 is a pseudo-negation", "毫无征兆抽搐", PARENT, [(SZ, CUR)]),
    ("negation: 没想到 is a pseudo-negation", "没想到昏迷了", PARENT, [(AC, CUR)]),
    ("negation: 不行 is a pseudo-negation", "不行了呼吸困难", PARENT, [(RD, CUR)]),
    ("negation: 是 is filler, 不是昏迷吧 stays negated", "不是昏迷吧", PARENT, [(AC, NEG)]),
    ("negation: filler 出现 and 任何", "没有出现任何抽搐", PARENT, [(SZ, NEG)]),
    ("negation: 没有过 is a negation, not 有过", "孩子没有过抽搐", PARENT, [(SZ, NEG)]),
    ("negation: 不明显的 is a pseudo-negation", "吐出来不明显的咖啡渣样东西", PARENT, [(GI, CUR)]),
    # --- places and carers are not subjects -------------------------------------------------------
    ("place: at grandma's house", "女儿在姥姥家抽起来了", PARENT, [(SZ, CUR)]),
    ("place: lying on me", "宝宝趴在我身上抽搐", PARENT, [(SZ, CUR)]),
    ("carer: grandpa watching", "孩子姥爷在看着，刚刚昏过去了", PARENT, [(AC, CUR)]),
    ("carer: looked after by grandma", "孩子被奶奶带着，突然抽搐", PARENT, [(SZ, CUR)]),
    ("carer: 跟 after the child was named", "孩子跟爷爷出去玩，突然抽搐", PARENT, [(SZ, CUR)]),
    ("carer: 跟 with no child before is a subject", "跟爷爷一样，爷爷抽搐了", PARENT, [(SZ, OTH)]),
    ("place refused: grandma herself convulsed", "姥姥刚才抽搐了", PARENT, [(SZ, OTH)]),
    ("object: the child looked at me, then convulsed", "孩子抬头看了我一眼，又抽搐了", PARENT, [(SZ, CUR)]),
    ("object: the child hugging me", "孩子抱着我抽搐", PARENT, [(SZ, CUR)]),
    ("object refused: I myself convulsed", "我刚才抽搐了", PARENT, [(SZ, OTH)]),
    ("object refused: I told the doctor I convulsed", "我告诉医生我抽搐了", PARENT, [(SZ, OTH)]),
    ("place refused: grandma's house's child is hers", "姥姥家的孩子抽搐了", PARENT, [(SZ, OTH)]),
    ("subject words inside other words: 老婆饼", "吃了老婆饼，抽搐了", PARENT, [(SZ, CUR)]),
    ("subject words inside other words: 外婆菜", "外婆菜吃完就抽搐", PARENT, [(SZ, CUR)]),
    ("subject words: 老婆 alone still another person", "老婆昨天抽搐了", PARENT, [(SZ, OTH)]),
    ("patient word 二宝", "家里二宝惊厥了", PARENT, [(SZ, CUR)]),
    ("patient word 老大 after another person", "我妈说老大刚才抽搐", PARENT, [(SZ, CUR)]),
    ("patient word 闺女", "我爸说闺女昏迷了", PARENT, [(AC, CUR)]),
    ("patient word 宝儿", "我老公说宝儿呼吸困难", PARENT, [(RD, CUR)]),
    ("patient word refused: 老大爷 is an old man", "我爸说老大爷抽搐了", PARENT, [(SZ, OTH)]),
    # --- the writer is a subject for their own clause's sign only (rf20d, issue 20) ----------------
    ("writer: 他 after 我 is the child again", "我下班回来给他换了衣服，他突然抽搐", PARENT, [(SZ, CUR)]),
    ("writer refused: 他 after another person stays theirs", "我老公晕倒了，他现在还昏迷", PARENT, [(AC, OTH), (AC, OTH)]),
    ("writer refused: 他们 is not 他", "我刚才抽搐了，他们说还口吐白沫", PARENT, [(SZ, OTH), (SZ, OTH)]),
    ("writer refused: 我 then a sign in the same clause is mine", "我刚才晕倒了", PARENT, [(AC, OTH)]),
    ("writer: in a story about a named child, the writer's clause ends their turn",
     "宝宝发烧两天了。我今天请假在家。刚才又抽搐了", PARENT, [(SZ, CUR)]),
    ("writer: … a clause too", "孩子奶奶在带，我在上班，刚才抽搐了", PARENT, [(SZ, CUR)]),
    ("writer refused: with no child named, the writer's story goes on", "我从小身体不好。刚才又抽搐了", PARENT, [(SZ, OTH)]),
    ("writer refused: the writer's sign in their own clause", "孩子在上学。我今天头晕刚才晕倒了", PARENT, [(AC, OTH)]),
    ("writer asks: 我想问 is no subject", "我想问一下，刚才抽搐了要紧吗", PARENT, [(SZ, CUR)]),
    ("writer guesses: 我以为 is no subject", "我以为退烧了，结果又抽搐了", PARENT, [(SZ, CUR)]),
    ("writer as carer: 我给", "吃完药我给擦了擦嘴，突然抽搐了", PARENT, [(SZ, CUR)]),
    ("writer as carer: 奶奶抱着", "奶奶抱着突然抽搐了", PARENT, [(SZ, CUR)]),
    ("writer as carer refused: 我给医生说我…", "我给医生说我昨天晕倒了", PARENT, [(AC, OTH)]),
    ("the mother's milk is no subject", "刚吃完我的母乳就抽搐了", PARENT, [(SZ, CUR)]),
    ("patient word 我宝", "我宝刚才抽搐了", PARENT, [(SZ, CUR)]),
    # --- habitual cues: a bounded reach, and 一开始就 is no 一…就 --------------------------------
    ("habitual: a sign far on in a run-on clause is current", "偶尔咳两声说话声音也有点哑哑的嘴唇发紫", PARENT,
     [("cyanosis", CUR)]),
    ("habitual refused: within reach it stays habitual", "有时候咳完嘴唇发紫", PARENT, [("cyanosis", HYP)]),
    ("habitual refused: the reach runs on along a list of signs", "她经常嘴唇发紫、手攥得紧紧的、口吐白沫", PARENT,
     [("cyanosis", HYP), (SZ, HYP)]),
    ("habitual: 一开始就 says when, not how often", "宝宝一开始就呼吸困难", PARENT, [(RD, CUR)]),
    ("habitual: 一分钟就", "没过一分钟就抽搐一次", PARENT, [(SZ, CUR)]),
    ("habitual refused: 一哭就 is 一…就", "宝宝一哭就呼吸困难", PARENT, [(RD, HYP)]),
    # --- ongoing markers said with today's word ---------------------------------------------------
    ("ongoing: 目前还 makes the past mention current", "两天前开始抽搐，目前还是一天抽好几次", PARENT, [(SZ, CUR)]),
    ("ongoing: 今天还", "前天开始便血，今天还有", PARENT, [(GI, CUR)]),
    ("ongoing: not better yet", "孩子三天前开始呼吸困难，一直没好", PARENT, [(RD, CUR)]),
    ("since: 从 + a past time runs to now", "孩子从前天开始一直呼吸困难", PARENT, [(RD, CUR)]),
    ("since: 从三天前", "孩子从三天前开始便血", PARENT, [(GI, CUR)]),
    ("since refused: 从小 is a past cue", "孩子从小就抽搐", PARENT, [(SZ, HIS)]),
    ("since refused: a past time without 从 stays past", "孩子前天开始便血", PARENT, [(GI, HIS)]),
    ("contrast: 结果 turns the story as 后来 does", "孩子前几天感冒，以为好了，结果抽搐了", PARENT, [(SZ, CUR)]),
    ("contrast refused: without it the past scope runs on", "孩子前几天感冒，以为好了，抽搐了", PARENT, [(SZ, HIS)]),
    ("contrast refused: a test's result is no cue", "孩子上周抽搐，检查结果是癫痫", PARENT, [(SZ, HIS)]),
    ("comparison: 像上次那样 is no past cue", "孩子又像上次那样抽搐了", PARENT, [(SZ, CUR)]),
    ("comparison refused: 上次 alone is past", "孩子上次抽搐了", PARENT, [(SZ, HIS)]),
    # --- 过 in a clause of today, and 当时 after a time of today --------------------------------
    ("perfect: 过 in a clause of today has happened today", "孩子今天早上抽搐过一次，现在睡着了", PARENT, [(SZ, CUR)]),
    ("perfect: 过 in a clause of last night", "宝宝半夜昏迷过一次", PARENT, [(AC, CUR)]),
    ("perfect refused: a past cue in force keeps 过 past", "前天半夜抽搐过", PARENT, [(SZ, HIS)]),
    ("perfect refused: a now cue in another clause does not reach 过", "现在想问，孩子抽搐过，能吃香蕉吗", PARENT, [(SZ, HIS)]),
    ("then: 当时 after last night is last night", "宝宝昨天晚上抽搐，当时叫不醒", PARENT, [(SZ, CUR), (AC, CUR)]),
    ("then refused: 当时 after a past cue is past", "去年住院，当时抽搐了", PARENT, [(SZ, HIS)]),
    ("then refused: 当时 with no time before it is past", "当时抽搐了", PARENT, [(SZ, HIS)]),
    # --- a stated event stays current under a question --------------------------------------------
    ("question: a stated fit then 怎么回事", "宝宝惊厥了，这是怎么回事", PARENT, [(SZ, CUR)]),
    ("question: 了 before 怎么回事", "宝宝惊厥了怎么回事", PARENT, [(SZ, CUR)]),
    ("question: a manner cue before 是什么原因", "孩子突然抽搐是什么原因", PARENT, [(SZ, CUR)]),
    ("question: a now cue in the clause", "孩子今天抽搐是什么原因", PARENT, [(SZ, CUR)]),
    ("question: 怎么办 is no cue", "孩子抽搐怎么办", PARENT, [(SZ, CUR)]),
    ("question: a part of today in the clause states the event", "宝宝晚上囟门鼓起来是怎么回事", PARENT, [("meningeal_signs", CUR)]),
    ("question refused: 惊厥是怎么回事 asks", "惊厥是怎么回事", PARENT, [(SZ, HYP)]),
    ("question refused: 抽搐是什么原因 asks", "抽搐是什么原因", PARENT, [(SZ, HYP)]),
    # --- leftmost-longest over every word at once -------------------------------------------------
    ("leftmost-longest: 目前天 is 目前 only", "孩子目前天天抽搐", PARENT, [(SZ, CUR)]),
    ("leftmost-longest refused: 前天 alone is past", "孩子前天抽搐", PARENT, [(SZ, HIS)]),
    ("leftmost-longest: a term keeps its cue character (没反应 is a term)", "叫他没反应", PARENT, [(AC, CUR)]),
    ("leftmost-longest: a food never holds a term", "喝奶迷糊", PARENT, [(LE, CUR)]),
    # --- every line is a line ---------------------------------------------------------------------
    ("line: \\r ends the past sentence", "以前抽搐过\r孩子刚才昏迷", PARENT, [(SZ, HIS), (AC, CUR)]),
    ("line: U+2028 ends the past sentence", "以前抽搐过\u2028孩子刚才昏迷", PARENT, [(SZ, HIS), (AC, CUR)]),
    ("line: U+2029 ends the past sentence", "以前抽搐过\u2029孩子刚才昏迷", PARENT, [(SZ, HIS), (AC, CUR)]),
    ("line: U+0085 ends the past sentence", "以前有过抽搐\x85孩子昏迷", PARENT, [(SZ, HIS), (AC, CUR)]),
    ("line refused: a space is no line end", "以前有过抽搐 昏迷", PARENT, [(SZ, HIS), (AC, HIS)]),
    # --- a term never swallows a cue's character (a negation in a pattern's gap still acts) -------
    ("pattern gap: 嘴唇不发紫 is negated", "嘴唇不发紫", PARENT, [("cyanosis", NEG)]),
    ("pattern gap refused: the pattern's own 不 (喘不上气) is no negation", "喘不上气", PARENT, [(RD, CUR)]),
    # --- every value is read, each in its own context and unit ------------------------------------
    ("values: a past value and today's", "血钾以前6.8，今天7.2", PARENT, [(HK, HIS), (HK, CUR)]),
    ("values: a now cue between word and value", "以前血钾高，血钾今天7.1", PARENT, [(HK, CUR)]),
    ("values: 毫摩尔/升", "孩子血钾7.0毫摩尔/升", PARENT, [(HK, CUR)]),
    ("values: 毫摩尔每升", "孩子血钾7.0毫摩尔每升", PARENT, [(HK, CUR)]),
    ("values: mmol/L", "孩子血钾7.0 mmol/L", PARENT, [(HK, CUR)]),
    ("values: mEq/L", "孩子血钾7.0 mEq/L", PARENT, [(HK, CUR)]),
    ("values refused: mg is no potassium unit", "香蕉含钾7.0mg", PARENT, []),
    ("values refused: a clause without a time cue does not continue", "血钾以前6.8，后来吃了药", PARENT, [(HK, HIS)]),
    ("values: a blood pressure reading in a child", "孩子血压175/115，头疼还吐", PARENT, [(HE, CUR)]),
    ("values refused: a child's normal blood pressure", "孩子血压120/80", PARENT, []),
    ("values refused: an adult's 165/100 is under 180/120", "我爸血压165/100", PARENT, []),
    # --- young infants: ages as §4.4 revision 2, spaces, a fever without a number ----------------
    ("infant: a space before the unit", "宝宝出生20天，体温 38.5 ℃", PARENT, [(IF, CUR)]),
    ("infant: spaces around the age", "出生 20 天，发烧38.5度", PARENT, [(IF, CUR)]),
    ("infant: child word + N个月", "宝宝2个月，发烧38度", PARENT, [(IF, CUR)]),
    ("infant: 两个多月 at the start", "两个多月，发烧38.2", PARENT, [(IF, CUR)]),
    ("infant: 一个半月", "一个半月的宝宝发烧39度", PARENT, [(IF, CUR)]),
    ("infant: every temperature, the past one too", "宝宝47天，昨天以前体温37.5，今天体温38.6", PARENT, [(IF, CUR)]),
    ("infant: a fever word and no number", "出生十天有点发热", PARENT, [(IF, CUR)]),
    ("infant: the newborn feels hot", "新生儿摸着很烫", PARENT, [(IF, CUR)]),
    ("infant refused: a normal temperature is no fever word", "出生十天，体温36.8，有点发热吗", PARENT, []),
    ("infant refused: three months is not under three", "宝宝3个月，发烧", PARENT, []),
    ("infant refused: a duration is no age", "宝宝发烧两个多月了", PARENT, []),
    # --- refusing food, a question about dehydration ----------------------------------------------
    ("soft: refusing formula is not unable to drink (asks severity)", "宝宝不吃奶", PARENT, [("unable_to_drink", CUR)]),
    ("dehydration: what it looks like is a question", "脱水是什么样", PARENT, [("dehydration", HYP)]),
    ("dehydration: how to tell is a question", "如何判断孩子脱水", PARENT, [("dehydration", HYP)]),
    ("dehydration refused: a child dehydrated now", "孩子脱水了", PARENT, [("dehydration", CUR)]),
]


def flags(policy, text: str, caller):
    return [(f.concept, f.context) for f in analyze(policy, text, caller).red_flags]


@pytest.mark.parametrize(("text", "caller", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_parents_stories(policy, text, caller, expected):
    assert flags(policy, text, caller) == expected
