"""Intake, fluids, bleeding and fever: the families parents say them in (issue 20, session 3).

The pool of labelled parents' messages showed the same sign in endless variants (vomits soon after a
feed, drinks reluctantly, little urine, a fever that will not come down). Each family is one bounded
pattern over listed words (app/router/policy.toml, the concepts unable_to_drink, vomits_everything,
anuria, gi_bleeding, persistent_fever). Every sentence here is our own. Each family is tested both
ways: its strong form halts, its mild form asks the concept's severity question, and its look-alikes
(another sense of the words, spitting up once, a medicine, a grandmother, a room) are no mention;
a past, negated, other person's or hypothetical form never halts.
"""

from __future__ import annotations

import pytest

from app.router import Router
from tests.router.family_tables import family_checks
from tests.router.test_symptoms import asks_the_family
from tests.router.test_parent_vocabulary import PARENT

HARD = [
    # id, text, the concept that halts
    ("whatever is eaten comes back, a few characters between", "孩子吃啥过一会都吐", "vomits_everything"),
    ("whatever is fed comes back", "宝宝喂什么就吐", "vomits_everything"),
    ("vomiting hard, typed with 的", "儿子今天吐的很厉害", "vomits_everything"),
    ("even water still halts beside the soft family", "女儿发烧，喝水都吐", "vomits_everything"),
    ("even milk still halts beside the soft family", "小宝这会儿喝奶都吐", "vomits_everything"),
    ("the temperature will not come down", "孩子体温一直降不下来", "symptom.general"),
    ("the temperature, said 温度", "宝宝温度还是退不下去", "symptom.general"),
    ("the fever will not go, a few words between", "宝宝的烧怎么也退不了", "symptom.general"),
    ("the fever will not go down, 不会退", "烧了三天就是不会退", "symptom.general"),
    ("an antipyretic that does nothing", "吃了布洛芬也不见效，还是39度", "symptom.general"),
    ("a fever patch that does nothing", "退热贴贴了一晚上不管用", "symptom.general"),
    ("an antipyretic, said 没用", "退烧药给他喂了没用", "symptom.general"),
    ("a temperature that stays this high", "女儿一直那么高的温度", "symptom.general"),
    ("a fever that never broke", "小宝三天来一直没退烧", "symptom.general"),
    ("a fever that did not move with the medicine", "喂完药丝毫没退烧", "symptom.general"),
    ("five days, said with a bare 烧", "儿子已经烧七天了", "symptom.general"),
    ("a week of fever", "女儿反复发烧快两周了", "symptom.general"),
    ("a week, said with a bare 烧", "老二烧了一个星期", "symptom.general"),
    ("still hot after the antipyretic", "给他吃了布洛芬还是40度", "symptom.general"),
    ("vomiting all along, said 呕吐", "孩子一直在呕吐", "vomits_everything"),
    ("blood passed", "宝宝拉出来的是血水", "gi_bleeding"),
    ("an antipyretic that hardly helped", "美林用了不太管用", "symptom.general"),
    ("no fever break, 一直 then the hard term", "宝宝吃了药还是一直不退烧", "symptom.general"),
    ("blood on the nappy's poo", "宝宝的便便上有血", "gi_bleeding"),
    ("blood in the poo, nursery word 粑粑", "女儿今天粑粑里带血", "gi_bleeding"),
    ("blood in the poo, said plainly", "宝宝拉的屎上有血", "gi_bleeding"),
    ("a pus-and-blood stool", "孩子这两天是脓血便", "gi_bleeding"),
    ("very little urine stays hard", "儿子今天尿很少", "anuria"),
    ("sunken eyes, a filler between", "拉了一天，孩子眼睛都凹进去了", "dehydration"),
    ("blood in what was vomited", "宝宝吐出来的东西带血", "gi_bleeding"),
    ("blood in the vomit, said 呕吐物", "孩子呕吐物里有血", "gi_bleeding"),
    ("a wound that keeps bleeding", "女儿摔破了膝盖，伤口一直在流血", "hemorrhage"),
    ("a lot of blood lost, said 不少", "儿子鼻子撞了，流了不少血", "hemorrhage"),
]

SOFT = [
    # id, text, the concept whose severity question is asked
    ("drinks reluctantly: 不好好喝", "宝宝发烧以后不好好喝奶", "unable_to_drink"),
    ("drinks reluctantly: 不愿意喝", "儿子拉肚子，一整天都不愿意喝水", "unable_to_drink"),
    ("drinks reluctantly: 不太想喝", "女儿这两天不太想喝奶", "unable_to_drink"),
    ("drinks reluctantly, nothing named", "孩子病了以后就不爱喝了", "unable_to_drink"),
    ("feeds little: 喝得很少", "宝宝今天喝奶喝得很少", "unable_to_drink"),
    ("feeds little: the formula", "这两天奶粉吃的比较少", "unable_to_drink"),
    ("feeds little: breast milk, 也不多", "小家伙母乳吃得也不多", "unable_to_drink"),
    ("feeds little each time", "宝宝喝奶每次都少了", "unable_to_drink"),
    ("milk refused with something else", "宝宝今天奶粉和米糊都没吃", "unable_to_drink"),
    ("milk refused, a word between", "二宝母乳一口也不喝", "unable_to_drink"),
    ("milk hardly taken", "宝宝这两天奶都不怎么吃", "unable_to_drink"),
    ("half of the usual feed", "宝宝只吃了平常一半", "unable_to_drink"),
    ("the formula refused, said right after it", "宝宝这两天奶粉不喝了", "unable_to_drink"),
    ("hardly feeds at the breast", "小宝昨天开始没怎么吃母乳", "unable_to_drink"),
    ("feeds worse than before", "宝宝不如以前爱吃奶", "unable_to_drink"),
    ("vomits soon after a feed, 没多久 is no denial", "宝宝喝完奶没多久又吐了", "vomits_everything"),
    ("vomits soon after eating, 不一会", "闺女饭吃下去不一会又吐", "vomits_everything"),
    ("vomits straight after eating", "孩子吃了东西马上就吐", "vomits_everything"),
    ("vomits after meals", "女儿吃过饭以后就吐", "vomits_everything"),
    ("vomited several times, 好几回", "孩子上午到中午吐了好几回", "vomits_everything"),
    ("vomited three times, 了 after", "小宝今天吐3次了", "vomits_everything"),
    ("vomited four times, a number needs no 了", "半天里吐四次", "vomits_everything"),
    ("eats, then straight away vomits", "喂完饭接着就吐", "vomits_everything"),
    ("vomited a lot", "宝宝吐得特别多", "vomits_everything"),
    ("vomits often", "小宝吐得很频繁", "vomits_everything"),
    ("a sip in, a sip out", "孩子喂一口吐一口", "vomits_everything"),
    ("vomiting violently", "儿子早晨起床后猛吐", "vomits_everything"),
    ("vomits all the time", "孩子这几天老是吐", "vomits_everything"),
    ("the medicine comes up too", "孩子吃药也吐", "vomits_everything"),
    ("little urine, fillers before the degree", "孩子今天小便好像比较少", "anuria"),
    ("little urine, 尿量有点少", "宝宝尿量有点少", "anuria"),
    ("few passings", "宝宝小便次数很少", "anuria"),
    ("little urine these days", "儿子尿这几天少", "anuria"),
    ("passes little, said 尿的", "宝宝尿的很少", "anuria"),
    ("a nappy dry for half a day", "宝宝纸尿裤半天都是干的", "anuria"),
    ("urinated only once", "宝宝今天只尿了一次", "anuria"),
    ("pus and blood in a report", "化验结果里有脓血", "gi_bleeding"),
    ("a nose that bleeds, said 鼻子出血", "宝宝早上鼻子出血了", "hemorrhage"),
    ("a nostril bleeding", "孩子鼻孔流血", "hemorrhage"),
    ("a streak in milk brought up asks", "吐的奶里有血丝", "gi_bleeding"),
    ("a fever that stays, no fever word before", "昨晚38度5，一直不退", "symptom.general"),
    ("a long low fever", "孩子长期低烧", "symptom.general"),
    ("thirsty, drinking eagerly", "拉肚子以后孩子一直喊渴", "dehydration"),
    ("eyes a little sunken", "宝宝眼睛好像有点凹陷", "dehydration"),
]

LOOK_ALIKES = [
    # id, text: another sense of the words, or a sign that is no sign; no mention at all
    ("a soup not liked", "孩子不爱喝汤，能吃什么"),
    ("a medicine refused", "宝宝不愿意喝药怎么办"),
    ("a medicine that comes back up", "孩子喝了药就吐出来"),
    ("a grandmother eats little", "奶奶吃得很少"),
    ("yoghurt, rarely", "酸奶喝的很少"),
    ("appetite, not drinking", "孩子不爱吃饭"),
    ("spitting up after a feed", "宝宝吃完奶吐奶了"),
    ("vomiting once after a feed", "宝宝吃奶以后吐了一次"),
    ("the tongue", "吃饭的时候老吐舌头"),
    ("how many times is normal", "一天吐几次算正常"),
    ("less urine protein is good news", "孩子尿蛋白少了很多"),
    ("once in the night is normal", "晚上只尿一次"),
    ("a little foam in the urine is an amount", "尿有少量泡沫"),
    ("formula taken, food refused", "奶粉吃了不吃饭"),
    ("the room's temperature", "室内温度一直降不下来"),
    ("a bottle of antipyretic not finished", "上次的退烧药没用完"),
    ("a fever over for five days", "宝宝退烧五天了，能洗澡吗"),
    ("sputum with blood is no vomit", "吐的痰里有血"),
    ("a vaccine a week before the fever", "发烧一周前打过疫苗"),
    ("a crust in the nose with blood", "鼻屎里有血"),
    ("spitting up all the time", "宝宝总吐奶"),
]

NEVER_HALTS = [
    # id, text: a past, negated, other person's or hypothetical form of a hard family
    ("a fever that would not go, last month", "孩子上个月烧总也退不了，现在好了"),
    ("another family's child", "邻居家孩子体温一直降不下来"),
    ("a question about the future", "如果体温一直降不下来要去医院吗"),
    ("negated hard vomiting", "孩子没有吐的很厉害"),
    ("whatever is eaten, in the past", "宝宝以前吃什么都会吐，现在好了"),
    ("blood in the poo denied", "便便没有血"),
    ("a rash that will not fade asks, never halts", "疹子一直不退"),
    ("a week of fever, over", "孩子上周烧了一个星期，现在好了"),
    ("a dry nappy denied", "尿不湿没有一直是干的"),
]


# SPEC §4.7 revision 3: fever alone — however high or long, a fever that will not come down — is a
# symptom, not a hard sign. These rows (the former persistent_fever) ask the general question
# (p0_confirm_symptom); a yes halts (tests/router/test_symptoms.py holds the family's own table).
FEVER = [r for r in HARD + SOFT if r[2] == "symptom.general"]
HARD = [r for r in HARD if r[2] != "symptom.general"]
SOFT = [r for r in SOFT if r[2] != "symptom.general"]


@pytest.mark.parametrize("text", [r[1] for r in FEVER], ids=[r[0] for r in FEVER])
def test_a_fever_however_long_asks_the_general_question(router: Router, policy, text):
    asks_the_family(router, policy, text, "symptom.general")


(test_a_strong_form_halts, test_a_mild_form_asks_its_severity_question,
 test_a_look_alike_is_no_mention, test_a_past_negated_other_or_hypothetical_form_never_halts) = family_checks(
    HARD, SOFT, LOOK_ALIKES, NEVER_HALTS)


def test_soon_after_is_no_denial(router: Router):
    """没多久 / 不一会 are a time: the mention they stand in stays current (a pseudo-cue)."""
    flags = router.route_request("宝宝吃完奶没一会就吐", PARENT, "P0001").red_flags
    assert [(f.concept, f.context) for f in flags] == [("vomits_everything", "current")]
