"""Danger signs in parents' words, per concept (SPEC §3.5, §4.7 revision 2 "Soft signs ask").

Issue 20's vocabulary pass: the phrasings come from the clinical descriptions (WHO IMCI general and
respiratory danger signs, NICE NG143 red and amber features) as parents write them, each family
checked on an unlabelled pool of real parent messages. Every sentence here is our own. Each family
is tested both ways: the strong form halts, the mild form asks its concept's severity question,
and its look-alikes (another sense of the words, good news, a negation) never halt.
"""

from __future__ import annotations

import pytest

from app.router import Router

PARENT = "parent_assistant"

HARD = [
    # id, text, the concept that halts
    ("wheeze with struggle, written 憋喘", "孩子夜里憋喘，咳个不停", "respiratory_distress"),
    ("woke up choking and crying", "半夜憋的哭醒了两次", "respiratory_distress"),
    ("wheezing badly, written with 的", "宝宝现在喘的很厉害", "respiratory_distress"),
    ("breathing very fast", "女儿呼吸特别快，一分钟好多下", "respiratory_distress"),
    ("nostrils flaring", "孩子喘气的时候鼻翼一扇一扇的", "respiratory_distress"),
    ("ribs sucked in", "吸气时肋骨往里凹", "respiratory_distress"),
    ("grunting on each breath", "宝宝呼吸时哼哼，脸有点白", "respiratory_distress"),
    ("lips turning blue-grey", "孩子嘴唇发青了", "cyanosis"),
    ("lips gone purple, with a word between", "宝宝咳得嘴唇都紫了", "cyanosis"),
    ("gasping for breath", "孩子张着嘴大口喘气", "respiratory_distress"),
    ("a mild word run into a strong one: 有点 + 喘不上气", "孩子有点喘不上气", "respiratory_distress"),
    ("a mild word run into a strong one: 还 + 喘得厉害", "吃了药还喘得厉害", "respiratory_distress"),
    ("mouth-breathing with difficulty", "宝宝张口呼吸困难", "respiratory_distress"),
    ("floppy all over", "孩子浑身软趴趴的", "lethargy"),
    ("mouth drooping", "孩子今天嘴歪了，口水往一边流", "stroke_signs"),
    ("speech suddenly slurred", "女儿突然说话含糊不清", "stroke_signs"),
    ("limp and motionless", "宝宝软绵绵的不动", "lethargy"),
    ("eyes swollen shut", "孩子眼睛肿得睁不开", "severe_edema"),
    ("scrotum swollen", "儿子肾病复发，阴囊肿了", "severe_edema"),
    ("pale with a cold sweat", "孩子脸色苍白出冷汗", "shock"),
    ("claw hand", "孩子手指成鸡爪样", "hypocalcemic_tetany"),
    ("cannot drink water", "孩子嗓子疼得喝不下水", "unable_to_drink"),
    ("full fontanelle", "宝宝发烧，囟门饱满", "meningeal_signs"),
    ("too breathless to talk", "女儿说话都喘", "respiratory_distress"),
    ("asthma attack again", "儿子哮喘又犯了", "respiratory_distress"),
    ("stridor like a crowing cock", "吸气的时候像鸡叫", "respiratory_distress"),
    ("pauses in breathing", "宝宝睡着时呼吸停顿", "respiratory_distress"),
    ("hands and feet purple", "儿子手脚发紫，摸着很凉", "cyanosis"),
    ("mottled skin", "宝宝身上皮肤发花，一块一块的", "shock"),
    ("eyes rolled up", "孩子刚才眼睛往上翻", "seizure"),
    ("staring, eyes fixed", "女儿突然两眼发直，叫她不理", "seizure"),
    ("jaw clenched", "宝宝牙关紧闭，叫不应", "seizure"),
    ("whole body stiff", "孩子全身僵直了", "seizure"),
    ("roused, falls asleep again", "孩子叫醒了又睡过去", "lethargy"),
    ("hard to wake", "宝宝今天很难叫醒", "lethargy"),
    ("listless, said plainly", "孩子这两天很萎靡", "lethargy"),
    ("spirits very poor", "儿子精神很不好，一直躺着", "lethargy"),
    ("no spirits at all", "孩子一点精神都没有", "lethargy"),
    ("drowsy all the time", "宝宝今天一直迷糊，不怎么睁眼", "lethargy"),
    ("dehydrated, said as a fact", "孩子拉了一天，脱水了", "dehydration"),
    ("an epileptic attack now, with 病", "孩子癫痫病发作了", "seizure"),
    ("cannot hold the head up", "宝宝软得头都抬不起来", "lethargy"),
    ("gaze unfocused", "孩子眼神涣散，叫了也不看人", "altered_consciousness"),
    ("vomited ten times", "孩子今天吐了十多次", "vomits_everything"),
    ("no urine up to now", "从昨天晚上到现在都没尿", "anuria"),
    ("blood in the poo, said plainly", "宝宝屎里有血", "gi_bleeding"),
    ("a lot of blood lost", "孩子摔破头流了好多血", "hemorrhage"),
    ("vomiting for a day", "孩子从昨晚吐了一天了", "vomits_everything"),
    ("green vomit", "宝宝吐出来是绿色的水", "vomits_everything"),
    ("too weak to suck", "宝宝吃奶没力气，含着就睡", "unable_to_drink"),
    ("cannot keep a sip down", "孩子一口水都喝不下", "unable_to_drink"),
    ("nappy dry all day", "宝宝尿不湿一天都是干的", "anuria"),
    ("sunken eyes", "拉肚子以后孩子眼窝凹进去了", "dehydration"),
    ("skin slow to go back", "捏起来皮肤不回去，孩子拉了十几次", "dehydration"),
    ("stiff neck", "孩子发烧，脖子发僵，低头困难", "meningeal_signs"),
    ("fontanelle raised", "宝宝囟门鼓鼓的，一直哭", "meningeal_signs"),
    ("spots that do not fade under pressure", "身上的红点压不变白", "non_blanching_rash"),
    ("petechiae named", "孩子发烧，身上有出血点", "non_blanching_rash"),
    ("redcurrant-jelly stool", "孩子拉了果酱样大便，一阵一阵哭", "gi_bleeding"),
]

SOFT = [
    # id, text, the concept whose severity question is asked
    ("still wheezy", "咳嗽好点了，但还喘", "respiratory_distress"),
    ("breathing heavy", "孩子今天呼吸很重", "respiratory_distress"),
    ("breath not smooth", "宝宝呼吸不顺畅", "respiratory_distress"),
    ("rattling throat", "孩子嗓子呼呼的，有痰", "respiratory_distress"),
    ("barking cough", "晚上咳起来像狗叫", "respiratory_distress"),
    ("spirits worse than before", "孩子精神没以前好", "lethargy"),
    ("spirits worse than yesterday afternoon", "女儿精神没昨天下午好", "lethargy"),
    ("spirits not so good", "宝宝今天精神不怎么好", "lethargy"),
    ("spirits turned poor since the morning", "孩子精神从早上开始变差", "lethargy"),
    ("spirits poor again", "烧退了，精神又不太好", "lethargy"),
    ("very sleepy", "孩子特别想睡", "lethargy"),
    ("no smile when played with", "宝宝逗他不笑", "lethargy"),
    ("twitching now and then", "宝宝睡着后一抽一抽的", "seizure"),
    ("shaking all over", "孩子发烧浑身发抖", "seizure"),
    ("a cramp", "孩子腿抽筋了", "seizure"),
    ("pale face", "孩子脸色苍白", "shock"),
    ("cold limbs", "宝宝四肢发凉", "shock"),
    ("vomited three times", "孩子今天吐了三次", "vomits_everything"),
    ("vomited seven or eight times", "从早上到现在吐了七八次", "vomits_everything"),
    ("vomiting all over the place", "宝宝吐得稀里哗啦", "vomits_everything"),
    ("cries in bouts", "宝宝一阵一阵地哭", "abnormal_cry"),
    ("unsteady walking", "孩子这两天走路不稳", "stroke_signs"),
    ("lies still", "宝宝躺着不动", "lethargy"),
    ("bluish, place not said", "孩子手指有点发紫", "cyanosis"),
    ("feet a bit swollen", "孩子脚有点肿", "severe_edema"),
    ("fluid in the belly asks (adults' cirrhosis texts name it as history)", "医生说孩子有腹水", "severe_edema"),
    ("a cold sweat", "孩子一直出冷汗", "shock"),
    ("a dry mouth", "孩子拉肚子，口干", "dehydration"),
    ("cannot rouse interest", "孩子打不起精神", "lethargy"),
    ("ignores people", "宝宝今天不理人", "lethargy"),
    ("drowsy, said once", "孩子有点迷糊", "lethargy"),
    ("is it dehydration asks", "孩子嘴干，是不是脱水了", "dehydration"),
    ("vomits soon after eating", "吃进去就吐", "vomits_everything"),
    ("vomiting and diarrhoea", "孩子上吐下泻", "vomits_everything"),
    ("spits up often", "宝宝吐奶频繁", "vomits_everything"),
    ("a big mouthful gushes out", "宝宝刚喝完奶就大口喷出来", "vomits_everything"),
    ("feeds less than before", "宝宝吃奶没之前多", "unable_to_drink"),
    ("milk volume less than usual", "奶量比平时少", "unable_to_drink"),
    ("refuses the breast", "宝宝不吃母乳", "unable_to_drink"),
    ("will not drink water", "孩子不肯喝水", "unable_to_drink"),
    ("eats nothing at all", "孩子什么都不吃", "unable_to_drink"),
    ("less urine than before", "孩子尿没以前多", "anuria"),
    ("urine less than usual", "小便比平常少", "anuria"),
    ("urine volume somewhat down", "尿量有所减少", "anuria"),
    ("urine volume down, said plainly", "孩子这两天尿量减少", "anuria"),
    ("a dry nappy", "宝宝尿不湿是干的", "anuria"),
    ("dry mouth", "孩子嘴干", "dehydration"),
    ("cannot be settled", "宝宝怎么哄都不行", "abnormal_cry"),
    ("crying hard", "宝宝哭的很厉害", "abnormal_cry"),
    ("restless", "孩子烦躁不安", "abnormal_cry"),
    ("purple spots on the skin", "宝宝身上有紫色的点", "non_blanching_rash"),
    ("a bleeding point, place not said", "检查说有个出血点", "non_blanching_rash"),
    ("reddish mucus in the stool", "大便里有红色的粘液", "gi_bleeding"),
]

LOOK_ALIKES = [
    # id, text: another sense of the words, good news or a plain habit; never halts
    ("better spirits than before", "孩子精神比前两天好多了"),
    ("asking whether spirits are good", "怎么看孩子精神好不好"),
    ("less urine protein is good news", "孩子尿蛋白比以前少了"),
    ("uric acid lower than before", "尿酸比之前少了一些"),
    ("the stomach rumbles", "肚子老是咕噜咕噜响"),
    ("an allergic-rhinitis nasal spray", "鼻子喷出来的药水有点苦"),
    ("a clean pressure test of a bruise", "磕到的地方按了会变白"),
    ("a smile", "宝宝逗一逗就笑"),
    ("full feeds", "宝宝吃奶比以前多了"),
    ("the cheek flushes when straining at stool", "拉大便的时候使劲"),
    ("a green vegetable", "孩子能吃绿色的蔬菜吗"),
    ("an antipyretic that worked", "吃了退烧药有效果，已经37度了"),
    ("fruit-jam on bread", "孩子能吃果酱面包吗"),
    ("snoring", "孩子睡觉打呼噜声音大"),
    ("a cockerel in the yard", "院子里的公鸡打鸣"),
    ("urine passed up to now", "到现在尿了三次"),
    ("rice cereal typed 迷糊, eaten", "宝宝每天吃迷糊和蛋黄"),
    ("rice cereal typed 迷糊, mixed in", "把药加在迷糊里喂可以吗"),
    ("a medicine the child will not take", "孩子喝不进去药怎么办"),
    ("an occult-blood test result", "化验单上大便潜血弱阳性"),
]


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in HARD], ids=[r[0] for r in HARD])
def test_a_strong_form_halts(router: Router, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status == "halt", result.red_flags
    assert [f.soft for f in result.red_flags if f.concept == concept and f.context == "current"][:1] == [False]


def assert_asked_in_one_turn(policy, questions, concept: str) -> None:
    """A severity question asks the concept's own question first; beside it only symptom families —
    the every-sick-child one (IMCI's general danger signs, asked once per conversation) and the
    families whose question answers this one — so a no covers them for the rest of the conversation."""
    asked = [(q.concept, q.question) for q in questions]
    assert asked[0] == (concept, policy.red_flags.severity_questions[concept])
    beside = [c for c, _ in asked[1:]]
    assert all(c.startswith("symptom.") for c in beside), beside
    assert policy.red_flags.every_sick_child in beside
    families = [f for f, covered in policy.red_flags.stands_for.items() if concept in covered]
    assert all(f in beside for f in families), (families, beside)


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in SOFT], ids=[r[0] for r in SOFT])
def test_a_mild_form_asks_its_severity_question(router: Router, policy, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity"), result.red_flags
    assert_asked_in_one_turn(policy, result.severity_questions, concept)
    assert router.route_request(text, PARENT, "P0001", confirmed_red_flags=[concept]).status == "halt"


@pytest.mark.parametrize("text", [r[1] for r in LOOK_ALIKES], ids=[r[0] for r in LOOK_ALIKES])
def test_a_look_alike_is_no_mention(router: Router, text):
    result = router.route_request(text, PARENT, "P0001")
    assert result.status != "halt", result.red_flags
    assert [f for f in result.red_flags if not f.concept.startswith("symptom.")] == [], result.red_flags
    # SPEC §4.7 revision 3: a look-alike that still names a symptom of the child (孩子躺着就咳几声) asks
    # that family's question and nothing else, and nothing once the family is acknowledged.
    if result.status == "confirm":
        assert result.reason_code == "p0_confirm_symptom", result.red_flags
        families = [f.concept for f in result.red_flags]
        assert router.route_request(text, PARENT, "P0001", acknowledged_red_flags=families).status not in ("halt", "confirm")


NEVER_HALTS = [
    ("the warning signs before an epileptic attack", "癫痫病发作前有什么征兆"),
    ("how to judge dehydration", "怎么判断有没有脱水"),
    ("whether a child who passes a lot is dehydrated", "她拉得这么多会不会脱水"),
]


@pytest.mark.parametrize("text", [r[1] for r in NEVER_HALTS], ids=[r[0] for r in NEVER_HALTS])
def test_a_question_about_a_sign_never_halts(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status != "halt"


NEGATED = [
    ("no wheeze-and-struggle at night", "孩子夜里没有憋喘"),
    ("no longer crying hard", "宝宝没有哭的很厉害"),
]


@pytest.mark.parametrize("text", [r[1] for r in NEGATED], ids=[r[0] for r in NEGATED])
def test_a_negated_form_never_halts(router: Router, text):
    assert router.route_request(text, PARENT, "P0001").status != "halt"
