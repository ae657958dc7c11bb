"""Families of parents' words for the neurological, breathing, crying and kidney danger signs (issue 20).

Session 3's labelled pool emergencies showed parents saying one sign in endless variants (poor spirits with a
filler between, not lively, sleepier than usual; breathing not smooth, a whistle in the throat; a long cry,
crying all the time): each family is one
bounded pattern of the policy, not a list of the phrasings seen. Every sentence here is our own, and
each family is tested both ways: its forms ask (mild) or halt (strong), and its look-alikes — another
sense of the words, good news, a negation, the past, another person, a question — never halt, most
never even ask. The checks are test_parent_vocabulary's, reused.
"""

from __future__ import annotations

import pytest

from app.router import Router

from .test_kidney_signs import LOOK_ALIKES as KIDNEY_NOT_NOW
from .test_kidney_signs import NOW as KIDNEY_NOW
from .test_kidney_signs import test_kidney_sign as kidney_sign
from .family_tables import family_checks
from .test_parent_vocabulary import PARENT

HARD = [
    # id, text, the concept that halts
    ("spirits very poor, a filler between", "女儿这两天精神也特别差", "lethargy"),
    ("spirits extremely poor, said of the state", "儿子的精神头非常不好", "lethargy"),
    ("asleep all along", "儿子发着烧一直睡觉，饭也不吃", "lethargy"),
    ("keeps sleeping: 嗜睡 in a parent's words", "儿子今天老是睡觉", "lethargy"),
    ("very weak after a day of diarrhoea", "拉了一天肚子，孩子现在很虚弱", "lethargy"),
    ("weak and strengthless all over", "宝宝全身软弱无力", "lethargy"),
    ("no response when her name is called", "喊她名字也没什么反应", "altered_consciousness"),
    ("fontanelle a little full", "宝宝发烧，囟门有点饱满", "meningeal_signs"),
    ("arched back and neck", "孩子角弓反张", "meningeal_signs"),
    ("spots that do not fade under a finger", "腿上的红点用手按一下也不褪", "non_blanching_rash"),
    ("PD fluid a little cloudy, the bare 混", "腹透液有些混", "pd_peritonitis"),
]

SOFT = [
    # id, text, the concept whose severity question is asked
    ("spirits a bit poor, fillers between", "宝宝精神也有点差", "lethargy"),
    ("spirits maybe a little worse", "孩子精神好像差一些", "lethargy"),
    ("not lively, with a degree word", "孩子看着不太精神", "lethargy"),
    ("not lively since a cold", "感冒以后不太精神", "lethargy"),
    ("spirits turned not so good with a fever", "一发烧精神就不大好", "lethargy"),
    ("sleepier, said as a trait", "这几天宝宝特别贪睡", "lethargy"),
    ("sleeps more than usual", "女儿最近比平时睡得多", "lethargy"),
    ("sleeps rather a lot", "儿子睡的时间挺多", "lethargy"),
    ("sleeping time very long", "这两天女儿睡觉时间特别多", "lethargy"),
    ("falls asleep easily today", "宝宝今天特别容易犯困", "lethargy"),
    ("mood lower than before", "女儿这几天情绪不如以前高", "lethargy"),
    ("plays less than before", "宝宝玩得没之前欢", "lethargy"),
    ("no interest in toys", "宝宝对玩具都不感兴趣了", "lethargy"),
    ("a little weak", "孩子有点虚弱", "lethargy"),
    ("hardly any spirits", "女儿这两天没啥精神", "lethargy"),
    ("not keen to play", "儿子不太爱玩了", "lethargy"),
    ("breathing not quite smooth", "孩子喘气有点不顺", "respiratory_distress"),
    ("breathing not very even", "宝宝呼吸不是很均匀", "respiratory_distress"),
    ("a whistle in the throat", "宝宝睡着了嗓子里丝丝响", "respiratory_distress"),
    ("a wheezy sound on breathing", "孩子喘气时有嘶嘶的声音", "respiratory_distress"),
    ("breathing with effort", "听着孩子在使劲地喘气", "respiratory_distress"),
    ("a feed stopped to catch a breath", "宝宝喝奶喝一会就停下来喘气", "respiratory_distress"),
    ("the doctor hears a little asthma", "医生听了说有些哮喘", "respiratory_distress"),
    ("cried over an hour", "宝宝今晚哭了一个多小时", "abnormal_cry"),
    ("cried a long while", "女儿下午哭了好久", "abnormal_cry"),
    ("keeps crying", "女儿这两天老是哭", "abnormal_cry"),
    ("cried hoarse", "孩子哭得嗓子都哑了", "abnormal_cry"),
    ("voice cried hoarse", "儿子声音都哭沙哑了", "abnormal_cry"),
    ("crying very hard", "宝宝哭得特别凶", "abnormal_cry"),
    ("breathing a little fast", "孩子喘气有些急", "respiratory_distress"),
    ("wheezing somewhat badly", "晚上喘得有点严重", "respiratory_distress"),
    ("chest a bit tight", "女儿说胸口有点闷", "chest_pain"),
    ("chest uncomfortable", "儿子心口不舒服", "chest_pain"),
    ("feet swollen again", "孩子脚又肿了", "severe_edema"),
    ("eyelids a little puffy", "早上起来眼皮有些浮肿", "severe_edema"),
    ("a pit left by a finger", "小腿按下去有个坑", "severe_edema"),
]

LOOK_ALIKES = [
    # id, text: no mention of any sign
    ("cannot fall asleep", "宝宝一直睡不着"),
    ("sleeps until morning", "孩子一直睡到天亮"),
    ("sleeps badly all along", "女儿一直睡得不好"),
    ("never sleeps soundly", "女儿总是睡不踏实"),
    ("wakes after a short nap", "儿子老是睡半小时就醒"),
    ("does not like sleeping", "孩子不爱睡觉"),
    ("asking how much newborns sleep", "新生儿一般睡得多不多"),
    ("advice to sleep more", "孩子睡得多一点好"),
    ("does not sleep much", "宝宝白天睡得不多"),
    ("does not much like sleeping", "孩子不太爱睡觉"),
    ("hard to get to sleep", "宝宝晚上不容易睡着"),
    ("spirits fine", "宝宝精神还好"),
    ("spirits not poor", "孩子精神不差"),
    ("asking whether spirits are good", "孩子精神好不好怎么看"),
    ("a weak constitution", "孩子体质虚弱，老感冒"),
    ("breathing normal", "孩子呼吸正常"),
    ("the belly rumbles", "饿了肚里呼呼响"),
    ("a sound sleeper", "孩子睡得呼呼的"),
    ("the wind", "外面风呼呼地刮"),
    ("likes to cry", "宝宝爱哭"),
    ("a fussy child", "女儿晚上老是哭闹"),
    ("a psychiatry clinic", "要不要去看精神科"),
    ("asking whether the child is lively", "孩子有没有精神怎么判断"),
    ("a chest X-ray", "医生让拍个胸片"),
    ("an inflamed throat", "孩子嗓子红肿"),
    ("a lump", "脖子上摸到一个肿块"),
    ("swelling gone", "孩子脚不肿了"),
    ("not knowing about the PD fluid", "腹透液不清楚怎么换"),
    ("mixing a PD bag", "腹透液混合好了再加热"),
    ("spots that fade under a finger", "红点按一下就褪了"),
    ("a medicine that did nothing", "吃了药没什么反应"),
]

NEVER_HALTS = [
    # id, text: a strong form in the past, of another person, negated or asked about
    ("spirits very poor, in the past", "孩子以前精神也特别差，现在好了"),
    ("another person very weak", "我妈最近很虚弱"),
    ("a neighbour's child cried hoarse", "邻居家孩子哭得嗓子都哑了"),
    ("not very weak", "宝宝没有很虚弱"),
    ("a question about sleepy babies", "如果宝宝特别贪睡要不要叫醒喂奶"),
    ("a question about the glass test", "出血点按压不褪色是什么原因"),
    ("another person's chest", "我老公最近胸口有点闷"),
]


(test_a_family_strong_form_halts, test_a_family_mild_form_asks_its_severity_question,
 test_a_family_look_alike_is_no_mention, test_a_family_form_not_of_the_child_now_never_halts) = family_checks(
    HARD, SOFT, LOOK_ALIKES, NEVER_HALTS)


# Kidney signs said with words between (SPEC §3.5 revision 2), written the kidney table's five ways:
# now (halts), and in the past, negated, of another person, as a knowledge question (asks).
KIDNEY: dict[str, list[str]] = {
    "transplant_alert": ["换肾后小便变少", "移植的肾那里疼", "移植后这几天尿量少"],
    "fluid_overload": ["躺下来就喘", "坐起来才能喘气", "垫高枕头才不憋"],
    "hypocalcemic_tetany": ["嘴巴周围有点麻", "嘴唇周围发麻"],
    "hypertensive_emergency": ["血压偏高又头痛", "血压一直高还看不清"],
}
NEPHROTIC = ["肚子疼得厉害还发烧", "发烧了肚子也痛"]


def _kidney_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for concept, phrasings in KIDNEY.items():
        for n, s in enumerate(phrasings):
            rows.append((f"{concept} now: {s}", KIDNEY_NOW[n % len(KIDNEY_NOW)].format(s=s), concept, "halt"))
            rows += [(f"{concept} {kind}: {s}", template.format(s=s), concept, "ask") for kind, template in KIDNEY_NOT_NOW.items()]
    for s in NEPHROTIC:
        rows.append((f"nephrotic_complication now: {s}", f"孩子肾病综合征，今天{s}", "nephrotic_complication", "halt"))
        rows.append((f"nephrotic_complication other person: {s}", f"我同事的孩子肾病综合征，{s}", "nephrotic_complication", "ask"))
        rows.append((f"nephrotic_complication needs the syndrome named: {s}", f"孩子{s}，能吃香蕉吗", "", "not_that_concept"))
    return rows


KIDNEY_LOOK_ALIKES = [
    # id, text: never halts
    ("fine sitting down", "孩子坐着就好，能吃香蕉吗"),
    ("lying down to feed", "宝宝躺着喝奶会不会呛"),
    ("coughing when lying down", "孩子躺着就咳几声"),
    ("high blood pressure alone, history", "孩子肾炎三年，有高血压，能吃橙子吗"),
    ("a bone-marrow question without a sign", "骨髓移植后能吃什么"),
]


@pytest.mark.parametrize(("text", "concept", "expected"), [r[1:] for r in _kidney_rows()], ids=[r[0] for r in _kidney_rows()])
def test_a_kidney_family_form(router: Router, text, concept, expected):
    kidney_sign(router, text, concept, expected)


@pytest.mark.parametrize("text", [r[1] for r in KIDNEY_LOOK_ALIKES], ids=[r[0] for r in KIDNEY_LOOK_ALIKES])
def test_a_kidney_family_look_alike_never_halts(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status != "halt"
