"""``extract_slots`` (SPEC §4.4): regex + dictionaries, and never a guess.

Foods, analytes and meals come from the policy lexicon's single Aho-Corasick scan (the router
runs it once per request). Everything numeric comes from **one** combined regex pass over the
``text`` view: its alternatives are ordered so that, at any position, a reading with context wins
over a bare number — a patient ID, a date, a time window, an age, a body weight, a height, and
only then a plain number with its unit. Whatever a match's number turns out to be (refused by
the numeral converter, for instance 三四天), the span is consumed, so 四天 is not read from it
afterwards. ``text`` and ``cased`` have the same length, so a span found in one is sliced from
the other to report units and raw text as written.

The module runs past 400 lines on purpose: the pattern and its handlers share every group name,
and one grammar split over two files would be harder to read than one long file.

Decisions this module makes where the spec is silent (each has a row in tests/router/test_slots.py):

* a date-shaped span that is not a calendar date (2月30日) is neither a date nor numbers;
* 明天 is reference + 1, N周前 reference − 7·N, 上周三 the Wednesday of the previous ISO week;
* a lower-case ``p0012`` is not an ID, its digits are an ordinary number;
* numbers inside an analyte word (hco3, co2结合力) are part of the word, not numbers;
* 斤 / 两 are food measures only with a food in the same clause (长了两斤 is not a portion);
* a bare week count (两周) is a window unless it is an ordinal (第二周), a frequency (一周三次)
  or a point in time (两周后); a year is 365 days, a month 30;
* a body weight, height or age needs its context *directly* before it (体重30斤, 体重是30斤);
  体重增加了2斤 is a change, not a weight, and stays a number; 3岁多 is not an age;
* 身高1.2 (no unit) is metres, 身高120 centimetres; without 身高, only metres said with decimals
  below 3 (1.2米, 一米二) are a height — 200米 is a distance;
* 一个半月 is one number, 1.5 个月;
* the first age / weight / height / window read wins; later ones are still numbers;
* as parents write them (SPEC §4.4, issue 13): an age in months, days or weeks needs a child word
  before it (宝宝17个月; days and weeks only at a clause end: 宝宝3天没大便 is a duration) or after
  it (十七个月男宝, 47天的宝宝), 大 after it (3周大), or 出生 / 降生 before it; 满月 is 1/12 year but
  未满月 / 没满月 / 不到满月 are no age; days are /365, weeks 7/365; N岁 followed by 前 / 时 / 到 / 左右
  (a past age, a range, an approximation) is no age;
* a weight with 斤 / 公斤 / kg and no 体重 is the child's when it comes at most 8 characters after
  the age in the same sentence, or right after 现在 / 目前 / 今年 (the current weight); a weight
  ranks birth < stated < current, and a later one replaces an earlier one of a lower rank only;
* body temperature needs 度 / ℃ / °C, 35–43, and a temperature word earlier in its sentence; 36度4 is
  36.4; the highest one wins;
* a value belongs to the nearest subject word before it (policy ``[context]``); another person's
  value fills no slot unless a patient word follows it right away (我表姐四岁的儿子); unlike a red
  flag's subject (§4.7), a child of another person (同事的孩子) is a child: its values fill; the
  writer's own value (after 我 / 本人) fills when nobody is named after it (我今年15岁，体重50公斤),
  none when another person is named after it (我今年二十九岁我奶奶…: the grandmother's question),
  and only until the patient's own value when a patient word follows it (我今年29岁，孩子3岁 → 3;
  我今年29岁，准备要个孩子 → 29);
* a Chinese numeral written right after Arabic digits (孩子2十八周岁) is no number;
* 孕22周 / 早孕22周 is no window; a salt inside a medicine name (氯化钠注射液) is no analyte;
* a full-width 。 between digits is a decimal point (PH6。0); a comma between 1–2 digits and 1–2
  digits is one only right after an analyte word (血钾5,3 = 5.3; 血脂5,3 stays 5 and 3).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from datetime import date, timedelta
from operator import attrgetter, itemgetter
from typing import Annotated, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic reads typing's own TypedDict only from Python 3.12

from .built import builder

from .lexicon import Hit, Hits
from .numerals import CHARS, LIMIT, SHORT, parse_digits, parse_number
from .policy import Policy
from .text import TextViews

Meal = Literal["breakfast", "lunch", "dinner", "snack"]


# A plain dict (a TypedDict), not a model: a message holds a dozen quantities, and building each
# as a model instance cost as much as the rest of its handling (bench/router_bench.py).
# ``with_config`` rather than a ``__pydantic_config__`` attribute: a type checker reads that attribute
# as one more required key, and then no dict literal is a Quantity.
@with_config(ConfigDict(extra="forbid"))
class Quantity(TypedDict):
    """A number with its unit, as written."""

    value: Annotated[int | float, Field(description="The number as written: an int when written without a fractional part.")]
    unit: Annotated[str | None, Field(description="The unit as written right after the number, or null when there is none.")]
    raw: Annotated[str, Field(description="The matched span as written (after Unicode normalization).")]


class SlotsResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    patient_id: str | None = Field(
        description="The one patient ID named in the text (P followed by ≥ 4 ASCII digits); null when none or several."
    )
    food: list[str] = Field(description="Foods from the policy dictionary, distinct, in order of first appearance.")
    analyte: list[str] = Field(
        description="Lab analytes as canonical field names (potassium, scr, …), distinct, in order of first appearance."
    )
    date: list[str] = Field(description="Dates named in the text, ISO YYYY-MM-DD, relative ones resolved; distinct.")
    number: list[Quantity] = Field(
        description="Every number with its unit as written; numbers inside dates and patient IDs are not repeated."
    )
    age_years: float | None = Field(description="The child's age in years (months ÷ 12, two decimals); null when not stated.")
    weight_kg: float | None = Field(description="Body weight in kg (斤 × 0.5), only with body-weight context; else null.")
    height_cm: float | None = Field(description="Body height in cm (1.2米 and 一米二 → 120); null when not stated.")
    temperature_c: float | None = Field(
        description="Body temperature in °C (35–43, 度 / ℃ / °C after 体温, 发烧, 烧到, 最高…; the highest when several); null when not stated."
    )
    time_window_days: int | None = Field(
        description="A look-back window in days (最近7天 → 7, 两周 → 14, 近一个月 → 30); null when none."
    )
    meal: Meal | None = Field(description="The one meal named; null when none or when two different meals are named.")
    measure: list[Quantity] = Field(description="Food portions (碗, 勺, 克, 毫升, 个, 片, 杯, …) with value, unit and raw.")
    ambiguous: list[str] = Field(description='Slots named more than once with different values: "patient_id", "meal".')
    policy_version: str = Field(description="The policy version and digest that produced this result.")


# ---------------------------------------------------------------------------------------------
# The combined pattern.
#
# Shape: one character class of every character a slot can start with, then one branch per slot
# kind, each guarded by a look-behind on that first character and closed by an empty group named
# after the kind (so ``Match.lastgroup`` is the kind and ``Match.lastindex`` its index). The
# leading class lets sre skip every other character in C; branches that opened with a capturing
# group would be tried one by one at every position instead (8× slower on a 100-character
# message). A number-led branch has no group for its number: the number runs from the match
# start to the empty group ``e``.
# ---------------------------------------------------------------------------------------------

_AR = r"[0-9]+(?:\.[0-9]+)?"
_CN = f"[{CHARS}]+"
_NUM = f"{_AR}|{_CN}"
# Words allowed between a context word (体重, 身高) and its number: 体重是30斤, 身高：120.
_FILL = r"(?:[ \t:=]|是|为|有|约|大约|大概|现在|目前|只有|才|一直|保持|维持|在)*"
# 米 is rice as often as it is a metre: 二两米饭, 一米二 (1.2 m).
_METRE = "米(?![饭粥粉面线糊酒醋])"
_WEEK = "周(?!岁)|个?星期|个?礼拜"
_SPAN_UNIT = f"天|{_WEEK}|个月|年"  # units of a time window
_WITHIN = "(?:以内|之内|内(?!瘘)|以来)"
_METRE_TAIL = r"[0-9]{1,2}(?![0-9.])|[零一二三四五六七八九]{1,2}"  # 一米二, 1米25
# Clause ends as the text view has them (NFKC turns ，！？； into ASCII); 、 separates list items.
_CLAUSE_MARKS = ",。!?;、\n"
_CLAUSE = re.compile(f"[{_CLAUSE_MARKS}]")

# Units a number may carry besides the policy's measure units; folded like the text view.
# 日 and 号 are left out on purpose: 3日 is a day of the month as often as a duration.
_BASE_UNITS = (
    "mmol/l", "μmol/l", "umol/l", "mg/dl", "g/dl", "mg/l", "g/l", "ml/min/1.73m2", "ml/min", "mg/kg", "g/kg",
    "kcal", "mmhg", "kg", "mg", "ml", "cm", "mm", "m2", "g", "l", "m", "h", "min", "%", "°c",
    "个小时", "个钟头", "个星期", "个礼拜", "个月", "个", "小时", "钟头", "分钟", "秒", "天", "周岁", "周", "星期",
    "礼拜", "月", "年", "岁", "次", "回", "顿", "期", "度", "公斤", "千克", "毫克", "微克", "克", "斤", "两", "毫升",
    "升", "厘米", "公分", "毫米", "碗", "勺", "汤匙", "茶匙", "杯", "片", "块", "根", "盒", "袋", "包", "瓶", "粒",
    "颗", "只", "条", "份", "口", "千卡", "大卡", "卡",
)
_WEEK_UNITS = frozenset({"周", "星期", "个星期", "礼拜", "个礼拜"})
_DAYS_PER = {"天": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7, "个礼拜": 7, "个月": 30, "年": 365}
# 斤 and 两 weigh a child as well as a food: a portion only with a food in the same clause.
_FOOD_BOUND_UNITS = frozenset({"斤", "两"})
_RELATIVE_DAYS = {"今天": 0, "今日": 0, "昨天": -1, "昨日": -1, "前天": -2, "大前天": -3, "明天": 1, "明日": 1}
_RELATIVE_DELTAS = {word: timedelta(days=days) for word, days in _RELATIVE_DAYS.items()}
_ONE_WEEK = timedelta(days=7)
# The reference dates that every relative word resolves against to a date: 上周一 said on a Sunday
# reaches 13 days back, 明天 one day forward (N天前 is checked as it is read).
REFERENCE_RANGE = (date.min + timedelta(days=13), date.max - timedelta(days=1))
_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS.update({str(n): n - 1 for n in range(1, 8)})
# A preceding character that turns the context word into another word: 将近 (nearly), 超重
# (overweight), 加重 (worsens) — the number after them is not a window or a body weight.
_NOT_WINDOW = frozenset("将接靠附")
_NOT_WEIGHT = frozenset("严加过超偏较沉")
# An age said in months, days or weeks (宝宝17个月, 出生10天, 3周大) and its length in years.
_AGE_SPAN = "个半月|个月|天|周(?!岁)|个?星期|个?礼拜"
_YEARS_PER = {"个月": 1 / 12, "天": 1 / 365, "周": 7 / 365, "星期": 7 / 365, "个星期": 7 / 365, "礼拜": 7 / 365, "个礼拜": 7 / 365}
# Body temperature (SPEC §4.4): a number in this range with 度 / ℃ / °C after a temperature word.
_TEMPERATURE = (35.0, 43.0)
_WEIGHT_UNITS = frozenset({"公斤", "千克", "kg", "斤"})
# A weight right after an age (十七个月男宝，12公斤): at most this many characters after it, in the same sentence.
_WEIGHT_AFTER_AGE = 8
_SENTENCE_ENDS = "。!?;\n"
# Before a weight: it was the birth weight (出生体重5.3斤), or it is the current one (现体重8斤,
# 以前140斤现在126斤, 前年60公斤今年64公斤). A weight ranks birth < stated < current; a later
# weight replaces an earlier one of a lower rank only.
_BIRTH = ("出生", "生下来", "出生时", "刚出生")
_CURRENT = re.compile("(?:现在|目前|如今|今年|现)(?:我|是|有|已经|已|才|只有|体重)*[ \t]*$")
_BIRTH_RANK, _STATED_RANK, _CURRENT_RANK = 0, 1, 2
_WRITER_RANKS = 3  # a writer's weight with a patient word after it ranks this much lower
# After N岁: a past age (12岁前, 5岁的时候), a range (12岁到20岁) or an approximation: no age.
_NOT_AN_AGE_AFTER = ("多", "前", "之前", "以前", "时", "的时候", "那年", "到", "至", "左右")
# Before N岁: the end of a past span (直到20岁, 一直到他20岁): no age now.
_NOT_AN_AGE_BEFORE = ("直到", "直到他", "直到她", "直到我")
_PREGNANT = "孕"  # 孕22周, 早孕22周: a pregnancy, not a time window
_NOT_KID_OPENERS = ("我", "患", "病")
_NOT_FULL_MONTH = ("未", "没", "不到", "没有", "还没")
_TERM, _PAYLOAD = attrgetter("term"), attrgetter("payload")
_START = itemgetter(0)  # of a Hit or a (start, end) mask
_PATIENT, _OTHER, _WRITER = 0, 1, 2  # whose a subject word is (``_Draft.subjects``)


def _unit_pattern(units: set[str]) -> str:
    """Longest unit first. A unit ending in an ASCII letter must not run into another letter (kg,
    not kgs); the others form a trie, so a bare number fails on one character class instead of
    trying ninety units one by one."""
    guarded = sorted((u for u in units if u[-1].isascii() and u[-1].isalpha()), key=len, reverse=True)
    plain = {u for u in units if u not in guarded and u != "米"}
    parts = [_trie(plain), "|".join(re.escape(u) + "(?![a-z])" for u in guarded)]
    if "米" in units:
        parts.insert(0, _METRE)
    return "|".join(p for p in parts if p)


def _trie(words: set[str]) -> str:
    heads: dict[str, set[str]] = {}
    for word in words:
        heads.setdefault(word[0], set()).add(word[1:])
    branches, singles = [], []
    for head, tails in sorted(heads.items()):
        longer = {t for t in tails if t}
        if not longer:
            singles.append(re.escape(head))
            continue
        branches.append(re.escape(head) + _trie(longer) + ("?" if "" in tails else ""))
    if singles:
        branches.append(f"[{''.join(singles)}]")
    return "(?:" + "|".join(branches) + ")"


def _led(*words: str) -> str:
    """Words whose first character the leading class has already consumed: 最近 → (?<=最)近."""
    return "(?:" + "|".join(f"(?<={w[0]}){w[1:]}" for w in sorted(words, key=len, reverse=True)) + ")"


# Where a Chinese numeral may open: at most two characters into its run of numeral characters.
#
# Opening anywhere made the scan quadratic: at every position of a run with no unit after it
# (千千千…), ``[C]*`` ran to the end of the run and gave back one character at a time (1.9 s for
# 2,000 characters, issue 11). Refusing the later positions changes no reading. The scan reaches a
# position inside a run either after a failed attempt one character before it, or where a match
# just ended. A failed attempt had already tried every end this one can try (what follows a
# Chinese numeral decides alone whether a tail fits: no tail looks behind it), so this one fails
# too. And a match ends inside a run at most two characters into it: a unit 两 right after digits
# or 半 (5两三天), one or two numerals after 米 (一米二三), the weekday of 上周三 (上周三十天). A new
# match kind that ends deeper inside a run must widen this; tests/router/test_adversarial.py
# compares the scan with the unrestricted one.
RUN_OPENING = f"(?<![{CHARS}]{{4}})"


def numeral_end(unit_set: set[str]) -> str:
    """Where a Chinese numeral may end: before a character that is no numeral, or before a unit
    that opens with one (两, 千克). A tail can fit nowhere else, so the scan does not try every
    tail at every end it gives back inside a run (千 written 2,000 times cost 2.7 ordinary
    messages of 2,000 characters with those tries, issue 11)."""
    led = sorted((u for u in unit_set if u[0] in CHARS), key=len, reverse=True)
    return f"(?:(?![{CHARS}])|(?={'|'.join(map(re.escape, led))}))" if led else f"(?![{CHARS}])"


def _pattern(unit_set: set[str], kid_words: tuple[str, ...]) -> re.Pattern[str]:
    units = _unit_pattern(unit_set)
    kids = "|".join(re.escape(w) for w in sorted(kid_words, key=len, reverse=True))

    def number(kind: str) -> str:
        return f"(?P<{kind}_n>{_NUM}|半)"

    # After a number that starts at the match start, in order of precedence: a date, then the
    # tails that open with optional blanks and a unit word, then a bare Arabic number.
    date_tail = (
        r"(?<![0-9]{5})(?<=[0-9]{4})(?:(?P<sep>[-/.])(?P<m1>[0-9]{1,2})(?P=sep)(?P<d1>[0-9]{1,2})"
        r"|[ \t]*年[ \t]*(?P<m2>[0-9]{1,2})[ \t]*月[ \t]*(?P<d2>[0-9]{1,2})[ \t]*[日号]?)(?![0-9])"
    )
    unit_tails = {  # each opens with a unit word right after the blanks
        "md": f"月[ \\t]*(?P<dd>[0-9]{{1,2}}|{_CN})[ \\t]*[日号]",
        "ago": f"(?P<ago_u>天|{_WEEK})(?:以前|之前|前)",
        "wsuf": f"(?P<wsuf_u>{_SPAN_UNIT}){_WITHIN}",
        # 3个月大, 十七个月男宝, 47天的宝宝: an age in months, days or weeks, said of a child.
        "kage": f"(?P<kage_u>{_AGE_SPAN})(?=大|的?(?:{kids}))",
        "amon": "(?P<amon_u>个?月(?=龄))",
        "age": (
            f"(?P<age_u>周岁|岁)(?P<age_h>半(?!{units}))?"
            f"(?:[ \\t]*[零又]?(?P<agem_n>{_NUM})(?P<agem_u>个月))?"
        ),
        "wt2": "(?P<wt2_u>公斤|千克|kg(?![a-z])|斤)(?=重)",
        "mid": "个半(?P<mid_u>月|小时|钟头|星期|礼拜)",  # 一个半月 = 1.5 个月, not 一个 + 半月
        "metre": f"(?P<metre_u>{_METRE}|m(?![a-z0-9]))(?P<metre_t>{_METRE_TAIL})?",
        # 38.5度, 39℃, and 36度4 / 三十八度五 (a tenth said after 度).
        "temp": f"(?P<temp_u>度|°c)(?P<temp_t>[0-9](?![0-9.])|[一二三四五六七八九](?![{CHARS}]))?",
        "q": f"(?P<q_u>{units})(?P<q_h>半(?!{units}))?",
    }
    # Every character a unit tail can open with (the words above, then the units). The blanks are
    # read once for all unit tails, and the look-ahead on this class sends a number followed by
    # anything else straight to the bare-number branch: the scan takes a fifth less time on
    # bench/router_bench.py's MESSAGE, a quarter less on longer texts. The matches are those of one
    # ``[ \t]*`` per tail, since no tail but ``q`` can open with a blank (a policy unit might), so
    # only the longest run of blanks can lead into any other tail, and ``q`` is tried last.
    openers = set("月天周个星礼年岁公千k斤米m度°") | {u[0] for u in unit_set}
    number_tails = (
        f"{date_tail}(?P<ymd>)"
        f"|[ \\t]*(?=[{''.join(re.escape(ch) for ch in sorted(openers))}])(?:"
        + "|".join(f"{body}(?P<{kind}>)" for kind, body in unit_tails.items())
        + ")"
        + "|(?<=[0-9])(?P<bare>)"  # an Arabic number needs no unit; a Chinese one does
    )
    led = {
        "pid": ("p", r"(?<![a-z0-9]p)[0-9]{4,}"),
        "num": (
            f"0-9{CHARS}半",
            # 2026.3.5 is a date: no decimal part when another dot and digit follow it.
            f"(?:(?<=[0-9])[0-9]*(?:\\.[0-9]+(?!\\.[0-9]))?|(?<=[{CHARS}]){RUN_OPENING}[{CHARS}]*{numeral_end(unit_set)}|(?<=半))(?P<e>)(?:"
            + number_tails
            + ")",
        ),
        "win": (
            "最过近",
            _led("最近", "过去", "近") + "(?:的|这)?[ \\t]*" + number("win")
            + f"[ \\t]*(?P<win_u>{_SPAN_UNIT}){_WITHIN}?",
        ),
        "mage": ("月", f"(?<=月)龄[ \\t]*[:为是]?[ \\t]*(?P<mage_n>{_NUM})[ \\t]*(?P<mage_u>个月|月)?"),
        # 宝宝17个月, 女宝宝九个半月, 宝宝47天: days and weeks only at a clause end (宝宝3天没大便 is no age).
        "kid": (
            "".join(dict.fromkeys(w[0] for w in kid_words)),
            _led(*kid_words) + "(?:现在|目前|今年|已经|刚刚|刚满|刚|才|已|满|有|是)*[ \\t]*" + number("kid")
            + "[ \\t]*(?:(?P<kid_u>个半月|个月)|(?P<kid_d>天|周(?!岁)|个?星期)(?=了?(?:大|的|[,。!?;、\\n ]|$)))"
            + "(?!以内|之内|内|以来|前|后|多)",
        ),
        "born": (
            "出降",
            f"(?<=[出降])生(?:后|了|才|刚)?[ \\t]*{number('born')}[ \\t]*(?P<born_u>{_AGE_SPAN})(?!以内|之内|内|以来|前|后|多)",
        ),
        "full": ("满", "(?<=满)月(?![子饼份])"),
        "wt": ("体重", _led("体重", "重") + _FILL + number("wt") + "[ \\t]*(?P<wt_u>公斤|千克|kg(?![a-z])|斤)"),
        "ht": (
            "身",
            f"(?<=身)高{_FILL}(?P<ht_n>{_NUM})[ \\t]*(?:(?P<ht_u>厘米|公分|cm(?![a-z]))"
            f"|(?P<ht_m>{_METRE}|m(?![a-z0-9]))(?P<ht_t>{_METRE_TAIL})?)?",
        ),
        "rel": (
            "大前昨今明上",
            "(?:(?<=大)前天|(?<![之以提]前)(?<=前)天|(?<=[昨今明])[天日]"
            "|(?<=上)个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7](?![0-9次回遍个天周]))?)",
        ),
    }
    trigger = "".join(dict.fromkeys("".join(first for first, _ in led.values())))
    branches = "|".join(
        f"(?<=[{first}]){body}" + ("" if kind == "num" else f"(?P<{kind}>)") for kind, (first, body) in led.items()
    )
    return re.compile(f"[{trigger}](?:{branches})")


class _Draft:
    """What one ``extract`` call has read so far; the handlers fill it in text order."""

    __slots__ = ("cased", "text", "reference", "foods", "masks", "ids", "dates", "numbers", "measures",
                 "age", "weight", "height", "window", "clause_marks", "temperature", "age_end", "weight_rank",
                 "subjects", "children", "last_patient", "last_other", "age_provisional", "temperature_words",
                 "sentence_ends")

    def __init__(self, views: TextViews, reference: date, foods: list[Hit], masks: list[tuple[int, int]]):
        self.cased, self.text, self.reference, self.foods, self.masks = views.cased, views.text, reference, foods, masks
        # Dicts as ordered sets: a membership test per ID or date costs the same however many came before.
        self.ids: dict[str, None] = {}
        self.dates: dict[str, None] = {}
        # Quantity dicts; a measure is the index of its number.
        self.numbers: list[Quantity] = []
        self.measures: list[int] = []
        self.age: float | None = None
        self.weight: float | None = None
        self.height: float | None = None
        self.window: int | None = None
        self.clause_marks: list[int] | None = None  # where the clause marks are, read on first need
        self.temperature: float | None = None
        self.age_end = -1  # where the age read ends: a weight may follow it without 体重
        self.weight_rank = _BIRTH_RANK  # of the weight read (see _BIRTH)
        # (start, whose: _PATIENT, _OTHER or _WRITER) of every subject word, in text order; None
        # when the text names no other person and no writer before a patient word, so that
        # everything belongs to the patient.
        self.subjects: list[tuple[int, int]] | None = None
        self.children: frozenset[int] = frozenset()  # where patient words start, with subjects
        # where the last patient and the last other-person word start (-1: none), with subjects
        self.last_patient = self.last_other = -1
        self.age_provisional = False  # the age read is the writer's, and a patient word follows it
        self.temperature_words: list[Hit] = []
        self.sentence_ends: list[int] | None = None  # read on first need

    def quantity(
        self, m: re.Match[str], start: int, stop: int, unit: str | None = None, half: str | None = None
    ) -> Quantity | None:
        """Record ``text[start:stop]`` with the unit and trailing 半 groups that follow it, if they matched."""
        token = self.text[start:stop]
        value: int | float | None
        if "0" <= token[:1] <= "9" and len(token) <= SHORT:  # parse_number, inlined: this runs for most handled matches
            value = float(token) if "." in token else int(token)
            if value >= LIMIT:
                return None
        else:
            value = parse_number(token)
            if value is None or (start and "0" <= self.text[start - 1] <= "9"):
                return None  # 2十八: digits and numerals mixed are no number
        if self.masks and _masked(self.masks, start):
            return None
        end, unit_text = stop, None
        if unit is not None:
            unit_start, unit_end = m.span(unit)
            if unit_start >= 0:
                end, unit_text = unit_end, self.cased[unit_start:unit_end]
                if half is not None:
                    half_start, half_end = m.span(half)
                    if half_start >= 0:
                        value, end = value + 0.5, half_end
        quantity: Quantity = {"value": value, "unit": unit_text, "raw": self.cased[start:end]}
        self.numbers.append(quantity)
        return quantity

    def add_date(self, day: date) -> None:
        self.dates[day.isoformat()] = None

    def owner(self, position: int, end: int = -1) -> int:
        """Whose the value at ``position`` (ending at ``end``) is: ``_OTHER`` when its nearest
        subject word before (or at: 宝宝17个月 opens with it) is another person's (SPEC §4.7), or the
        writer's with an other-person word somewhere after it; ``_WRITER`` when it is the writer's
        and a patient word comes after it (the patient's own value, said later, replaces it);
        else ``_PATIENT``. A patient word right after the value makes it the child's
        (我表姐四岁的儿子 is a child's age)."""
        subjects = self.subjects
        if not subjects:
            return _PATIENT
        index = bisect_right(subjects, position, key=_START)
        if index == 0:
            return _PATIENT
        owner = subjects[index - 1][1]
        if owner == _PATIENT or (end >= 0 and (end in self.children or (self.text.startswith("的", end) and end + 1 in self.children))):
            return _PATIENT
        if owner == _WRITER and self.last_other < position:
            return _WRITER if self.last_patient > position else _PATIENT
        return _OTHER

    def others(self, position: int, end: int = -1) -> bool:
        """Whether the value at ``position`` fills no patient slot (``owner``)."""
        return self.owner(position, end) == _OTHER

    def set_age(self, start: int, end: int, years: float) -> None:
        if self.subjects is None:  # everything is the patient's: the first age stays
            if self.age is None:
                self.age, self.age_end = round(years, 2), end
            return
        if self.age is not None and not self.age_provisional:
            return
        owner = self.owner(start, end)
        if owner == _OTHER or (self.age is not None and owner == _WRITER):
            return
        self.age, self.age_end, self.age_provisional = round(years, 2), end, owner == _WRITER

    def same_sentence(self, start: int, end: int) -> bool:
        """No sentence end in ``text[start:end]``; the ends are found once per text, on first need."""
        ends = self.sentence_ends
        if ends is None:
            ends = self.sentence_ends = [mark.start() for mark in _SENTENCE_END.finditer(self.text)]
        index = bisect_left(ends, start)
        return index == len(ends) or ends[index] >= end


class SlotExtractor:
    def __init__(self, policy: Policy) -> None:
        slots = policy.slots
        self._measure_units = frozenset(slots.measure_units)
        self._digit_analytes = frozenset(term for term in slots.analytes if any(ch.isdigit() for ch in term))
        # The child words among the patient words: 我儿子 is read through 儿子, and 患者 / 病人
        # are adults as often; a common first character (我) would send the scan to a branch at
        # nearly every sentence.
        kids = tuple(w for w in slots.patient_words if not w.startswith(_NOT_KID_OPENERS))
        pattern = _pattern(set(_BASE_UNITS) | set(slots.measure_units), kids)
        self._scan = pattern.finditer
        # The writer's words (我, 本人) as subjects of a value; the words that hide one (我们, 我觉得)
        # come first and match without a group. 自己 is left out: a reflexive after a subject
        # (孩子自己) names no new one.
        hiders = sorted(slots.self_not_inside, key=len, reverse=True)
        selves = sorted((w for w in slots.self_words if w != "自己"), key=len, reverse=True)
        self._writers = re.compile(
            "|".join(map(re.escape, hiders)) + f"|({'|'.join(map(re.escape, selves))})" if hiders
            else f"({'|'.join(map(re.escape, selves))})"
        ).finditer
        self._handlers = {
            "pid": self._on_pid,
            "ymd": self._on_ymd,
            "md": self._on_md,
            "rel": self._on_relative,
            "ago": self._on_ago,
            "win": self._on_window,
            "wsuf": self._on_window,
            "mage": self._on_months_of_age,
            "amon": self._on_months_of_age,
            "kage": self._on_age_span,
            "kid": self._on_age_span,
            "born": self._on_age_span,
            "full": self._on_full_month,
            "temp": self._on_temperature,
            "age": self._on_age,
            "wt": self._on_weight,
            "wt2": self._on_weight,
            "ht": self._on_height,
            "mid": self._on_mid_half,
            "metre": self._on_metres,
            # "q" and "bare", the most frequent kinds, are read in ``extract`` itself.
        }
        # ``Match.lastindex`` is the index of the kind's closing empty group: a tuple indexed by it
        # finds the handler without the name lookup of ``lastgroup``.
        groups = pattern.groupindex
        # Indices that are no kind's closing group stay None: no match ends with one of them.
        table: list[Callable[[re.Match[str], _Draft], None] | None] = [None] * (max(groups.values()) + 1)
        for kind, handler in self._handlers.items():
            table[groups[kind]] = handler
        self._groups = (tuple(table), groups["bare"], groups["q"], groups["e"], groups["q_u"], groups["q_h"])

    def extract(self, views: TextViews, hits: Hits, reference_date: date, policy_version: str) -> SlotsResult:
        analytes = hits.group("analyte")
        if analytes and "medicine" in hits:
            analytes = _outside(analytes, hits.group("medicine"))
        digit_analytes = self._digit_analytes
        masks = [(h.start, h.end) for h in analytes if h.term in digit_analytes] if digit_analytes and analytes else []
        foods = hits.group("food")
        draft = _Draft(views, reference_date, foods, masks)
        text, cased, numbers = views.text, views.cased, draft.numbers
        if ("。" in text or "," in text) and _DECIMAL_HINT.search(text):
            text = draft.text = _decimals(text, analytes)
        if "other" in hits or "patient" in hits:
            patients, others = hits.group("patient"), hits.group("other")
            # 我 opening a subject word (我儿子, 我爸) is that word, not the writer.
            named = {h.start for h in patients} | {h.start for h in others}
            writers = [m.start() for m in self._writers(text) if m.lastindex and m.start() not in named]
            if others or writers:
                draft.subjects = _subjects(patients, others, writers)
                draft.children = frozenset(h.start for h in patients)
                draft.last_patient = patients[-1].start if patients else -1
                draft.last_other = others[-1].start if others else -1
        if "temperature" in hits:
            draft.temperature_words = hits.group("temperature")
        handlers, bare, quantity, number_end, unit_group, half_group = self._groups
        measure_units = self._measure_units
        # A bare number and a number with its unit are most of what a message holds: they are read
        # here, without a handler and a ``_Draft.quantity`` call each (1 µs of 23 on the bench MESSAGE).
        for m in self._scan(text):
            kind = m.lastindex
            if kind == bare:  # ASCII digits only: parse_number's own branch, inlined
                start, stop = m.span()
                token = text[start:stop]
                value = (float(token) if "." in token else int(token)) if len(token) <= SHORT else parse_digits(token)
                if value is not None and value < LIMIT and not (masks and _masked(masks, start)):
                    numbers.append({"value": value, "unit": None, "raw": cased[start:stop]})
            elif kind == quantity:  # _Draft.quantity inlined; the unit always matched, 半 may follow it
                start, stop = m.start(), m.start(number_end)
                token = text[start:stop]
                if "0" <= token[0] <= "9" and len(token) <= SHORT:
                    value = float(token) if "." in token else int(token)
                    if value >= LIMIT:
                        continue
                else:
                    value = parse_number(token)
                    if value is None or (start and "0" <= text[start - 1] <= "9"):
                        continue  # 2十八: digits and numerals mixed are no number
                if masks and _masked(masks, start):
                    continue
                unit_start, unit_end = m.span(unit_group)
                half_start, end = m.span(half_group)
                if half_start >= 0:
                    value += 0.5
                else:
                    end = unit_end
                numbers.append({"value": value, "unit": cased[unit_start:unit_end], "raw": cased[start:end]})
                unit = text[unit_start:unit_end]
                if unit in measure_units and (unit not in _FOOD_BOUND_UNITS or _food_in_clause(draft, m)):
                    draft.measures.append(len(numbers) - 1)
                elif unit in _WEIGHT_UNITS:
                    _bare_weight(draft, start, value, unit)
                elif unit in _WEEK_UNITS and draft.window is None and _is_bare_span(draft, m):
                    if not draft.others(start):
                        draft.window = _round_half_up(value * 7)
            else:
                # A match ends with a kind's closing group, and every kind not read above has a handler.
                assert kind is not None
                handler = handlers[kind]
                assert handler is not None
                handler(m, draft)
        meals = list(dict.fromkeys(map(_PAYLOAD, hits.group("meal"))))
        ambiguous = []
        if len(draft.ids) > 1:
            ambiguous.append("patient_id")
        if len(meals) > 1:
            ambiguous.append("meal")
        return _build_result(
            {
                "patient_id": next(iter(draft.ids)) if len(draft.ids) == 1 else None,
                "food": list(dict.fromkeys(map(_TERM, foods))),
                "analyte": list(dict.fromkeys(map(_PAYLOAD, analytes))),
                "date": list(draft.dates),
                "number": numbers,
                "age_years": draft.age,
                "weight_kg": draft.weight,
                "height_cm": draft.height,
                "temperature_c": draft.temperature,
                "time_window_days": draft.window,
                "meal": meals[0] if len(meals) == 1 else None,
                "measure": [numbers[i] for i in draft.measures],  # a measure is one of the numbers
                "ambiguous": ambiguous,
                "policy_version": policy_version,
            }
        )

    # -- identifiers and dates ------------------------------------------------------------------

    def _on_pid(self, m: re.Match[str], d: _Draft) -> None:
        token = d.cased[m.start() : m.end()]
        if token[0] == "P":
            d.ids[token] = None
        else:  # p0012 is not an ID; its digits are an ordinary number (unless too long to be one)
            value = parse_digits(token[1:])
            if value is not None:
                d.numbers.append({"value": value, "unit": None, "raw": token[1:]})

    def _on_ymd(self, m: re.Match[str], d: _Draft) -> None:
        year = int(d.text[m.start() : m.start("e")])
        if m.group("sep"):
            _add_calendar_date(d, year, m.group("m1"), m.group("d1"))
        else:
            _add_calendar_date(d, year, m.group("m2"), m.group("d2"))

    def _on_md(self, m: re.Match[str], d: _Draft) -> None:
        _add_calendar_date(d, d.reference.year, d.text[m.start() : m.start("e")], m.group("dd"))

    def _on_relative(self, m: re.Match[str], d: _Draft) -> None:
        delta = _RELATIVE_DELTAS.get(m.group())
        try:
            if delta is not None:
                d.add_date(d.reference + delta)
            elif m.group("wd"):  # 上周三: the Wednesday of the previous week
                monday = d.reference - timedelta(days=d.reference.weekday() + 7)
                d.add_date(monday + timedelta(days=_WEEKDAYS[m.group("wd")]))
            else:
                d.add_date(d.reference - _ONE_WEEK)
        except OverflowError:
            return  # past year 1 or 9999 (a reference outside REFERENCE_RANGE, given in Python): not a date

    def _on_ago(self, m: re.Match[str], d: _Draft) -> None:
        value = parse_number(d.text[m.start() : m.start("e")])
        if value is None or isinstance(value, float):
            return  # 三四天前, 1.5天前: not one day
        try:
            d.add_date(d.reference - timedelta(days=value * _DAYS_PER[m.group("ago_u")]))
        except OverflowError:
            return  # before year 1: not a date

    # -- time window, age, weight, height ----------------------------------------------------

    def _on_window(self, m: re.Match[str], d: _Draft) -> None:
        if m.lastgroup == "win":
            quantity, unit = d.quantity(m, *m.span("win_n"), "win_u"), m.group("win_u")
            if d.text[m.start()] == "近" and m.start() and d.text[m.start() - 1] in _NOT_WINDOW:
                return
        else:
            quantity, unit = d.quantity(m, m.start(), m.start("e"), "wsuf_u"), m.group("wsuf_u")
        if quantity is not None and d.window is None and (d.subjects is None or not d.others(m.start())):
            d.window = _round_half_up(quantity["value"] * _DAYS_PER[unit])

    def _on_months_of_age(self, m: re.Match[str], d: _Draft) -> None:
        kind = m.lastgroup
        if kind == "amon":
            quantity = d.quantity(m, m.start(), m.start("e"), "amon_u")
        else:
            assert kind is not None  # this handler runs only for a match of its own kinds
            quantity = d.quantity(m, *m.span(kind + "_n"), kind + "_u")
        if quantity is not None:
            d.set_age(m.start(), m.end(), quantity["value"] / 12)

    def _on_age_span(self, m: re.Match[str], d: _Draft) -> None:
        """宝宝17个月, 十七个月男宝, 九个半月的女宝, 出生10天, 3周大: months, days or weeks of a child."""
        kind = m.lastgroup or ""
        if kind == "kage":
            unit = "kage_u"
            quantity = d.quantity(m, m.start(), m.start("e"), unit)
        else:
            unit = "kid_u" if kind == "kid" and m.start("kid_u") >= 0 else ("kid_d" if kind == "kid" else "born_u")
            quantity = d.quantity(m, *m.span(kind + "_n"), unit)
        if quantity is None:
            return
        span = m.group(unit)
        if span == "个半月":  # 九个半月 = 9.5 个月, as 一个半月 is 1.5
            quantity["value"], quantity["unit"], span = quantity["value"] + 0.5, "个月", "个月"
        d.set_age(m.start(), m.end(), quantity["value"] * _YEARS_PER[span])

    def _on_full_month(self, m: re.Match[str], d: _Draft) -> None:
        """满月 (刚满月, 满月了) is one month old; 未满月 / 没满月 / 不到满月 is less, and no age."""
        start = m.start()  # the 满: a led match starts at its first character
        if not d.text.endswith(_NOT_FULL_MONTH, 0, start):
            d.set_age(start, m.end(), 1 / 12)

    def _on_age(self, m: re.Match[str], d: _Draft) -> None:
        years = d.quantity(m, m.start(), m.start("e"), "age_u", "age_h")
        months = d.quantity(m, *m.span("agem_n"), "agem_u") if m.group("agem_n") else None
        if years is None or (m.group("agem_n") and months is None):
            return
        end, start = m.end(), m.start()
        if (
            (d.text.startswith(_NOT_AN_AGE_AFTER, end) and not d.text.startswith("前天", end))
            or (start and d.text[start - 1] in "到至")
            or d.text.endswith(_NOT_AN_AGE_BEFORE, 0, start)
        ):
            return  # 3岁多 is "over three", 12岁前 a past age, 12岁到20岁 a range, 直到20岁 a past span
        d.set_age(m.start(), m.end(), float(years["value"] + (months["value"] / 12 if months else 0)))

    def _on_temperature(self, m: re.Match[str], d: _Draft) -> None:
        """38.5℃ or 三十八度五 after a temperature word of the same sentence; the highest one wins."""
        start = m.start()
        quantity = d.quantity(m, start, m.start("e"), "temp_u")
        if quantity is None:
            return
        tenth = m.group("temp_t")
        if tenth:  # 36度4 is 36.4
            if isinstance(quantity["value"], float):
                return
            quantity["value"] = float(f"{quantity['value']}.{parse_number(tenth)}")
            quantity["raw"] = d.cased[start : m.end("temp_t")]
        value = float(quantity["value"])
        if not _TEMPERATURE[0] <= value <= _TEMPERATURE[1] or d.others(start):
            return
        words = d.temperature_words
        index = bisect_left(words, start, key=_START)
        if index and words[index - 1].end <= start and d.same_sentence(words[index - 1].end, start):
            d.temperature = value if d.temperature is None else max(d.temperature, value)

    def _on_weight(self, m: re.Match[str], d: _Draft) -> None:
        if m.lastgroup == "wt":
            quantity, unit = d.quantity(m, *m.span("wt_n"), "wt_u"), m.group("wt_u")
            if d.text[m.start()] == "重" and m.start() and d.text[m.start() - 1] in _NOT_WEIGHT:
                return
        else:
            quantity, unit = d.quantity(m, m.start(), m.start("e"), "wt2_u"), m.group("wt2_u")
        if quantity is not None:
            start = m.start()
            if d.text.endswith(_BIRTH, 0, start):
                rank = _BIRTH_RANK
            elif _CURRENT.search(d.text, max(0, start - 8), start):
                rank = _CURRENT_RANK
            else:
                rank = _STATED_RANK
            _set_weight(d, start, quantity["value"], unit, rank)

    def _on_height(self, m: re.Match[str], d: _Draft) -> None:
        if m.group("ht_m"):
            self._metres(m, d, *m.span("ht_n"), "ht_m", "ht_t", stated=True)
            return
        quantity = d.quantity(m, *m.span("ht_n"), "ht_u")
        if quantity is not None and d.height is None and not d.others(m.start()):
            # 身高1.2 can only be metres, 身高120 only centimetres.
            value = quantity["value"]
            d.height = round(float(value * 100 if quantity["unit"] is None and value < 3 else value), 1)

    def _on_metres(self, m: re.Match[str], d: _Draft) -> None:
        self._metres(m, d, m.start(), m.start("e"), "metre_u", "metre_t", stated=False)

    @staticmethod
    def _metres(m: re.Match[str], d: _Draft, start: int, stop: int, unit: str, tail: str, stated: bool) -> None:
        """1.2米, 一米二, 1米25: a height after 身高, or when said with decimals below 3 m (200米 is a distance)."""
        value = parse_number(d.text[start:stop])
        decimals = m.group(tail)
        if value is None or (decimals and isinstance(value, float)):
            return
        if decimals:  # the digits after 米 are the decimals of the metres
            value = float(f"{value}." + "".join(str(parse_number(ch)) for ch in decimals))
        end = m.end(tail) if decimals else m.end(unit)
        d.numbers.append({"value": value, "unit": d.cased[m.start(unit) : m.end(unit)], "raw": d.cased[start:end]})
        if d.height is None and (stated or (isinstance(value, float) and value < 3)) and not d.others(start):
            d.height = round(float(value * 100), 1)

    # -- other numbers (plain numbers and food portions are read in ``extract``) ----------------

    def _on_mid_half(self, m: re.Match[str], d: _Draft) -> None:
        value = parse_number(d.text[m.start() : m.start("e")])
        if value is not None:
            unit = "个" + m.group("mid_u")
            d.numbers.append({"value": value + 0.5, "unit": unit, "raw": d.cased[m.start() : m.end()]})


def _add_calendar_date(d: _Draft, year: int, month: str, day: str) -> None:
    month_value, day_value = parse_number(month), parse_number(day)
    if not isinstance(month_value, int) or not isinstance(day_value, int):
        return
    try:
        d.add_date(date(year, month_value, day_value))
    except ValueError:
        return  # 2月30日: shaped like a date, not one; its numbers are not quantities either


def _set_weight(d: _Draft, start: int, value: float, unit: str, rank: int) -> None:
    """The first weight of the highest rank: 出生体重5.3斤，现体重8斤 is 4 kg. The writer's own
    weight with a patient word after it ranks below every weight of the patient's."""
    if d.weight is not None and rank <= d.weight_rank:
        return
    if d.subjects is None:  # everything is the patient's
        d.weight, d.weight_rank = round(float(value * (0.5 if unit == "斤" else 1)), 2), rank
        return
    owner = d.owner(start)
    if owner == _WRITER:
        rank -= _WRITER_RANKS
    if owner != _OTHER and (d.weight is None or rank > d.weight_rank):
        d.weight, d.weight_rank = round(float(value * (0.5 if unit == "斤" else 1)), 2), rank


def _bare_weight(d: _Draft, start: int, value: float, unit: str) -> None:
    """A weight without 体重: said as the current one (现在150斤), or a few characters after the
    age in its sentence (十七个月男宝，12公斤)."""
    if _CURRENT.search(d.text, max(0, start - 8), start):
        _set_weight(d, start, value, unit, _CURRENT_RANK)
    elif d.age_end >= 0 and start - d.age_end <= _WEIGHT_AFTER_AGE and d.same_sentence(d.age_end, start):
        _set_weight(d, start, value, unit, _STATED_RANK)


def _subjects(patients: list[Hit], others: list[Hit], writers: list[int]) -> list[tuple[int, int]]:
    """Every subject word as (start, whose), in text order. Unlike a red flag's subject (§4.7), a
    patient word governed by another person (朋友的孩子今年8岁) stays a child's: the values said of
    that child are the ones the text asks about."""
    return sorted([(h.start, _PATIENT) for h in patients] + [(h.start, _OTHER) for h in others]
                  + [(start, _WRITER) for start in writers])


def _outside(analytes: list[Hit], medicines: list[Hit]) -> list[Hit]:
    """The analyte words that are not inside a medicine's name (氯化钠注射液 names no sodium result).
    Both lists are in text order with increasing starts and ends: one merge, not a product."""
    kept, index = [], 0
    names = [m for m in medicines if m.payload != "not"]
    for hit in analytes:
        while index < len(names) and names[index].end <= hit.start:
            index += 1
        if index < len(names) and names[index].start <= hit.start and hit.end <= names[index].end:
            continue
        kept.append(hit)
    return kept


def _decimals(text: str, analytes: list[Hit]) -> str:
    """Decimal points written another way, rewritten in place (the same length, so spans still
    slice ``cased``): a full-width 。 between digits (PH6。0), and a comma between digits right
    after an analyte word, a colon or a blank between (血钾5,3 → 5.3, 血钾：5,3). Any other comma
    between digits stays a separator: 血脂5,3 is 5 and 3 (血脂 is not an analyte of the
    dictionary, and a list is as likely), and so are 血钾5,3,4 and 血钾5,3天前."""
    points: list[int] = []
    index = text.find("。")
    while index != -1:  # a handful of sentence ends: a look at each, not a regex pass
        if 0 < index < len(text) - 1 and "0" <= text[index - 1] <= "9" and "0" <= text[index + 1] <= "9":
            points.append(index)
        index = text.find("。", index + 1)
    if "," in text:
        for hit in analytes:  # one anchored match after each analyte word
            m = _COMMA_DECIMAL.match(text, hit.end)
            if m:
                points.append(m.start(1))
    if not points:
        return text
    chars = list(text)
    for index in points:
        chars[index] = "."
    return "".join(chars)


def _masked(masks: list[tuple[int, int]], start: int) -> bool:
    """Whether ``start`` lies inside one of ``masks``: lexicon hits, in text order with increasing
    starts and ends, so the last one opening at or before ``start`` is the only candidate (a search,
    not a pass over every mask per number: hco3 written a thousand times)."""
    index = bisect_right(masks, start, key=_START)
    return index > 0 and start < masks[index - 1][1]


_build_result = builder(SlotsResult)
_SENTENCE_END = re.compile(f"[{_SENTENCE_ENDS}]")
_DECIMAL_HINT = re.compile("[0-9][。,][0-9]")  # where ``_decimals`` could change anything at all
_COMMA_DECIMAL = re.compile("[ :=是为]{0,2}[0-9]{1,2}(,)[0-9]{1,2}(?![0-9.,天个次岁周月年号日点])")


def _food_in_clause(d: _Draft, m: re.Match[str]) -> bool:
    """A food named in the clause around the match: 一斤猪肉, 猪肉二两 — not 体重长了两斤.

    Clause marks are found once per text and foods are in text order with increasing starts and
    ends, so each portion costs two searches, not a pass over the text and the foods (一两米饭
    written a thousand times)."""
    marks = d.clause_marks
    if marks is None:
        marks = d.clause_marks = [mark.start() for mark in _CLAUSE.finditer(d.text)]
    start, end = m.span()
    before = bisect_left(marks, start)
    lo = marks[before - 1] + 1 if before else 0
    after = bisect_left(marks, end)
    hi = marks[after] if after < len(marks) else len(d.text)
    first = bisect_left(d.foods, lo, key=_START)  # the first food opening in the clause ends first
    return first < len(d.foods) and d.foods[first].end <= hi


_FREQUENCY = re.compile(f"[ \\t]*(?:{_NUM}|几)[ \\t]*[次回顿]")


def _is_bare_span(d: _Draft, m: re.Match[str]) -> bool:
    """两周 alone is a window; 第二周, 每两周, 一周三次 and 两周后 are not."""
    start, end = m.span()
    if start and d.text[start - 1] in "第每":
        return False
    if _PREGNANT in d.text[max(0, start - 2) : start]:
        return False  # 孕22周, 早孕22周: weeks of a pregnancy
    if d.text.startswith(("后", "以后", "之后"), end):
        return False
    return _FREQUENCY.match(d.text, end) is None


def _round_half_up(value: float) -> int:
    return int(value + 0.5)
