"""Session 4's families for spirits, sleepiness, breathing, crying and convulsions (issue 20).

Built from the clinical descriptions, not from single texts: NICE NG143's "decreased activity",
"not responding normally", "wakes only with prolonged stimulation" / "if roused does not stay
awake", grunting, nasal flaring, chest indrawing, a weak or continuous cry; IMCI's "lethargic"
(drowsy and not interested) and convulsions — each crossed with the ways parents qualify a sign
(fillers, degree words, "all day", "won't talk", "just lies there"). Two mild forms of one sign said
together across a comma are its strong form (the concept's ``together`` rules). Every sentence here is
our own; each family is tested both ways with test_parent_vocabulary's checks.
"""

from __future__ import annotations

import pytest

from app.router import PolicyError, Router
from app.router.policy import parse_policy

from .family_tables import family_checks
from .test_parent_vocabulary import PARENT
from .test_parent_vocabulary import test_a_look_alike_is_no_mention as no_mention
from .test_parent_vocabulary import test_a_strong_form_halts as halts
from .test_policy import edit

HARD = [
    # id, text, the concept that halts
    ("wakes only after a long call", "宝宝今天叫了好久才醒", "lethargy"),
    ("shaken a while and still not awake", "女儿摇了半天都没醒", "lethargy"),
    ("roused, then straight back asleep", "儿子弄醒了马上又睡过去", "lethargy"),
    ("no response to being played with", "逗他也没什么反应", "altered_consciousness"),
    ("grunting on each breath", "宝宝出气的时候一直哼哼", "respiratory_distress"),
    ("grunting said with 嗯", "女儿呼吸时嗯嗯的", "respiratory_distress"),
    ("nostrils flaring", "宝宝鼻孔跟着一张一张", "respiratory_distress"),
    ("nose wings working", "孩子鼻翼也在扇动", "respiratory_distress"),
    ("chest drawn in on breathing in", "儿子吸气时肋骨那里往里陷下去", "respiratory_distress"),
    ("breathless beyond bearing", "女儿晚上喘得受不了", "respiratory_distress"),
    ("breathless, cannot sleep", "孩子喘的睡不着", "respiratory_distress"),
    ("a mild word run into a strong one: the strong one acts", "女儿这两天一直喘不上气", "respiratory_distress"),
    ("a cry with no strength", "宝宝哭起来有气无力", "abnormal_cry"),
    ("a very small cry", "孩子哭声很小", "abnormal_cry"),
    ("limbs jerking", "女儿手脚不停地抽动", "seizure"),
    ("body suddenly rigid", "儿子身体突然绷直", "seizure"),
    ("eyes rolled up", "宝宝两眼上吊", "seizure"),
    ("eyes fixed and staring", "孩子眼睛直勾勾的", "seizure"),
    ("convulsed and passed out", "刚才孩子抽过去了", "seizure"),
    ("will not wake however roused", "怎么喊她都叫不醒", "lethargy"),
    ("will not wake whatever is done", "儿子怎么弄也不肯醒", "lethargy"),
    ("struggling, breath will not come out", "女儿咳起来憋得出不来气", "respiratory_distress"),
    ("face red from struggling to breathe", "宝宝憋的脸都发紫", "respiratory_distress"),
    ("face red from coughing", "孩子咳嗽憋得满脸通红", "respiratory_distress"),
    ("asleep all along", "宝宝一直睡觉，叫了也不太醒", "lethargy"),
    ("lips dark at the edge", "女儿嘴唇边上都发黑了", "cyanosis"),
    ("no strength at all", "女儿今天一点劲儿都没有", "lethargy"),
    ("limp as a puddle", "儿子抱在手里像一摊泥", "lethargy"),
    ("suddenly went limp", "宝宝刚才一下子软了下去", "lethargy"),
    ("slept all day without waking", "孩子睡了一整天还没醒", "lethargy"),
    ("consciousness gone", "儿子突然没有意识了", "altered_consciousness"),
    ("senses gone", "女儿摔了以后失去知觉", "altered_consciousness"),
    ("breathing stops and starts", "宝宝睡着后呼吸一停一停的", "respiratory_distress"),
    ("chest heaving hard", "孩子胸口起伏得很厉害", "respiratory_distress"),
    ("breathing shallow and fast", "女儿呼吸又浅又快", "respiratory_distress"),
    ("breathing fast, said plainly", "宝宝出气快", "respiratory_distress"),
    ("breathing clearly fast", "儿子呼吸明显快", "respiratory_distress"),
    ("a noise on breathing in", "宝宝吸气时嗓子里有怪声", "respiratory_distress"),
    ("breathing very laboured", "儿子喘气特别费劲", "respiratory_distress"),
    ("a grunt with each breath", "孩子出气带哼声", "respiratory_distress"),
    ("jerking all over, started", "宝宝突然浑身抽起来", "seizure"),
    ("hands and feet gone stiff", "孩子手脚发硬", "seizure"),
    ("a convulsion that lasted minutes", "女儿刚才抽了两分钟", "seizure"),
    ("eyes rolled white", "儿子眼睛翻白", "seizure"),
    ("head cannot be lifted", "宝宝头抬不起来", "lethargy"),
    ("drowsy all day", "女儿一天都昏昏沉沉的", "lethargy"),
    ("drowsy, very much so", "儿子迷糊得很", "lethargy"),
    ("oxygen low on a home oximeter", "宝宝血氧只有90", "respiratory_distress"),
    ("convulsed twice", "儿子昨晚抽了两次", "seizure"),
    ("oxygen saturation fallen", "女儿血氧饱和度掉到88%", "respiratory_distress"),
    ("dazed and slow, together", "女儿迷迷瞪瞪的，反应有点慢", "lethargy"),
    ("called and barely wakes", "喊他也不怎么醒", "lethargy"),
    ("coma, a common misspelling", "儿子刚才晕迷了", "altered_consciousness"),
    ("called and no answer", "叫她名字也不答应", "altered_consciousness"),
    ("stopped breathing", "宝宝突然不呼吸了", "respiratory_distress"),
    ("asleep deeply all along", "女儿一直沉睡，饭也没吃", "lethargy"),
    ("breathless enough to frighten", "孩子喘起来特别吓人", "respiratory_distress"),
    ("belly sucked in on each breath", "宝宝呼吸时肚皮一吸一吸的", "respiratory_distress"),
    ("a cry a little weak", "宝宝哭声有点弱", "abnormal_cry"),
    ("crying without a sound", "孩子哭起来都没声音", "abnormal_cry"),
    ("crying very hard, nothing soothes", "女儿哭得很凶，怎么哄都不行", "abnormal_cry"),
    ("fussing without stop, nothing soothes", "儿子哭闹个不停，哄都哄不住", "abnormal_cry"),
    # together: two mild forms of one sign, across a comma
    ("very sleepy, then poor spirits", "女儿特别想睡，精神也差", "lethargy"),
    ("no spirits, then sleepy all day", "儿子没精神，整天都在睡", "lethargy"),
    ("drowsy and floppy", "宝宝昏昏沉沉的，浑身软", "lethargy"),
    ("sleepy and no smile", "孩子特别想睡，逗也不笑", "lethargy"),
    ("sleepy and won't talk", "女儿话都不想说，很想睡", "lethargy"),
    # wanting to sleep all the time is 嗜睡 said by a parent
    ("wants to sleep all the time", "孩子总想睡觉", "lethargy"),
    ("keeps wanting to sleep", "儿子一直要睡", "lethargy"),
    ("only wants to sleep", "女儿发烧了光想睡觉", "lethargy"),
    ("just sleeps every day", "宝宝成天就是睡", "lethargy"),
    ("continuous cry that cannot be soothed", "宝宝一直哭，哄都哄不住", "abnormal_cry"),
    ("crying all evening, voice hoarse", "孩子哭了一晚上，嗓子哭哑了", "abnormal_cry"),
    ("eyes dull and drowsy", "女儿眼睛很没神，迷迷糊糊的", "lethargy"),
]

SOFT = [
    # id, text, the concept whose severity question is asked
    ("won't even talk", "儿子今天话也不想说", "lethargy"),
    ("just lies there", "女儿这两天老是躺着", "lethargy"),
    ("lies in bed, won't get up", "孩子躺在床上不想起来", "lethargy"),
    ("does not feel like talking", "女儿今天不想说话", "lethargy"),
    ("stopped talking", "儿子突然不说话了", "lethargy"),
    ("wants to lie down", "宝宝自己爬到床上躺着", "lethargy"),
    ("less lively than before", "宝宝不如以前活泼了", "lethargy"),
    ("not so active any more", "儿子不怎么活跃了", "lethargy"),
    ("eyes dull", "孩子眼睛没神", "lethargy"),
    ("limbs said to jerk, nothing after", "宝宝突然四肢抽", "seizure"),
    ("very drowsy", "宝宝今天特别困", "lethargy"),
    ("asleep all day", "孩子一天到晚犯困", "lethargy"),
    ("drowsy all the time", "儿子最近老犯困", "lethargy"),
    ("a wheeze the doctor named", "医生听了说是喘", "respiratory_distress"),
    ("a wheeze on auscultation", "听诊有点喘", "respiratory_distress"),
    ("wheezing sounds heard", "医生说有哮鸣音", "respiratory_distress"),
    ("breathing uneven", "宝宝喘气不匀", "respiratory_distress"),
    ("whimpering", "女儿今天哼哼唧唧的", "abnormal_cry"),
    ("cried all night", "宝宝哭闹了一整夜", "abnormal_cry"),
    ("cannot be soothed", "怎么哄也不行", "abnormal_cry"),
    ("a cry unlike usual", "宝宝哭声跟平时不一样", "abnormal_cry"),
    ("spirits turned not very good", "儿子精神到了晚上就不是很好", "lethargy"),
    ("spirits not high", "女儿今天精神不太高", "lethargy"),
    ("strength less than before", "孩子力气没以前大", "lethargy"),
    ("wheezing all along", "孩子这几天一直喘", "respiratory_distress"),
    ("breathing fast at times", "宝宝呼吸快的时候嗓子有痰", "respiratory_distress"),
    ("a squeak on breathing", "女儿喘气时吱吱的", "respiratory_distress"),
    ("moaning all the time", "宝宝一直哼哼", "abnormal_cry"),
    ("whimpering all the time", "儿子老是哼唧", "abnormal_cry"),
    ("listless, another spelling", "孩子没精打采的", "lethargy"),
    ("limp and soft", "宝宝软塌塌的", "lethargy"),
    ("smiles less than before", "女儿没有以前那么爱笑了", "lethargy"),
    ("hardly responds to people", "宝宝不太理人", "lethargy"),
    ("slower to respond than usual", "儿子反应比平时慢", "lethargy"),
    ("a look that is not right", "孩子眼神不对", "lethargy"),
    ("awake very little", "宝宝醒着的时间特别少", "lethargy"),
    ("a whistle in the throat", "孩子嗓子里像有哨音", "respiratory_distress"),
    ("breaths counted fast", "宝宝一分钟呼吸六十多次", "respiratory_distress"),
    ("a cry that will not stop", "女儿哭得停不下来", "abnormal_cry"),
    ("a cry like a kitten", "宝宝哭起来像小猫", "abnormal_cry"),
    ("one side of the face twitching", "孩子半边脸一抽一抽", "seizure"),
    ("spirits not quite enough", "儿子精神头不太足", "lethargy"),
    ("listless, a common misspelling", "女儿无精打彩", "lethargy"),
    ("sleeps twenty hours a day", "宝宝一天要睡二十个小时", "lethargy"),
    ("breathing with a whoosh", "孩子喘气呼呼的", "respiratory_distress"),
    ("body arching again and again", "宝宝身体一挺一挺的", "seizure"),
    ("fussing on and on", "女儿一直在哭闹", "abnormal_cry"),
    ("dazed", "儿子迷迷瞪瞪的", "lethargy"),
    ("oxygen a little low", "孩子血氧95", "respiratory_distress"),
    ("twitched once", "宝宝刚才抽了一下", "seizure"),
    ("a bit slow to respond", "宝宝反应有点慢", "lethargy"),
    ("slow to respond, said with a degree word", "孩子反应很慢", "lethargy"),
    ("eyes turned to one side", "孩子眼睛总往一边斜", "seizure"),
    ("limbs shaking on and on", "女儿手脚一直在抖", "seizure"),
    ("crying a whole night", "儿子哭了整整一晚", "abnormal_cry"),
    ("crying nearly two hours", "宝宝哭了快两个小时", "abnormal_cry"),
    ("crying relentlessly", "孩子一个劲儿地哭", "abnormal_cry"),
    ("a cry that will not stop", "宝宝哇哇哭停不下来", "abnormal_cry"),
    ("puffing hard", "儿子喘粗气", "respiratory_distress"),
    ("breathing loud", "宝宝喘气声音特别大", "respiratory_distress"),
    ("a noise in the breathing", "孩子呼吸有杂音", "respiratory_distress"),
    ("short of breath", "女儿气很短", "respiratory_distress"),
    ("breathless on moving", "孩子走两步就喘", "respiratory_distress"),
    ("wheezing while feeding", "宝宝喝奶时也喘", "respiratory_distress"),
    # one facet alone stays soft
    ("sleepy alone", "孩子这几天特别想睡", "lethargy"),
    ("poor spirits and floppy: no sleepiness", "儿子没精神，浑身软", "lethargy"),
    ("continuous cry alone", "宝宝一直哭", "abnormal_cry"),
]

LOOK_ALIKES = [
    # id, text: no mention of any sign
    ("cannot talk yet", "孩子两岁了还不会说话"),
    ("not talking yet at two", "两岁了还不说话"),
    ("a quiet child", "孩子不爱说话"),
    ("lying down to feed", "我想躺着喂奶"),
    ("lies down to feed", "宝宝喜欢躺着喝奶"),
    ("lies down to sleep", "女儿一直躺着睡觉"),
    ("a funnel chest, no breathing word", "孩子胸口有点凹陷是不是缺钙"),
    ("a loud cry", "宝宝哭声很响亮"),
    ("a lively child", "儿子特别活泼"),
    ("the doctor hears no wheeze", "医生说不喘"),
    ("a nose that runs", "宝宝鼻子一直流鼻涕"),
    ("stiff after sitting long", "坐久了腿有点僵"),
    ("never sleeps well", "孩子总是睡不好"),
    ("sleeps through to morning", "儿子一直睡到天亮"),
    ("sleeps half an hour at a time", "宝宝老是睡半小时就醒"),
    ("sleeps only three hours", "女儿晚上只睡了三个小时"),
    ("spirits high", "孩子精神挺高的"),
    ("a hum before sleep", "宝宝睡前哼两声歌"),
    ("a sizzling pan", "锅里滋滋地响"),
    ("did not realise", "我没意识到孩子发烧了"),
    ("ten hours of sleep", "宝宝晚上睡了十个小时"),
    ("how to tell fast breathing", "呼吸快不快怎么看"),
    ("a snore", "宝宝睡觉打鼾"),
    ("sweating in sleep", "孩子总是睡觉出汗"),
    ("day and night reversed", "宝宝白天一直睡晚上不睡"),
    ("grinding teeth in sleep", "宝宝老是睡觉磨牙"),
    ("an infant arching", "宝宝喜欢身体挺直"),
    ("a sniffing nose", "宝宝鼻子一动一动的"),
    ("a blocked nose on breathing in", "鼻子吸气的时候有声音"),
    ("red in the face straining at stool", "拉便便憋得脸通红"),
    ("phlegm suctioned twice", "抽了两次痰"),
    ("no impaired consciousness", "没有意识障碍"),
    ("should not", "叫他不应该这样"),
    ("quick to respond", "孩子反应很快"),
    ("oxygen normal", "孩子血氧98正常吗"),
    ("the price of an oximeter", "血氧仪多少钱"),
    ("blood drawn twice", "今天抽了两次血"),
    ("a blood test done twice", "抽血抽了两次"),
    ("a cigarette once", "他爸抽了一次烟"),
    ("nothing unusual heard in the cry", "哭声里听不出什么"),
    ("slept through the night", "宝宝睡了一晚上都没醒"),
    ("quicker than usual", "孩子反应比平时快"),
    ("bright eyes", "宝宝眼睛很有神"),
    ("a normal breathing rate", "宝宝呼吸频率每分钟40次正常吗"),
    ("a blood test that took minutes", "昨天抽血抽了五分钟"),
    ("a cigarette", "他爸抽了两分钟的烟"),
    ("awake, seldom crying", "宝宝醒着的时候很少哭"),
    ("a loud, strong cry", "孩子哭声很洪亮"),
    ("warm hands and feet", "孩子手脚都很暖和"),
    ("tired all over is fatigue, no sign on its own (adults say it of themselves)", "孩子浑身没力气"),
    ("wants a nap", "宝宝吃完饭一直想睡午觉"),
]

NEVER_HALTS = [
    # id, text: a strong form (or both halves of a together rule) not of the child now
    ("one half in the past", "孩子以前精神不好，现在特别困"),
    ("sleepy all the time in the past", "女儿小时候总想睡觉，现在好了"),
    ("one half of another person", "我没精神，孩子特别困"),
    ("a neighbour's child crying", "邻居家孩子一直哭，哄都哄不住"),
    ("asking about a drowsy baby", "如果宝宝叫了好久才醒怎么办"),
    ("grunting in the past", "前几天宝宝出气的时候一直哼哼，现在好了"),
    ("another person's rigid body", "我老公昨天身体突然绷直"),
]


(test_a_strong_form_or_two_mild_ones_halt, test_a_mild_form_asks_its_severity_question,
 test_a_look_alike_is_no_mention, test_a_form_not_of_the_child_now_never_halts) = family_checks(
    HARD, SOFT, LOOK_ALIKES, NEVER_HALTS)


# Kidney signs (SPEC §3.5 revision 2) in more of parents' words: PD effluent white like milk or with
# flakes and an exit site weeping (ISPD), a catheter with pus, a fistula whose thrill is gone or that
# keeps oozing, a transplanted kidney that hurts or urine falling after a transplant (KDIGO), a
# pressure that will not come down, sleeping sitting up or pink froth (fluid overload), fingers cramped
# straight, and confusion said as parents say it. Each now (halts) and in the past, of another person or
# asked about (asks, never halts).
KIDNEY = {
    "pd_peritonitis": ["腹透倒出来的液体白白的像牛奶", "腹透液里有白色的絮", "腹透管口那里流黄水"],
    "dialysis_access": ["透析管子的出口有脓", "内瘘那里一直在冒血", "内瘘摸不到震颤"],
    "transplant_alert": ["移植的那个肾摸着疼", "换肾以后尿越来越少"],
    "hypertensive_emergency": ["血压一直在170以上降不下来"],
    "fluid_overload": ["要坐着睡才能喘气", "咳出粉红色的泡沫"],
    "hypocalcemic_tetany": ["手指抽得伸不直", "手抽成鸡爪"],
    "altered_consciousness": ["说话颠三倒四", "不认识妈妈了"],
}
KIDNEY_NOT_NOW = {
    "past": "孩子以前{s}，现在好了，能吃香蕉吗",
    "other person": "我同事的孩子{s}",
    "knowledge question": "{s}是什么原因",
}


def _kidney_rows() -> list[tuple[str, str, str]]:
    rows = []
    for concept, phrasings in KIDNEY.items():
        for s in phrasings:
            rows.append((f"{concept} now: {s}", f"孩子今天{s}", concept))
            rows += [(f"{concept} {kind}: {s}", template.format(s=s), "") for kind, template in KIDNEY_NOT_NOW.items()]
    return rows


@pytest.mark.parametrize(("text", "concept"), [r[1:] for r in _kidney_rows()], ids=[r[0] for r in _kidney_rows()])
def test_a_kidney_sign_in_parents_words(router: Router, text, concept):
    result = router.route_request(text, PARENT, "P0001")
    if concept:
        halts(router, text, concept)
    else:
        assert result.status == "confirm", result.red_flags


KIDNEY_LOOK_ALIKES = [
    # id, text: no mention of any sign
    ("a baby who does not know faces yet", "宝宝三个月了还不认识妈妈"),
    ("chicken feet to eat", "孩子能吃鸡爪吗"),
    ("mixing the PD bag", "腹透液混合好了再加热"),
    ("asking about the graft's function", "移植肾的功能怎么样"),
]


@pytest.mark.parametrize("text", [r[1] for r in KIDNEY_LOOK_ALIKES], ids=[r[0] for r in KIDNEY_LOOK_ALIKES])
def test_a_kidney_look_alike_is_no_mention(router: Router, text):
    no_mention(router, text)


def test_a_together_rule_reports_its_name(router: Router):
    flags = router.route_request("宝宝特别困，没精神", PARENT, "P0001").red_flags
    assert [(f.concept, f.term, f.context, f.soft) for f in flags] == [("lethargy", "sleepy_and_listless", "current", False)]


def test_a_together_rule_halts_even_when_the_concept_was_acknowledged(router: Router):
    """Acknowledging says "not happening now"; two current mild forms say it is (SPEC §4.7: a current
    mention still halts)."""
    text = "宝宝特别困，没精神"
    assert router.route_request(text, PARENT, "P0001", acknowledged_red_flags=["lethargy"]).status == "halt"


def test_one_facet_twice_is_no_together_rule(router: Router):
    result = router.route_request("宝宝特别困，一直犯困", PARENT, "P0001")
    assert (result.status, result.reason_code) == ("confirm", "p0_confirm_severity"), result.red_flags


REFUSALS = [
    ("a together item that is no soft form", edit('["一直在睡", "都在睡觉",', '["嗜睡", "都在睡觉",'),
     "together.sleepy_and_listless: '嗜睡' is no soft term or soft pattern of the concept"),
    ("a together item in two facets", edit('["一直在睡", "都在睡觉",', '["精神差", "一直在睡", "都在睡觉",'),
     "together.sleepy_and_listless: '精神差' is in two facets"),
    ("a together name that is a pattern's", edit("together = { sleepy_and_listless", "together = { spirits_poor"),
     "together: name 'spirits_poor' is used twice"),
]


@pytest.mark.parametrize(("data", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_a_bad_together_rule_is_refused(data, message):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert any(message in problem for problem in info.value.problems), info.value.problems
