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
