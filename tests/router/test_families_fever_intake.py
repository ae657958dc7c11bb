"""Fever, intake, vomiting, urine and stool: the qualifiers parents put on a sign (issue 20, session 4).

The held-out pool showed that rules fitted to single texts do not carry over. These families start
from the clinical signs (NICE NG143: a fever of five days or one that will not come down, reduced
fluid intake, poor feeding, reduced urine output; WHO IMCI: not able to drink, vomits everything) and
cross them with the ways a parent qualifies a sign: what was tried and did nothing (the drip, the
injection, "no effect"), how long or how often (五天了还在, 每晚, 一天两次), how much ("only N ml",
a few sips) and where (大便里面有血). Each family is one bounded pattern over listed words
(app/router/policy.toml, the concepts persistent_fever, unable_to_drink, vomits_everything, anuria,
gi_bleeding). Every sentence here is our own, tested both ways: the strong form halts, the mild form
asks the concept's severity question, the look-alike is no mention, and a past, negated, other
person's or hypothetical form never halts.
"""

from __future__ import annotations

import tomllib

import pytest

from app.router import Router
from app.router.policy import default_policy_bytes
from tests.router.family_tables import family_checks
from tests.router.test_parent_vocabulary import PARENT
from tests.router.test_symptoms import asks_the_family

HARD = [
    # id, text, the concept that halts
    ("the temperature does not come down after the medicine", "吃了药两个小时，体温就是不下", "symptom.general"),
    ("the temperature has not come down, 没下来", "宝宝体温还是没下来", "symptom.general"),
    ("waited and saw no fall", "喂了布洛芬半天，没见体温降", "symptom.general"),
    ("an injection and no fever break seen", "打完针也没见退烧", "symptom.general"),
    ("still not reduced after all that was tried", "物理降温、喂药，还是没有退热", "symptom.general"),
    ("a suppository that has not brought it down", "用了栓剂也没退热", "symptom.general"),
    ("six days said first, still feverish", "已经六天了还在发烧", "symptom.general"),
    ("seven days said first, a low fever", "七天了仍然低烧", "symptom.general"),
    ("six days said first, 一直在", "六天了一直在发烧", "symptom.general"),
    ("a temperature that stays near thirty-nine", "体温一直在三十九度上下", "symptom.general"),
    ("a high fever all along", "儿子始终是高烧", "symptom.general"),
    ("blood on top of the stool, a place word between", "大便上面带着血", "gi_bleeding"),
    ("blood in the nursery word for stool, 有点", "粑粑里有点血", "gi_bleeding"),
    ("an antipyretic, then 也不退", "美林喂下去也不退", "symptom.general"),
    ("the fever has not fallen, 没降", "她的烧到现在都没降", "symptom.general"),
    ("vomiting that will not stop", "儿子吐起来停不下来", "vomits_everything"),
    ("green vomit said of what came up", "吐出来的东西是黄绿色", "vomits_everything"),
    ("a pinched skin slow to go back", "捏一下肚皮好久才平下去", "dehydration"),
    ("a stool like redcurrant jelly", "拉的是果酱一样的东西", "gi_bleeding"),
    ("a temperature not down since yesterday, words between", "她体温从前天晚上起都没降", "symptom.general"),
    ("nearly a week of fever", "儿子烧了将近一周", "symptom.general"),
    ("a weak suck", "宝宝吸奶吸得特别弱", "unable_to_drink"),
    ("little strength in feeding", "这两天吃奶的劲儿很小", "unable_to_drink"),
    ("fresh blood in the stool", "便便上面有鲜血", "gi_bleeding"),
    ("all that was passed is blood", "孩子拉的全都是血", "gi_bleeding"),
    ("a young infant's forehead hot, no number", "宝宝五十天，额头摸着有点烫", "infant_fever"),
    ("a young infant a little feverish, 有点烧", "闺女出生二十天，有点烧", "infant_fever"),
    ("a nappy not wet all day", "纸尿裤一整天都没湿", "anuria"),
    ("a soft pattern never takes a hard term's place: 吐了一晚上", "宝宝吐了一晚上", "vomits_everything"),
    ("nor 连水都不喝 after a feed word", "喂她连水都不喝", "unable_to_drink"),
    ("feeds slowly, no strength", "女儿吃奶吃一会就没力气", "unable_to_drink"),
    ("nothing kept down", "孩子连奶都留不住", "vomits_everything"),
]

SOFT = [
    # id, text, the concept whose severity question is asked
    ("a drip that did nothing", "昨天挂水也没用", "symptom.general"),
    ("an injection that did nothing at all", "打了针一点不管用", "symptom.general"),
    ("a low fever that stays", "孩子总是处于低热", "symptom.general"),
    ("a low fever all along", "宝宝一直是低烧", "symptom.general"),
    ("a fever said with 老是", "女儿老是在发烧", "symptom.general"),
    ("a fever every evening", "每天晚上都发烧", "symptom.general"),
    ("a fever that hardly goes down", "吃了药还是不太退", "symptom.general"),
    ("an antipyretic given all along", "这几天一直在吃美林", "symptom.general"),
    ("a fever patch on all along", "退烧贴一直在贴", "symptom.general"),
    ("a high fever that comes and goes asks", "宝宝这周反复高烧", "symptom.general"),
    ("a lingering low fever", "女儿持续低热", "symptom.general"),
    ("hardly any milk", "这两天几乎不喝奶", "unable_to_drink"),
    ("only a few millilitres of milk", "一顿只喝了40毫升", "unable_to_drink"),
    ("only a few millilitres, written ml", "今天才吃了五十ML", "unable_to_drink"),
    ("only two sips", "宝宝只喝了两口", "unable_to_drink"),
    ("a few sucks at the bottle, then crying", "吃奶吃了几口就哭", "unable_to_drink"),
    ("refuses even when fed", "拿奶瓶喂她也不喝", "unable_to_drink"),
    ("the teat pushed out", "奶嘴一塞进去就顶出来", "unable_to_drink"),
    ("every feed comes back", "每回喝完奶都吐", "vomits_everything"),
    ("not much urine", "小便也不太多", "anuria"),
    ("twice in half a day", "半天就尿了两回", "anuria"),
    ("a medicine, then still feverish", "吃了消炎药还是发烧", "symptom.general"),
    ("two feeds in a whole day", "一整天才喝了两次奶", "unable_to_drink"),
    ("half the usual milk", "喝奶量只有以前的一半", "unable_to_drink"),
    ("water, then vomiting", "喂了点水马上就吐", "vomits_everything"),
    ("a nappy not wet for hours", "纸尿裤一上午都没湿", "anuria"),
    ("one nappy in a day", "一天只换了两片尿布", "anuria"),
    ("a fontanelle a little sunken", "宝宝前囟好像有点凹", "dehydration"),
    ("a drip for days, still feverish", "输液三天了还在发烧", "symptom.general"),
    ("a fever back after the drip", "打完针晚上又烧起来", "symptom.general"),
    ("a fever every night, 会", "每晚都会发烧", "symptom.general"),
    ("about a hundred millilitres in a whole day", "一天就喝了一百来毫升", "unable_to_drink"),
    ("feeds a moment, then stops", "喝奶喝一会就不喝了", "unable_to_drink"),
    ("a few sucks, then asleep", "吸了几下就睡", "unable_to_drink"),
    ("vomiting half a day", "今天吐了大半个上午", "vomits_everything"),
    ("a dry tongue", "孩子舌头干干的", "dehydration"),
    ("asking for water all the time", "拉肚子以后老要喝水", "dehydration"),
    ("a question whether diarrhoea dehydrates asks", "这样拉会脱水吗", "dehydration"),
    ("a question what dehydration does asks", "小孩脱水会有什么后果", "dehydration"),
    ("a nappy dry all morning asks", "尿布一上午也没湿", "anuria"),
    ("hardly passes urine", "这两天几乎没小便", "anuria"),
    ("feeds compared, said 吃的奶", "今天吃的奶没有昨天多", "unable_to_drink"),
    ("feeds poorly", "宝宝吃奶吃得很差", "unable_to_drink"),
    ("yellow water vomited", "吐了好几口黄色的水", "vomits_everything"),
    ("every feed comes back, 喂奶", "每次喂奶都会吐", "vomits_everything"),
    ("a mouth rather dry", "孩子嘴唇有点干", "dehydration"),
    ("a stool a little red", "便便有些红", "gi_bleeding"),
    ("not much taken at a feed", "每顿奶都吃不了多少", "unable_to_drink"),
    ("not swallowing", "奶喂到嘴里也不往下咽", "unable_to_drink"),
    ("the milk not wanted any more", "这两天母乳也不要了", "unable_to_drink"),
    ("only a few sucks", "一次只吸两三口", "unable_to_drink"),
    ("dark yellow urine", "小便颜色深黄", "dehydration"),
]

LOOK_ALIKES = [
    # id, text: another sense of the words, or no sign at all; no mention
    ("rarely drinks water is a habit", "孩子很少喝水"),
    ("spitting up every time", "每次都吐奶"),
    ("a medicine's dose in millilitres", "只喝了5毫升药"),
    ("a wet bed twice", "一天尿了两次床"),
    ("a stool test", "大便常规里有红细胞"),
    ("little protein in the urine", "尿蛋白不太多"),
    ("a room that stays warm", "室内温度还是不下"),
    ("a temperature kept below thirty-eight", "体温一直维持在38度以下"),
    ("spitting up a little", "宝宝有点吐奶"),
    ("appetite for food, not feeding", "孩子不好好吃饭"),
    ("a fever gone for five days", "退烧五天了，还在咳嗽"),
    ("jam eaten during diarrhoea", "拉肚子可以吃果酱吗"),
    ("water, then vomiting once", "喝了水就吐了一次"),
    ("two meals of food a day", "一天只吃两顿饭"),
    ("a back massage by pinching", "给宝宝捏脊可以吗"),
    ("a fever back after an antipyretic is the ordinary course", "吃了美林退了，半夜又烧了"),
    ("a sore throat's name", "医生说是咽炎"),
    ("a bottle refused, the spoon taken", "奶瓶不吃，用勺子喂"),
    ("a parent's purchase", "这种奶粉不要买"),
    ("a nappy that is wet", "尿不湿湿了"),
    ("food absorbed poorly", "孩子吸收不好，长得慢"),
    ("bath water that is hot for a young baby", "宝宝五十天，洗澡水有点烫"),
    ("bed-wetting is rare", "孩子现在很少尿床了"),
    ("a clean mouth", "嘴巴擦得很干净"),
    ("a stool coloured by sweet potato", "吃了红薯，大便是红薯色"),
]

NEVER_HALTS = [
    # id, text: a past, negated, other person's or hypothetical form of a hard family
    ("a question about a temperature that would not fall", "如果体温还是不下要去医院吗"),
    ("another family's child", "邻居家孩子打完针也没见退烧"),
    ("no blood in the stool", "大便里没有血"),
    ("a fever that would not come down, before today", "之前体温一直没下来，现在已经退了"),
    ("a question about six days of fever", "要是六天了还在发烧怎么办"),
]


HABITUAL = [
    # id, text: said with a habitual cue (一…就), the mention asks whether it is happening now
    ("a fever as soon as evening comes", "一到傍晚就烧起来"),
]

NOT_THIS_CONCEPT = [
    # id, text, a concept of these families the text must not mention (another family may)
    ("weak breathing is no weak suck", "宝宝呼吸很弱", "unable_to_drink"),
    ("a hot bath is no infant's fever", "宝宝一个月，洗澡水有点烫", "infant_fever"),
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


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in NOT_THIS_CONCEPT], ids=[r[0] for r in NOT_THIS_CONCEPT])
def test_another_sense_is_not_this_concept(router: Router, text, concept):
    assert concept not in {f.concept for f in router.route_request(text, PARENT, "P0001").red_flags}


FAMILIES = ("unable_to_drink", "vomits_everything", "gi_bleeding", "anuria", "dehydration")
_CONCEPTS = [c for c in tomllib.loads(default_policy_bytes().decode("utf-8"))["p0"]["concepts"] if c["id"] in FAMILIES]
_HARD_TERMS = [(c["id"], t) for c in _CONCEPTS for t in c.get("terms", []) if not t.isascii()]
_SOFT_TERMS = [(c["id"], t) for c in _CONCEPTS for t in c.get("soft_terms", [])]


@pytest.mark.parametrize(("concept", "term"), _HARD_TERMS, ids=[f"{c} hard {t}" for c, t in _HARD_TERMS])
def test_every_hard_term_said_of_the_child_halts(router: Router, concept, term):
    """No soft pattern that starts earlier or ties takes a hard term's place (leftmost-longest)."""
    result = router.route_request("孩子" + term, PARENT, "P0001")
    assert result.status == "halt" and concept in {f.concept for f in result.red_flags}, result.red_flags


@pytest.mark.parametrize(("concept", "term"), _SOFT_TERMS, ids=[f"{c} soft {t}" for c, t in _SOFT_TERMS])
def test_every_soft_term_said_of_the_child_asks(router: Router, concept, term):
    result = router.route_request("孩子" + term, PARENT, "P0001")
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity"), result.red_flags
    assert concept in {q.concept for q in result.severity_questions}


@pytest.mark.parametrize("text", [r[1] for r in HABITUAL], ids=[r[0] for r in HABITUAL])
def test_a_habitual_form_asks(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status == "confirm"
