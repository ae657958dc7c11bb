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
from functools import lru_cache

from ..numerals import CHARS
from ..policy.slot_types import either
from ..policy.slots import SlotWords
from ..text import CLAUSE_ENDS, COMMA, LIST_MARK, PERIOD, SENTENCE_ENDS
from .bounds import almost_days
from .milestones import DAYS_PER_MONTH as _DAYS_PER_MONTH, on_age_to_go, on_full_month, set_days as _set_days
from .draft import NUM, Draft, Handler, led, number

# The words are the policy's ``[slots.ages]`` (each key's comment there says what it decides, with an
# example); "almost" is ``[slots.bounds]``, 满月 and the days to go ``[slots.milestones]``.
#
# Parents count years in 周 for young children only: 36周5 is a pregnancy's weeks and days.
_WEEK_YEARS = 9
# Days from a week up, to a year (7 to 99): after 一周零 they are days past a first birthday.
_WEEK_OF_DAYS = "[1-9][0-9](?![0-9.])|[7-9](?![0-9.])|[二三四五六七八九]?十[一二三四五六七八九]?|[七八九]"
# Where a bare N个月 / N天 with a weight or a height right after it is an age: the text's start or a clause's.
_CLAUSE_OPENERS = CLAUSE_ENDS + LIST_MARK + " \t("
_CLAUSE_CLOSERS = CLAUSE_ENDS + LIST_MARK + ")"
# A child's N天 before an event is an age when it is a month or more (宝宝40天了白天都正常, 宝宝70天大便
# 不正常: a parent says a duration that long in months) or said with ``ages.only`` (我孩子才14天怎么爱翻白眼).
_DAYS_OF_AGE = 28
# How far back the lead words of a bare N个月 (``ages.months_lead_inside``) may reach in its clause.
_LEAD_REACH = 6
# How far back before an age a dose's word (``ages.dosage``) is looked for.
_DOSAGE_REACH = 12
# How far back before an age ``ages.past_moment`` and ``ages.now_before`` (8), ``ages.past_before`` (3) look.
_MOMENT_REACH, _PAST_REACH = 8, 3


def _chars(chars: tuple[str, ...]) -> str:
    return "".join(map(re.escape, chars))


# Patterns whose shape the policy's checked patterns cannot take (a repeat of a group, an unbounded
# run of clause marks), built of its words once per word list.
@lru_cache(maxsize=8)
def _whole_end(particles: tuple[str, ...]) -> re.Pattern[str]:
    """A bare span as the whole message: particles and sentence ends at most after it (6个月了)."""
    return re.compile(f"[{_chars(particles)}]*[ \t]*[{SENTENCE_ENDS}~{re.escape(PERIOD)}…]*[ \t]*$")


@lru_cache(maxsize=8)
def _sex_lead(sex: tuple[str, ...], nouns: tuple[str, ...]) -> re.Pattern[str]:
    """A sex (and a child noun) before a bare N月 opening the message: 女 20月，, 男宝：20月."""
    return re.compile(f"[{_chars(sex)}](?:{either(nouns)})?[ \t,:]*")


@lru_cache(maxsize=8)
def _months_lead(reply: tuple[str, ...], demonstratives: tuple[str, ...], lead: tuple[str, ...]) -> re.Pattern[str]:
    """The lead words of a bare N个月 that is the message's first clause: 这都六个半月了, 是的四个多月."""
    return re.compile(f"(?:{either(reply)})?(?:{either(demonstratives)})?(?:{either(lead)})*")


def _years(words: SlotWords, span: str) -> float:
    """The years one ``span`` of an age counts: a month 1/12, a day 1/365, a week 7/365."""
    a = words.ages
    return 1 / 12 if span in a.month_spans else a.day_spans[span] / 365


def _not_now(d: Draft, start: int, number_start: int, end: int, led: bool = False) -> bool:
    """An age at a past moment (``ages.at_a_moment``), in a dose (``ages.dosage``), or a bound written
    一下 for 以下 (3岁一下): no age of the child now. A child word before the age (``led``) or a
    clause that it does not open keeps it with ``ages.began`` (开始 / 起): 宝宝6个月开始加米粉 is as
    often said of a child who is six months now."""
    text, a = d.text, d.words.ages
    if d.dosage is None:  # one pass per text, on first need, so that most texts skip the search per age
        d.dosage = any(word in text for word in a.dosage_hints)
    dosage = d.dosage
    if text.startswith(a.at_a_moment, end) and not text.startswith(a.not_a_moment, end):
        opens = start == 0 or text[start - 1] in _CLAUSE_OPENERS
        began = text.startswith(a.began, end)
        if not text.endswith(a.as_now, 0, number_start) and not (began and (led or not opens)):
            return True
    if text.startswith(a.below_typo, end) and not text.startswith(a.not_below_typo, end):
        return True
    return dosage and a.dosage.search(text, max(0, start - _DOSAGE_REACH), start) is not None


def kid_words(patient_words: tuple[str, ...], age_words: tuple[str, ...], words: SlotWords) -> tuple[str, ...]:
    """The child words among the patient words: 我儿子 is read through 儿子, and 患者 / 病人 are
    adults as often (``ages.not_kid_openers``); a common first character (我) would send the scan to
    a branch at nearly every sentence. ``age_words`` (policy ``[slots]``) name a child only next to
    an age (9个月幼儿)."""
    return tuple(dict.fromkeys(w for w in patient_words + age_words if not w.startswith(words.ages.not_kid_openers)))


def _not_window(words: SlotWords) -> str:
    """After a span: a window or a date (3天以内, 3个月前), no age."""
    return f"(?!{either(words.ages.not_window_after)})"


def _plus_days(words: SlotWords, kind: str) -> str:
    """Days said after the months of a child's age: 宝宝三个月零八天, 出生一个月加十天. Atomic: days
    followed by 前 end the match there (宝宝3个月零8天前 is a date, not 3 months)."""
    a = words.ages
    return (f"(?>(?:[ \\t]*[{_chars(a.joins)}]?[ \\t]*(?P<{kind}_pn>" + NUM + f")(?P<{kind}_pd>{re.escape(a.day)}))?)")


def tails(units: str, kids: str, words: SlotWords) -> dict[str, str]:
    """Unit tails (after a number at the match start), given the unit pattern and the child words
    as one alternation."""
    a, ms = words.ages, words.milestones
    joins, day, more = _chars(a.joins), re.escape(a.day), re.escape(words.numbers.more)
    perfective, of = re.escape(a.perfective), re.escape(words.numbers.possessive)
    not_window = _not_window(words)
    body_units = either(words.body.weight_units + words.body.height_units)
    return {
        # 三个月零八天, 5月零15天, 一个月加十天: months and days of an age (a bare 月 only with a join).
        "msum": (
            # 九个月多五天, 3个多零20天 (月 left out before 零): months that are a lower bound, then days.
            f"(?P<msum_u>{a.sum_months})(?P<msum_m>{more}{{1,2}})?"
            f"[ \\t]*(?P<msum_j>[{joins}])?[ \\t]*(?P<msum_n>{NUM})(?P<msum_d>{day})"
            + not_window
        ),
        # 还有十天三个月了, 差5天满13个月: the age reached in a few days (checked in ``on_age_to_go``).
        "msub": (
            f"(?P<msub_d>{ms.to_go_spans})[ \\t]*(?P<msub_j>{ms.to_go_joins})?[ \\t]*"
            f"(?P<msub_n>{NUM})(?P<msub_u>{ms.to_go_ages})(?(msub_j)|(?={perfective})){not_window}"
        ),
        # 3个月大, 十七个月男宝, 47天的宝宝, 2月半男宝: an age in months, days or weeks, said of a child.
        "kage": f"(?P<kage_u>{a.spans}|{re.escape(a.bare_half_month)})(?={perfective}?(?:{a.old}|{of}?(?:{kids})))",
        # 一周两个月, 2周10个月, 一周二: parents count years in 周 (周岁) before the months; a bare
        # 周 or 周半 stays weeks (两周, 五周半), and 一周三次 a frequency.
        "yweek": (
            f"{re.escape(a.year_week)}[ \\t]*(?:[{_chars(a.year_week_joins)}][ \\t]*(?P<yweek_dn>{_WEEK_OF_DAYS})(?P<yweek_d>{day}){not_window}"
            f"|[{_chars(a.year_week_joins)}]?(?P<yweek_n>{a.year_week_months})"
            f"(?P<yweek_u>{a.month_units})?(?![0-9.{CHARS}{_chars(a.year_week_not_before)}]))"
        ),
        "amon": f"(?P<amon_u>{a.age_months})",
        # 20个月22斤: a bare N个月 / N天 with a weight or a height right after it; 六个月了 as a
        # whole clause (a parent's answer).
        "lage": (
            f"(?P<lage_u>{a.lead_spans})(?=[ \\t,]*(?:{NUM})[ \\t]*(?:{body_units})"
            f"|(?P<lage_end>{perfective}?[ \\t]*(?:[{_CLAUSE_CLOSERS}]|$)))"
        ),
        "age": (
            f"(?P<age_u>{a.years})(?P<age_h>半(?!{units}))?"
            f"(?:[ \\t]*(?:[{joins}]|(?P<agem_almost>{either(a.almost_inside)}))?(?P<agem_n>{NUM}|半)"
            f"(?P<agem_u>{a.year_months}|{re.escape(a.bare_month)}(?![ \\t]*[0-9{CHARS}]+[{_chars(words.dates.day)}])|{day})"
            # 一岁两个月零五天: days after the months add up too (months of 30.4 days)
            f"(?:(?<={re.escape(a.bare_month)})[ \\t]*[{joins}]?[ \\t]*(?P<aged_n>{NUM})(?P<aged_d>{day}){not_window})?)?"
        ),
    }


def _led_word(word: str) -> str:
    """A word whose first character the leading class has consumed: 月龄 → (?<=月)龄."""
    return f"(?<={re.escape(word[0])}){re.escape(word[1:])}"


def led_branches(kid_words: tuple[str, ...], words: SlotWords) -> dict[str, tuple[str, str]]:
    """Context-led branches (first characters, body): 月龄18个月, 年龄：13, 宝宝17个月, 男宝，28个月 (or 、),
    出生10天, 满月."""
    a, ms = words.ages, words.milestones
    form_fill, perfective = _chars(a.form_fill), re.escape(a.perfective)
    not_now_after = a.not_now_after
    return {
        "mage": (a.month_age[0], f"{_led_word(a.month_age)}[ \\t]*[{form_fill}]?[ \\t]*(?P<mage_n>{NUM})[ \\t]*(?P<mage_u>{a.month_units})?"),
        # 年龄：13 — with 岁 after it (年龄：一岁半, 年龄:2岁3个月) the N岁 branch reads the whole age.
        "yage": (
            a.year_age[0],
            f"{_led_word(a.year_age)}[ \\t]*[{form_fill}]?[ \\t]*(?P<yage_n>{NUM})"
            f"(?![ \\t]*(?:{a.years}|半|[0-9.{_chars(a.year_age_not_before)}{CHARS}]))",
        ),
        # 宝宝17个月, 女宝宝九个半月, 宝宝47天: days and weeks at a clause end (宝宝3天没大便 is no
        # age); days before an event only from a month up or after 才 (``on_age_span``).
        "kid": (
            "".join(dict.fromkeys(w[0] for w in kid_words)),
            led(*kid_words)
            + f"[{_chars(a.sex)}]?(?:[{COMMA}{LIST_MARK}][ \\t]*)?(?:{either(a.kid_fill)})*[ \\t]*"
            + _almost(words, "kid") + number("kid")
            + f"[ \\t]*(?:(?P<kid_u>{a.kid_months})(?P<kid_more>{a.kid_more})?" + _plus_days(words, "kid")
            # 女孩2周半: after a child word, N周半 is years in 周 (周岁) and a half (a bare 两周半 stays weeks)
            + f"|(?P<kid_yh>{re.escape(a.years_and_half)})"
            + f"|(?P<kid_d>{a.kid_days})(?:(?={perfective}?(?:{a.old}|{re.escape(words.numbers.possessive)}"
            + f"|[{CLAUSE_ENDS}{LIST_MARK} ]|$))|(?P<kid_free>(?<={re.escape(a.day)}))))"
            + not_now_after,
        ),
        "born": (
            _chars(a.born_first),
            f"(?<=[{_chars(a.born_first)}]){re.escape(a.born)}(?:{either(a.born_after)})?{_almost(words, 'born')}"
            f"(?P<born_th>{re.escape(a.ordinal)})?[ \\t]*{number('born')}[ \\t]*(?P<born_u>{a.spans})"
            + _plus_days(words, "born") + not_now_after,
        ),
        # 满月, and 满周岁 / 刚周岁 (one year; 一周岁 is read as N岁).
        "full": (_chars(ms.full_first), f"(?:{ms.full_month}|{ms.full_year}(?![半0-9{CHARS}]))"),
        # 他才九个月, 她现在才两个多月: a pronoun's months said as "only" are a child's age (他 / 她
        # keep the subject, SPEC §4.7); without 才 / 刚 (他两个月没来) they are how long.
        "pro": (
            _chars(a.pronouns),
            f"(?<=[{_chars(a.pronouns)}])(?:{either(a.pronoun_now)})?(?:{either(a.pronoun_only)})[ \\t]*"
            f"{number('pro')}[ \\t]*(?P<pro_u>{a.kid_months})"
            + _plus_days(words, "pro")
            + not_now_after,
        ),
        # 现在5个月, 现在才3个月零一点, 现在四个多月了: the child's age said as now.
        "now": (
            a.now_word[0],
            f"{_led_word(a.now_word)}[ \\t]*(?:{either(a.now_fill)})*[ \\t]*{_almost(words, 'now')}{number('now')}"
            f"[ \\t]*(?P<now_u>{a.kid_months})"
            + _plus_days(words, "now") + a.now_not_after,
        ),
    }


def _almost(words: SlotWords, kind: str) -> str:
    """The optional "almost" of a context-led age (宝宝快三个月, 出生快40天), in the group ``<kind>_almost``."""
    return f"(?P<{kind}_almost>{'|'.join(words.bounds.almost)})?[ \\t]*"


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
    start, a = m.start(), d.words.ages
    if kind == "kage" and start and d.text[start - 1] in a.not_span_before:
        return  # 吃了两天小儿氨酚…, 这两天孩子…: how long or when, not how old
    if a.past_moment.search(d.text, max(0, start - _MOMENT_REACH), start):
        return  # 那时候她才出生9天: the age back then
    if _not_now(d, start, start if kind == "kage" else m.start(kind + "_n"), m.end(), led=kind != "kage"):
        return
    if kind == "kid" and m.start("kid_free") >= 0 and not (
        quantity["value"] >= _DAYS_OF_AGE or d.text.endswith(a.only, 0, m.start("kid_n"))
        or _newborn_days(d, start, m.end(), quantity["value"])
    ):
        return  # 宝宝3天没大便: a few days before an event are how long it lasted
    if kind == "born" and m.group("born_th") and not (d.text.endswith(a.today, 0, m.start()) or a.clause_end.match(d.text, m.end())):
        return  # 出生第3天就黄了 is an event's day; 今天出生第六天 is the age
    current = kind == "now" or (kind == "kid" and any(word in m.group() for word in a.now_words))
    if unit == "kid_yh":
        if quantity["value"] <= _WEEK_YEARS:
            d.set_age(m.start(), m.end(), quantity["value"] + 0.5, current=current)
        return
    span = m.group(unit)
    if kind == "kid" and m.group("kid_more"):  # 11个月多 is 11个多月, a lower bound
        span = a.months_more
    if span in a.half_spans:  # 九个半月 = 9.5 个月, as 一个半月 is 1.5
        quantity["value"], quantity["unit"], span = quantity["value"] + 0.5, a.month, a.month
    plus = kind + "_pn"
    if kind != "kage" and m.start(plus) >= 0:
        days = d.quantity(m, *m.span(plus), kind + "_pd")
        if days is None or span not in a.plus_day_spans:
            return  # 出生10天3天 adds nothing up
        _set_days(m, d, quantity["value"] * _DAYS_PER_MONTH + days["value"], approximate=span in a.approximate_spans,
                  current=current)
        return
    almost = d.text.endswith(d.words.bounds.almost, 0, start) if kind == "kage" else kind != "pro" and m.group(kind + "_almost") is not None
    d.set_age(m.start(), m.end(), quantity["value"] * _years(d.words, span), approximate=span in a.approximate_spans or almost,
              current=current, below=almost_days(d.words, quantity["value"], span) if almost else None)


def _newborn_days(d: Draft, start: int, end: int, days: float) -> bool:
    """新生儿N天 before an event (``ages.newborn``); 新生儿一天大便几次 is a rate, 新生儿两天没大便 how long."""
    a = d.words.ages
    return d.text.startswith(a.newborn, start) and days >= 2 and not d.text.startswith(a.newborn_not_after, end)


def on_month_sum(m: re.Match[str], d: Draft) -> None:
    """三个月零八天, 5月零15天, 一个月加十天 → days / 365 with months as 30.4 days; 九个月多五天 the
    same, a lower bound (``approximate``). A bare 月 with no join (5月15天) stays two numbers."""
    months = d.quantity(m, m.start(), m.start("e"), "msum_u")
    days = d.quantity(m, *m.span("msum_n"), "msum_d")
    if months is None or days is None or (m.group("msum_u") == d.words.ages.bare_month and not m.group("msum_j")):
        return
    if _not_now(d, m.start(), m.start(), m.end()):
        return
    approximate = m.group("msum_m") is not None or d.words.numbers.more in m.group("msum_u")
    _set_days(m, d, months["value"] * _DAYS_PER_MONTH + days["value"], approximate=approximate)


def on_leading_age(m: re.Match[str], d: Draft) -> None:
    """20个月22斤, 五个月，16斤: a bare N个月 / N天 opening the text or a clause, a weight or a
    height right after it; or a bare N个月 that is its whole clause (没有发烧，6个月). Elsewhere it
    is a number like any other."""
    start = m.start()
    quantity = d.quantity(m, start, m.start("e"), "lage_u")
    if quantity is None:
        return
    span, a = m.group("lage_u"), d.words.ages
    text, whole = d.text, m.group("lage_end") is not None
    if text.startswith("半", start):
        return  # 咳嗽半个多月: how long; half a month is no age a parent gives
    if span == a.bare_month:  # 女 20月，: a bare 月 is an age only after a sex that opens the message
        if start and _sex_lead(a.sex, a.sex_nouns).fullmatch(text, 0, start):
            d.set_age(start, m.end(), quantity["value"] / 12)
        return
    if span in a.half_spans:
        quantity["value"], quantity["unit"], span = quantity["value"] + 0.5, a.month, a.month
    reached = _reached(a.reached, text, start)
    if reached is not None:
        # 刚满三个月, 今天刚满20天: a reached age; 刚好 / 正好 alone also say "exactly" of a duration
        # (刚好三个月), so they need a weight after them (今天刚好三个月13斤) or a month of days.
        if a.full in reached or not whole or (span == a.day and quantity["value"] >= _DAYS_OF_AGE):
            d.set_age(start, m.end(), quantity["value"] * _years(d.words, span), approximate=span == a.months_more)
        return
    if span == a.day and whole:
        return  # a bare N天 clause is how long as often (3天，): a parent says an age in days with a child word
    if whole and _months_lead(a.reply, a.demonstratives, a.months_lead).fullmatch(text, 0, start) and _whole_end(a.whole_end).match(text, m.end()):
        return  # 6个月了 as the whole message: how long as often as how old (SPEC §4.4 revision 3)
    if (
        start == 0
        or text[start - 1] in _CLAUSE_OPENERS
        or (span != a.day and whole and _led_clause(d, start))
    ):
        d.set_age(start, m.end(), quantity["value"] * _years(d.words, span), approximate=span == a.months_more)


def _led_clause(d: Draft, start: int) -> bool:
    """Only lead words (``ages.months_lead``, ``ages.months_lead_inside``) between the clause's start and ``start``."""
    text, a = d.text, d.words.ages
    opening = start
    while opening > 0 and start - opening < _LEAD_REACH and text[opening - 1] not in _CLAUSE_OPENERS:
        opening -= 1
    if opening == 0:
        return _months_lead(a.reply, a.demonstratives, a.months_lead).fullmatch(text, 0, start) is not None
    return text[opening - 1] in _CLAUSE_OPENERS and text[opening:start] in a.months_lead_inside


def _reached(words: tuple[str, ...], text: str, start: int) -> str | None:
    """The word of a reached age (``ages.reached``: 刚满, 今天刚好) right before ``start`` and opening a clause, if any."""
    for word in words:
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
    end, start, a, bounds = m.end(), m.start(), d.words.ages, d.words.bounds
    almost = d.text.endswith(bounds.almost, 0, start) or d.text.startswith(bounds.almost_after, end) or m.group("agem_almost") is not None
    if (
        (d.text.startswith(a.not_age_after, end) and not d.text.startswith(a.past_day, end))
        or (start and d.text[start - 1] in a.range_marks)
        or d.text.endswith(a.until, 0, start)
        or a.past_before.search(d.text, max(0, start - _PAST_REACH), start)
        or a.event_after.match(d.text, end)
        or _not_now(d, start, start, end)
    ):
        return  # 12岁前 a past age, 12岁到20岁 a range, 直到20岁 a past span, 去年一岁 the age back then
    month_unit = m.group("agem_u")
    if month_unit == a.day and months is not None:  # 1岁零2天: days after the years
        d.set_age(start, end, float(years["value"] + months["value"] / 365))
        return
    approximate = month_unit == a.months_more
    if months is None and d.text.startswith(d.words.numbers.more, end):
        if d.text.startswith(a.not_age_after, end + 1):
            return  # 一岁多时: a past age
        approximate = True
    month_count = 0.0
    if months is not None:
        month_count = months["value"] + (0.5 if month_unit == a.half_month else 0)
        if m.group("aged_n"):
            days = d.quantity(m, *m.span("aged_n"), "aged_d")
            if days is None:
                return
            month_count += days["value"] / _DAYS_PER_MONTH
    current = a.now_before.search(d.text, max(0, start - _MOMENT_REACH), start) is not None
    below = years["value"] * 365 + month_count * 30 if almost else None  # 快两岁: under two years (SPEC §4.7 revision 3)
    d.set_age(start, end, float(years["value"] + month_count / 12), approximate=approximate or almost, current=current, below=below)


# A writer this old is a parent; a younger one writes of their own body (我才15岁…女孩…: the patient).
_ADULT = 18
# How far back before a child word ``ages.planned`` is looked for (准备要个孩子).
_PLANNED_REACH = 3


def settle_writer(d: Draft) -> None:
    """An adult writer's own age (我今年32岁) that a child word follows and no age of the child
    replaced: the message is about the child, and the writer's age fills nothing (SPEC §4.4
    revision 3) — unless the writer is the patient: a message about their own pregnancy
    (``ages.pregnancy``), or before a child word one planned or not had yet (``ages.planned``:
    我今年29岁，准备要个孩子); 病人 / 患者 name no child (``ages.not_a_child``)."""
    a = d.words.ages
    if d.age is None or d.age < _ADULT or a.pregnancy.search(d.text):
        return
    after = [at for at in d.children if at >= d.age_end and not d.text.startswith(a.not_a_child, at)]
    if any(a.planned.search(d.text, max(0, at - _PLANNED_REACH), at) is None for at in after):
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
