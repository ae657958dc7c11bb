"""Ages: N岁 (with months: 2岁3个月, 一岁零三个月), months of age (月龄18个月, 3个月大), and an age
said of a child in months, days or weeks (宝宝17个月, 十七个月男宝, 出生10天, 满月). Past 400 lines: the
branches of the shared scan that read an age and their handlers are one grammar, read together;
the milestones (满月, the days to go) and the upper bounds live apart (``milestones``, ``bounds``).

Decisions where the spec is silent (each has a row in tests/router/test_slots.py or
tests/router/test_slots_parents.py):

* an age needs its context *directly* before it;
* as parents write them (SPEC §4.4, issue 13): an age in months, days or weeks needs a child word
  before it (宝宝17个月; days and weeks only at a clause end: 宝宝3天没大便 is a duration) or after
  it (十七个月男宝, 47天的宝宝), 大 after it (3周大), or 出生 / 降生 before it; 满月 is 1/12 year but
  未满月 / 没满月 / 不到满月 are no age; days are /365, weeks 7/365; N岁 followed by 前 / 时 / 到 / 左右
  (a past age, a range, an approximation) is no age;
* 一个半月 is one number, 1.5 个月 (read by the shared scan), and 九个半月 of a child 9.5 months;
* SPEC §4.4 revision 2 (issue 21): days add to months at 30.4 days a month (三个月零八天 = 0.27, a
  bare 月 only with 零 / 又 / 加); lower bounds (两岁多, 2岁3个多月, 五个多月, 20多天) fill the bound
  and are ``approximate`` — but 一岁多时 is a past age; a bare N个月 / N天 opening a clause before a
  weight or a height is an age, and so is a bare N个月 that is its whole clause (没有发烧，6个月) or
  N天 that is the whole message, from a week up (27天; 3天 answers "how long");
* as the pediatric dev split writes them: years counted in 周 before months (一周两个月, 2周10个月,
  一周二 — but 两周 and 五周半 stay weeks), 1岁零2天, 年龄：13, 现在5个月, a child word + 今天 + N天;
  快五岁了 and 一岁以内 are no age; two decimals are rounded half up (一个半月 = 0.13);
* as the labelled pool writes them (issue 21, session 3): an age right before 就 / 开始 / 起 / 出院
  is the age at that moment (宝宝6个月就…, 两岁起…) unless 才 / 刚 / 现在 says it of now (and, for
  开始 / 起, unless a child word leads the age or it is inside its clause); an age in a
  drug's dose (说明书上…岁以下) or before 一下 (a bound written for 以下) is none; 满月后就 / 一直
  tells since when; a pronoun's months after 才 / 刚 (她才九个月) are the child's age; an elder
  child's values (大宝, 老大, 大的孩子) belong to another child when the text names two (``scan``);
* as the dev split, the pool and the imcs messages write them (issue 21, session 4): a newborn's N天
  is the age whatever follows it (not 一天 or N天没…); 出生第N天 ending its clause is the age; 满月 as a
  moment, an event or a plan (满月的时候, 满月照, 满月再…, a weight after it) or not reached (快满月)
  is no age; an age before an event done at it (…断的, 接种, 刚打, …检查的), 左右 or a product's age
  (N岁用的) is no age now; N周岁差一点 is an upper bound; years in 周 stop at 9 (36周5 is a
  pregnancy); 半个多月 is no age; months with 多 then days are a lower bound (九个月多五天); years,
  months and days add up; a child word then N周半 is years and a half; an age under a supposition
  or a general rule (如果, 要是, 一般) in its clause fills nothing (``draft.supposed``);
* SPEC §4.4 revision 3: a bare N天 / N个月 that is the whole message is how long, no age (27天, 6个月了);
  "almost N" (快两岁, 宝宝快三个月, 马上一岁三个月, 3周岁差点, 快满月) fills N and is ``approximate``, and
  it stays an upper bound for the infant-fever rule (``bounds``); the writer's own age fills only
  where the writer is the patient (``settle_writer``).
"""

from __future__ import annotations

import re

from ..numerals import CHARS
from ..text import CLAUSE_ENDS, LIST_MARK, PERIOD, SENTENCE_ENDS
from .bounds import almost_days
from .milestones import DAYS_PER_MONTH as _DAYS_PER_MONTH
from .milestones import on_age_to_go, on_full_month, set_days as _set_days
from .draft import NUM, Draft, Handler, led, number

# An age said in months, days or weeks (宝宝17个月, 出生10天, 3周大) and its length in years;
# 个多月 / 多个月 / 多天 / 几天 are lower bounds (五个多月 → 5 months, 20多天 and 二十几天 → 20 days,
# approximate), and so
# is a child's 个月多 (宝宝11个月多; 11个月多少斤 is a question, no age).
ALMOST = ("快要", "快", "将近", "马上", "就要", "差不多")
ALMOST_AFTER = ("差一点", "差点", "差几", "差不多")
_APPROXIMATE_SPANS = frozenset({"个多月", "多个月", "个月多", "多天", "几天"})
# 大 after an age (3天大, 3个月大的宝宝) but not the word it opens (一天大便, 这两天大脑): only before
# what may follow "so old" — a particle, a clause end, a child word.
_OLD = f"大(?=[的了啦呢吧呀啊哦嘛{CLAUSE_ENDS}{LIST_MARK} \\t)宝男女孩儿婴]|$)"
_AGE_SPAN = "个半月|个月半|个多月|多个月|个月多(?!少)|个月|多天|几天|天|周(?!岁)|个?星期|个?礼拜"
# N个半月, N个月半 and (before a child word) N月半 are N.5 months.
_HALF_SPANS = ("个半月", "个月半", "月半")
_YEARS_PER = {"个月": 1 / 12, "个多月": 1 / 12, "多个月": 1 / 12, "个月多": 1 / 12, "天": 1 / 365, "多天": 1 / 365, "几天": 1 / 365, "周": 7 / 365, "星期": 7 / 365, "个星期": 7 / 365,
              "礼拜": 7 / 365, "个礼拜": 7 / 365}
# Parents count years in 周 for young children only: 36周5 is a pregnancy's weeks and days.
_WEEK_YEARS = 9
# Days from a week up, to a year (7 to 99): after 一周零 they are days past a first birthday.
_WEEK_OF_DAYS = "[1-9][0-9](?![0-9.])|[7-9](?![0-9.])|[二三四五六七八九]?十[一二三四五六七八九]?|[七八九]"
# Days said after the months of a child's age: 宝宝三个月零八天, 出生一个月加十天.
# Atomic: days that are followed by 前 end the match there (宝宝3个月零8天前 is a date, not 3 months).
_PLUS_DAYS = "(?>(?:[ \\t]*[零又加]?[ \\t]*(?P<{0}_pn>" + NUM + ")(?P<{0}_pd>天))?)"
# Where a bare N个月 / N天 with a weight or a height right after it is an age: the text's start or a clause's.
_CLAUSE_OPENERS = CLAUSE_ENDS + LIST_MARK + " \t("
_CLAUSE_CLOSERS = CLAUSE_ENDS + LIST_MARK + ")"
_BODY_UNITS = "斤|公斤|千克|kg|厘米|cm|公分"
# A bare span as the whole message, particles and a reply's lead words at most (SPEC §4.4 revision 3:
# 27天, 6个月了, 这都六个半月了 answer "how long" as often as "how old"): no age.
_WHOLE_END = re.compile(f"[了啦吧呀啊哦呢]*[ \t]*[{SENTENCE_ENDS}~{re.escape(PERIOD)}…]*[ \t]*$")
# After N岁: a past age (12岁前, 5岁的时候), a range (12岁到20岁) or an approximation (3岁左右): no age.
_NOT_AN_AGE_AFTER = ("前", "之前", "以前", "时", "的时候", "那年", "到", "至", "左右", "以内", "之内", "以下", "以上", "内", "不到")
# Before N岁: the age at a past event (去年一岁, 自从三岁, 从两岁起, 在2周岁得过) — 在 not of 现在 / 正在.
_PAST_AGE_BEFORE = re.compile("(?:去年|前年|那年|自从|从|(?<![现实正还存])在)[ \t]*$")
# An event after the age in its clause makes it the age at that event (一岁半断奶之后, 三岁上幼儿园以后).
_EVENT_AFTER = re.compile(f"[^{CLAUSE_ENDS}{LIST_MARK}]{{0,4}}?(?:之后|以后)")
# Before a child's months or days: the age at a past moment (那时候她才出生9天, 当时宝宝3个月).
_PAST_MOMENT = re.compile(f"(?:那时候|那时|当时)[^{CLAUSE_ENDS}{LIST_MARK}]{{0,4}}$")
# Before a span then a child word: the time spent doing something (吃了两天小儿…, 顺延了一个月孩子…),
# a day counted (第二天孩子就…) or a time (这两天孩子咳嗽, 发烧前一天孩子…), not the child's age.
_NOT_AGE_BEFORE = "了吃喝用服打输挂住第这那前后头近"
# Before N岁: the end of a past span (直到20岁, 一直到他20岁): no age now.
_NOT_AN_AGE_BEFORE = ("直到", "直到他", "直到她", "直到我")
_NOT_KID_OPENERS = ("我", "患", "病")
# A child's N天 before an event is an age when it is a month or more (宝宝40天了白天都正常, 宝宝70天大便
# 不正常: a parent says a duration that long in months) or said with 才 (我孩子才14天怎么爱翻白眼).
_DAYS_OF_AGE = 28
_TODAY = ("今天", "今天是", "现在", "现在是", "目前")  # before 出生第N天: the child's age today
# A newborn is counted in days: 新生儿12天鼻子不通 is the age, whatever follows it (LABELS.md; the dev split and imcs).
_NEWBORN = "新生儿"
_NEWBORN_NOT_AFTER = ("没", "不", "未", "都", "一", "多少", "几", "内")
# 出生第N天 that ends its clause (a reply: 出生第五天了) is the age; before an event (出生第3天就黄了) a day of it.
_CLAUSE_END = re.compile(f"了?[ \t]*(?:[{CLAUSE_ENDS}{LIST_MARK}]|$)")
# Before a bare N个月 / N天 opening a clause: the age just reached (刚满三个月, 今天刚好28天).
_REACHED = ("今天刚好", "今天刚满", "今天正好", "刚刚满", "刚满", "已满", "刚好", "正好")
# An age said as now (宝宝现在5个月, 现在四个多月了) replaces an earlier age of a past event (42天时入院).
_NOW_WORDS = re.compile("现在|目前")
_NOW_BEFORE = re.compile("(?:现在|现已|目前)(?:已经|都|是|已|才|有)*[ \t]*$")  # 现已一岁10个月
_ONLY = ("才", "才刚", "刚刚", "刚")
# After a child's months or days: a window (宝宝3天以内), a date (3个月前, 出生20天以后), a lower
# bound read elsewhere (多), or the age at a past event (孩子四个月的时候, 宝宝两个月时) — no age now.
_NOT_NOW_AFTER = "(?!以内|之内|内|以来|以后|之后|前|后|多|的?时候|时(?!间)|不到)"
# A sex written before a bare N月 / N个月 opening the message (女 20月，): a demographic line's age.
_SEX_LEAD = re.compile("[男女](?:宝宝|宝|孩子|孩|童)?[ \t,:]*")
# Before a bare N个月 that ends its clause: at the message's start 这都六个半月了, 是的四个多月 (a
# reply); inside a message only 才 / 刚 (因为还小，才三个月) — 已经两个月了 there is how long.
_MONTHS_LEAD = re.compile("(?:是的|是|嗯|对)?(?:这|那)?(?:都|已经|已|现在|目前|才|刚刚|刚|有)*")
_MONTHS_LEAD_INSIDE = re.compile("才|刚刚|刚")
_LEAD_REACH = 6


# Right after an age: the moment something happened or began (宝宝6个月就去打了疫苗, 一个月零十天开始
# 加米粉, 两岁起爱流鼻血, 出生五天出院) — the age back then, no age now; unless the age is said as now or as "only"
# before its number (才两个月就出牙, 现在5岁就近视了).
# The same with an event said as done at that age (两岁半断的奶, 出生三天做的筛查, 六个月接种的, 八个月刚打过) or
# an approximation (出生二十天左右发现的湿疹), or a product's age (12岁用的): the age of an event, a schedule or
# a product, as the pool and imcs labels read it.
_AT_A_MOMENT = ("就", "开始", "起", "出院", "住院", "左右", "接种", "刚打", "打的", "检查的", "查的", "做的", "断的", "断奶的", "用的")
_NOT_A_MOMENT = ("起来", "就是")
_AS_NOW = ("才", "刚", "刚刚", "只有", "现在", "目前", "今年", "已经", "都")
# Before an age in its clause: a drug's dose (说明书上3岁以下半包, 用量：1岁一次5毫升), not the child's.
_DOSAGE = re.compile(f"(?:说明书|说明单|说明上|说明写|用法用量|用量|剂量|药盒上)[^{CLAUSE_ENDS}]*$")
_DOSAGE_REACH = 12
_DOSAGE_WORDS = re.compile("说明|用量|剂量|药盒")


def _not_now(d: Draft, start: int, number_start: int, end: int, led: bool = False) -> bool:
    """An age at a past moment (``_AT_A_MOMENT``), in a dose (``_DOSAGE``), or a bound written
    一下 for 以下 (3岁一下): no age of the child now. A child word before the age (``led``) or a
    clause that it does not open keeps it with 开始 / 起: 宝宝6个月开始加米粉 is as often said of a
    child who is six months now."""
    text = d.text
    if d.dosage is None:  # one pass per text, on first need, so that most texts skip the search per age
        d.dosage = _DOSAGE_WORDS.search(text) is not None
    dosage = d.dosage
    if text.startswith(_AT_A_MOMENT, end) and not text.startswith(_NOT_A_MOMENT, end):
        opens = start == 0 or text[start - 1] in _CLAUSE_OPENERS
        began = text.startswith(("开始", "起"), end)
        if not text.endswith(_AS_NOW, 0, number_start) and not (began and (led or not opens)):
            return True
    if text.startswith("一下", end) and not text.startswith("一下子", end):
        return True
    return dosage and _DOSAGE.search(text, max(0, start - _DOSAGE_REACH), start) is not None


def kid_words(patient_words: tuple[str, ...], age_words: tuple[str, ...]) -> tuple[str, ...]:
    """The child words among the patient words: 我儿子 is read through 儿子, and 患者 / 病人 are
    adults as often; a common first character (我) would send the scan to a branch at nearly every
    sentence. ``age_words`` (policy ``[slots]``) name a child only next to an age (9个月幼儿)."""
    return tuple(dict.fromkeys(w for w in patient_words + age_words if not w.startswith(_NOT_KID_OPENERS)))


def tails(units: str, kids: str) -> dict[str, str]:
    """Unit tails (after a number at the match start), given the unit pattern and the child words
    as one alternation."""
    return {
        # 三个月零八天, 5月零15天, 一个月加十天: months and days of an age (a bare 月 only with a join).
        "msum": (
            # 九个月多五天, 3个多零20天 (月 left out before 零): months that are a lower bound, then days.
            f"(?P<msum_u>个多月|个月|月|个多(?=[ \\t]*[零又加]))(?P<msum_m>多{{1,2}})?"
            f"[ \\t]*(?P<msum_j>[零又加])?[ \\t]*(?P<msum_n>{NUM})(?P<msum_d>天)"
            "(?!以内|之内|内|以来|前|后)"
        ),
        # 还有十天三个月了, 差5天满13个月: the age reached in a few days (checked in ``on_age_to_go``).
        "msub": (
            f"(?P<msub_d>天|个?星期|周(?!岁))[ \\t]*(?P<msub_j>就要|就满|就到|就|满|到)?[ \\t]*"
            f"(?P<msub_n>{NUM})(?P<msub_u>个月|周岁|岁)(?(msub_j)|(?=了))(?!以内|之内|内|以来|前|后)"
        ),
        # 3个月大, 十七个月男宝, 47天的宝宝, 2月半男宝: an age in months, days or weeks, said of a child.
        "kage": f"(?P<kage_u>{_AGE_SPAN}|月半)(?=了?(?:{_OLD}|的?(?:{kids})))",
        # 一周两个月, 2周10个月, 一周二: parents count years in 周 (周岁) before the months; a bare
        # 周 or 周半 stays weeks (两周, 五周半), and 一周三次 a frequency.
        "yweek": (
            f"周[ \\t]*(?:[零又][ \\t]*(?P<yweek_dn>{_WEEK_OF_DAYS})(?P<yweek_d>天)(?!以内|之内|内|以来|前|后)|[零又]?(?P<yweek_n>[0-9]{{1,2}}|十[一]?|[一二三四五六七八九十]|两(?=个?月))"
            f"(?P<yweek_u>个月|月)?(?![0-9.{CHARS}次回遍天号日点个周年岁分小度斤公克]))"
        ),
        "amon": "(?P<amon_u>个?月(?=龄))",
        # 20个月22斤: a bare N个月 / N天 with a weight or a height right after it; 六个月了 as a
        # whole clause (a parent's answer).
        "lage": (
            f"(?P<lage_u>个半月|个月半|个多月|个月|月|天)(?=[ \\t,]*(?:{NUM})[ \\t]*(?:{_BODY_UNITS})"
            f"|(?P<lage_end>了?[ \\t]*(?:[{_CLAUSE_CLOSERS}]|$)))"
        ),
        "age": (
            f"(?P<age_u>周岁|岁)(?P<age_h>半(?!{units}))?"
            f"(?:[ \\t]*(?:[零又加]|(?P<agem_almost>快))?(?P<agem_n>{NUM}|半)(?P<agem_u>个半月|个多月|个月|月(?![ \\t]*[0-9{CHARS}]+[日号])|天)"
            # 一岁两个月零五天: days after the months add up too (months of 30.4 days)
            f"(?:(?<=月)[ \\t]*[零又加]?[ \\t]*(?P<aged_n>{NUM})(?P<aged_d>天)(?!以内|之内|内|以来|前|后))?)?"
        ),
    }


def led_branches(kid_words: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Context-led branches (first characters, body): 月龄18个月, 年龄：13, 宝宝17个月, 男宝，28个月 (or 、),
    出生10天, 满月."""
    return {
        "mage": ("月", f"(?<=月)龄[ \\t]*[:为是]?[ \\t]*(?P<mage_n>{NUM})[ \\t]*(?P<mage_u>个月|月)?"),
        # 年龄：13 — with 岁 after it (年龄：一岁半, 年龄:2岁3个月) the N岁 branch reads the whole age.
        "yage": ("年", f"(?<=年)龄[ \\t]*[:为是]?[ \\t]*(?P<yage_n>{NUM})(?![ \\t]*(?:周岁|岁|半|[0-9.个月天周{CHARS}]))"),
        # 宝宝17个月, 女宝宝九个半月, 宝宝47天: days and weeks at a clause end (宝宝3天没大便 is no
        # age); days before an event only from a month up or after 才 (``on_age_span``).
        "kid": (
            "".join(dict.fromkeys(w[0] for w in kid_words)),
            led(*kid_words)
            + "[男女]?(?:[,、][ \\t]*)?(?:现在|目前|今年|今天|已经|刚刚|刚好|刚满|刚|才|已|满|有|是|第|都)*[ \\t]*"
            + _almost("kid") + number("kid")
            + "[ \\t]*(?:(?P<kid_u>个半月|个月半|个多月|个月)(?P<kid_more>(?<=个月)多(?!少))?" + _PLUS_DAYS.format("kid")
            # 女孩2周半: after a child word, N周半 is years in 周 (周岁) and a half (a bare 两周半 stays weeks)
            + "|(?P<kid_yh>周半)"
            + f"|(?P<kid_d>[多几]?天|周(?!岁)|个?星期)(?:(?=了?(?:{_OLD}|的|[{CLAUSE_ENDS}{LIST_MARK} ]|$))|(?P<kid_free>(?<=天))))"
            + _NOT_NOW_AFTER,
        ),
        "born": (
            "出降",
            f"(?<=[出降])生(?:后|了|才|刚)?{_almost('born')}(?P<born_th>第)?[ \\t]*{number('born')}[ \\t]*(?P<born_u>{_AGE_SPAN})"
            + _PLUS_DAYS.format("born") + _NOT_NOW_AFTER,
        ),
        # 满月, and 满周岁 / 刚周岁 (one year; 一周岁 is read as N岁).
        "full": ("满刚", f"(?:(?<=满)月(?![子饼份])|(?<=[满刚])周岁(?![半0-9{CHARS}]))"),
        # 他才九个月, 她现在才两个多月: a pronoun's months said as "only" are a child's age (他 / 她
        # keep the subject, SPEC §4.7); without 才 / 刚 (他两个月没来) they are how long.
        "pro": (
            "他她",
            f"(?<=[他她])(?:现在|今年|目前)?(?:才|刚刚|刚|只有)[ \\t]*{number('pro')}[ \\t]*(?P<pro_u>个半月|个月半|个多月|个月)"
            + _PLUS_DAYS.format("pro")
            + _NOT_NOW_AFTER,
        ),
        # 现在5个月, 现在才3个月零一点, 现在四个多月了: the child's age said as now.
        "now": (
            "现",
            f"(?<=现)在[ \\t]*(?:已经|才|是|有|刚|都|已)*[ \\t]*{_almost('now')}{number('now')}[ \\t]*(?P<now_u>个半月|个月半|个多月|个月)"
            + _PLUS_DAYS.format("now") + "(?!以内|之内|内|以来|前|后|的时候|时|不到)",
        ),
    }


def _almost(kind: str) -> str:
    """The optional "almost" of a context-led age (宝宝快三个月, 出生快40天), in the group ``<kind>_almost``."""
    return f"(?P<{kind}_almost>{'|'.join(ALMOST)})?[ \\t]*"


def on_months_of_age(m: re.Match[str], d: Draft) -> None:
    kind = m.lastgroup
    if kind == "amon":
        quantity = d.quantity(m, m.start(), m.start("e"), "amon_u")
    else:
        assert kind is not None  # this handler runs only for a match of its own kinds
        quantity = d.quantity(m, *m.span(kind + "_n"), kind + "_u")
    if quantity is not None:
        d.set_age(m.start(), m.end(), quantity["value"] / 12)


def on_years_of_age(m: re.Match[str], d: Draft) -> None:
    """年龄：13, 年龄13岁: a form's age field."""
    quantity = d.quantity(m, *m.span("yage_n"))
    if quantity is not None:
        d.set_age(m.start(), m.end(), float(quantity["value"]))


def on_years_in_weeks(m: re.Match[str], d: Draft) -> None:
    """一周两个月 = 1 year 2 months, 2周10个月, 一周二 (the months' unit left out); 一周零二十五天 =
    1 year 25 days — from a week of days up, since a week and a few days would be said in days."""
    years = d.quantity(m, m.start(), m.start("e"), None)
    if m.start("yweek_d") >= 0:
        days = d.quantity(m, *m.span("yweek_dn"), "yweek_d")
        if years is not None and days is not None and isinstance(years["value"], int):
            d.set_age(m.start(), m.end(), years["value"] + days["value"] / 365)
        return
    months = d.quantity(m, *m.span("yweek_n"), "yweek_u")
    if years is None or months is None or isinstance(years["value"], float) or months["value"] > 11:
        return
    if years["value"] > _WEEK_YEARS:
        return  # 36周5出生: weeks of a pregnancy, not years
    d.set_age(m.start(), m.end(), years["value"] + months["value"] / 12)


def on_age_span(m: re.Match[str], d: Draft) -> None:
    """宝宝17个月, 十七个月男宝, 九个半月的女宝, 出生10天, 3周大, 宝宝三个月零八天: months, days or
    weeks of a child, and days added to its months."""
    kind = m.lastgroup or ""
    if kind == "kage":
        unit = "kage_u"
        quantity = d.quantity(m, m.start(), m.start("e"), unit)
    else:
        if kind == "kid":
            unit = "kid_u" if m.start("kid_u") >= 0 else "kid_yh" if m.start("kid_yh") >= 0 else "kid_d"
        else:
            unit = kind + "_u"
        quantity = d.quantity(m, *m.span(kind + "_n"), unit)
    if quantity is None:
        return
    start = m.start()
    if kind == "kage" and start and d.text[start - 1] in _NOT_AGE_BEFORE:
        return  # 吃了两天小儿氨酚…, 这两天孩子…: how long or when, not how old
    if _PAST_MOMENT.search(d.text, max(0, start - 8), start):
        return  # 那时候她才出生9天: the age back then
    if _not_now(d, start, start if kind == "kage" else m.start(kind + "_n"), m.end(), led=kind != "kage"):
        return
    if kind == "kid" and m.start("kid_free") >= 0 and not (
        quantity["value"] >= _DAYS_OF_AGE or d.text.endswith(_ONLY, 0, m.start("kid_n")) or _newborn_days(d.text, start, m.end(), quantity["value"])
    ):
        return  # 宝宝3天没大便: a few days before an event are how long it lasted
    if kind == "born" and m.group("born_th") and not (d.text.endswith(_TODAY, 0, m.start()) or _CLAUSE_END.match(d.text, m.end())):
        return  # 出生第3天就黄了 is an event's day; 今天出生第六天 is the age
    current = kind == "now" or (kind == "kid" and _NOW_WORDS.search(m.group()) is not None)
    if unit == "kid_yh":
        if quantity["value"] <= _WEEK_YEARS:
            d.set_age(m.start(), m.end(), quantity["value"] + 0.5, current=current)
        return
    span = m.group(unit)
    if kind == "kid" and m.group("kid_more"):  # 11个月多 is 11个多月, a lower bound
        span = "个多月"
    if span in _HALF_SPANS:  # 九个半月 = 9.5 个月, as 一个半月 is 1.5
        quantity["value"], quantity["unit"], span = quantity["value"] + 0.5, "个月", "个月"
    plus = kind + "_pn"
    if kind != "kage" and m.start(plus) >= 0:
        days = d.quantity(m, *m.span(plus), kind + "_pd")
        if days is None or span not in ("个月", "个多月", "多个月"):
            return  # 出生10天3天 adds nothing up
        _set_days(m, d, quantity["value"] * _DAYS_PER_MONTH + days["value"], approximate=span in _APPROXIMATE_SPANS,
                  current=current)
        return
    almost = d.text.endswith(ALMOST, 0, start) if kind == "kage" else kind != "pro" and m.group(kind + "_almost") is not None
    d.set_age(m.start(), m.end(), quantity["value"] * _YEARS_PER[span], approximate=span in _APPROXIMATE_SPANS or almost,
              current=current, below=almost_days(d.words, quantity["value"], span) if almost else None)


def _newborn_days(text: str, start: int, end: int, days: float) -> bool:
    """新生儿N天 before an event (``_NEWBORN``); 新生儿一天大便几次 is a rate, 新生儿两天没大便 how long."""
    return text.startswith(_NEWBORN, start) and days >= 2 and not text.startswith(_NEWBORN_NOT_AFTER, end)


def on_month_sum(m: re.Match[str], d: Draft) -> None:
    """三个月零八天, 5月零15天, 一个月加十天 → days / 365 with months as 30.4 days; 九个月多五天 the
    same, a lower bound (``approximate``). A bare 月 with no join (5月15天) stays two numbers."""
    months = d.quantity(m, m.start(), m.start("e"), "msum_u")
    days = d.quantity(m, *m.span("msum_n"), "msum_d")
    if months is None or days is None or (m.group("msum_u") == "月" and not m.group("msum_j")):
        return
    if _not_now(d, m.start(), m.start(), m.end()):
        return
    approximate = m.group("msum_m") is not None or "多" in m.group("msum_u")
    _set_days(m, d, months["value"] * _DAYS_PER_MONTH + days["value"], approximate=approximate)


def on_leading_age(m: re.Match[str], d: Draft) -> None:
    """20个月22斤, 五个月，16斤: a bare N个月 / N天 opening the text or a clause, a weight or a
    height right after it; or a bare N个月 that is its whole clause (没有发烧，6个月). Elsewhere it
    is a number like any other."""
    start = m.start()
    quantity = d.quantity(m, start, m.start("e"), "lage_u")
    if quantity is None:
        return
    span = m.group("lage_u")
    text, whole = d.text, m.group("lage_end") is not None
    if text.startswith("半", start):
        return  # 咳嗽半个多月: how long; half a month is no age a parent gives
    if span == "月":  # 女 20月，: a bare 月 is an age only after a sex that opens the message
        if start and _SEX_LEAD.fullmatch(text, 0, start):
            d.set_age(start, m.end(), quantity["value"] / 12)
        return
    if span in _HALF_SPANS:
        quantity["value"], quantity["unit"], span = quantity["value"] + 0.5, "个月", "个月"
    reached = _reached(text, start)
    if reached is not None:
        # 刚满三个月, 今天刚满20天: a reached age; 刚好 / 正好 alone also say "exactly" of a duration
        # (刚好三个月), so they need a weight after them (今天刚好三个月13斤) or a month of days.
        if "满" in reached or not whole or (span == "天" and quantity["value"] >= _DAYS_OF_AGE):
            d.set_age(start, m.end(), quantity["value"] * _YEARS_PER[span], approximate=span == "个多月")
        return
    if span == "天" and whole:
        return  # a bare N天 clause is how long as often (3天，): a parent says an age in days with a child word
    if whole and _MONTHS_LEAD.fullmatch(text, 0, start) and _WHOLE_END.match(text, m.end()):
        return  # 6个月了 as the whole message: how long as often as how old (SPEC §4.4 revision 3)
    if (
        start == 0
        or text[start - 1] in _CLAUSE_OPENERS
        or (span != "天" and whole and _led_clause(text, start))
    ):
        d.set_age(start, m.end(), quantity["value"] * _YEARS_PER[span], approximate=span == "个多月")


def _led_clause(text: str, start: int) -> bool:
    """Only lead words (``_MONTHS_LEAD``, ``_MONTHS_LEAD_INSIDE``) between the clause's start and ``start``."""
    opening = start
    while opening > 0 and start - opening < _LEAD_REACH and text[opening - 1] not in _CLAUSE_OPENERS:
        opening -= 1
    if opening == 0:
        return _MONTHS_LEAD.fullmatch(text, 0, start) is not None
    return text[opening - 1] in _CLAUSE_OPENERS and _MONTHS_LEAD_INSIDE.fullmatch(text, opening, start) is not None


def _reached(text: str, start: int) -> str | None:
    """The word of a reached age (刚满, 今天刚好) right before ``start`` and opening a clause, if any."""
    for word in _REACHED:
        if text.endswith(word, 0, start):
            before = start - len(word)
            return word if before == 0 or text[before - 1] in _CLAUSE_OPENERS else None
    return None


def on_age(m: re.Match[str], d: Draft) -> None:
    """N岁, N岁半, 2岁3个月, and the lower bounds 两岁多 / 2岁3个多月 (approximate)."""
    years = d.quantity(m, m.start(), m.start("e"), "age_u", "age_h")
    months = d.quantity(m, *m.span("agem_n"), "agem_u") if m.group("agem_n") else None
    if years is None or (m.group("agem_n") and months is None):
        return
    end, start = m.end(), m.start()
    almost = d.text.endswith(ALMOST, 0, start) or d.text.startswith(ALMOST_AFTER, end) or m.group("agem_almost") is not None
    if (
        (d.text.startswith(_NOT_AN_AGE_AFTER, end) and not d.text.startswith("前天", end))
        or (start and d.text[start - 1] in "到至")
        or d.text.endswith(_NOT_AN_AGE_BEFORE, 0, start)
        or _PAST_AGE_BEFORE.search(d.text, max(0, start - 3), start)
        or _EVENT_AFTER.match(d.text, end)
        or _not_now(d, start, start, end)
    ):
        return  # 12岁前 a past age, 12岁到20岁 a range, 直到20岁 a past span, 去年一岁 the age back then
    month_unit = m.group("agem_u")
    if month_unit == "天" and months is not None:  # 1岁零2天: days after the years
        d.set_age(start, end, float(years["value"] + months["value"] / 365))
        return
    approximate = month_unit == "个多月"
    if months is None and d.text.startswith("多", end):
        if d.text.startswith(_NOT_AN_AGE_AFTER, end + 1):
            return  # 一岁多时: a past age
        approximate = True
    month_count = 0.0
    if months is not None:
        month_count = months["value"] + (0.5 if month_unit == "个半月" else 0)
        if m.group("aged_n"):
            days = d.quantity(m, *m.span("aged_n"), "aged_d")
            if days is None:
                return
            month_count += days["value"] / _DAYS_PER_MONTH
    current = _NOW_BEFORE.search(d.text, max(0, start - 8), start) is not None
    below = years["value"] * 365 + month_count * 30 if almost else None  # 快两岁: under two years (SPEC §4.7 revision 3)
    d.set_age(start, end, float(years["value"] + month_count / 12), approximate=approximate or almost, current=current, below=below)


# The writer is the patient of a message about their own pregnancy (怀孕, 怀上, 孕妇), or before a
# child word one planned or not had yet (准备要个孩子, 再造个女儿, 还没有小孩); 病人 / 患者 name no child.
_PREGNANCY = re.compile("孕|怀上|怀了")
_PLANNED = re.compile("(?:要|生|怀|造|没有|没)个?$")
_NOT_A_CHILD = ("患", "病")
# A writer this old is a parent; a younger one writes of their own body (我才15岁…女孩…: the patient).
_ADULT = 18


def settle_writer(d: Draft) -> None:
    """An adult writer's own age (我今年32岁) that a child word follows and no age of the child
    replaced: the message is about the child, and the writer's age fills nothing (SPEC §4.4
    revision 3) — unless the writer is the patient (``_PREGNANCY``, ``_PLANNED``: 我今年29岁，准备要个孩子)."""
    if d.age is None or d.age < _ADULT or _PREGNANCY.search(d.text):
        return
    after = [at for at in d.children if at >= d.age_end and not d.text.startswith(_NOT_A_CHILD, at)]
    if any(_PLANNED.search(d.text, max(0, at - 3), at) is None for at in after):
        d.age, d.age_approximate, d.age_below, d.age_provisional = None, False, None, False


HANDLERS: dict[str, Handler] = {
    "mage": on_months_of_age,
    "yage": on_years_of_age,
    "yweek": on_years_in_weeks,
    "amon": on_months_of_age,
    "msum": on_month_sum,
    "msub": on_age_to_go,
    "kage": on_age_span,
    "lage": on_leading_age,
    "kid": on_age_span,
    "now": on_age_span,
    "pro": on_age_span,
    "born": on_age_span,
    "full": on_full_month,
    "age": on_age,
}
