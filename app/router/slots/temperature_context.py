"""Which body temperature reading is the child's current one (SPEC §4.4 revision 2, §4.7's cues):
the readings come from ``temperatures``; this module leaves out the past, hypothetical and
conditional ones and keeps the highest of the rest.

Decisions where the spec is silent (each has a row in tests/router/test_slots.py or test_slots_parents.py):

* readings under a hypothetical or a past cue of their sentence (§4.7's words and patterns; a past
  cue with 开始 only of its clause) are left out, and the highest current one wins;
* no reading now, whatever its words: the usual temperature, the weather's (室外), a condition
  (只要, 就算), a threshold instruction after it (38.5以上吃, 39度再用), a fever that has been (烧过)
  with no now cue after it (the labelled pool, issue 21);
* a story told in order that goes past the reading's day — the reading dated two days back or
  more (六天前起病…, 上周三开始…) or by a day of the month, and after it a later event still two days
  back or more (…前天开始拉肚子), or a later day and then today (…13日…今天) — leaves the reading in
  the past, unless the fever is said to last or to come back (``_story_moved_on``; the dev split's
  self-reports: 4 rows exact more, none fewer);
* as the dev split, the pool and the imcs messages write them (issue 21, session 4): a reading
  asked about that opens its sentence (37.8算发烧吗; not 宝宝现在38.5，算高烧吗) or under 会…吗, a
  reading that opens a sentence before 的时候 (a condition), 当时 with no now cue before it (the
  past) are no reading now; 这次 ends a past cue's reach, 然后 does not (it goes on with the story
  told before it); a day right after a past cue is that cue's date; a lower bound of the winning
  reading (39度多) is ``approximate`` (LABELS.md).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, Callable

from ..lexicon import Hit, Hits
from ..numerals import parse_number
from ..text import CLAUSE_ENDS, LIST_MARK, SENTENCE_ENDS
from .draft import START, Draft
from .temperatures import READING, rough

# After a reading: a question about what the number means (39度5算高烧吗, 37.8算发烧吗, 38度5算不算发烧): no
# reading of the child now.
_ASKED_AFTER = re.compile(
    f"(?:多|左右|以上)?[ \t,]*(?:算不算|算是|算|属于)[^{CLAUSE_ENDS}]{{0,5}}?(?:吗|么|[?]|呢)"
)
# A reading that opens a sentence then 的时候 is a condition (39度的时候就没精神); inside a story after a
# comma (昨晚发烧，39度的时候抽了一下) it may tell a moment of this illness, and stays.
_WHEN_AFTER = re.compile("(?:多|左右|以上)?(?:的时候|时(?!间))")
# Before a reading in its clause, 会 (not 一会, 不会): what may happen, asked when 吗 follows (幼儿急疹会烧到40度吗).
_MAY_REACH = 9
_QUESTION_LEAD = re.compile("[ \t]*(?:请问|我想问一?下|我问一?下|问一?下|想问一?下|那|那么)?[ \t,]*")
_LEAD_REACH = 8
_ASKS = re.compile(f"[^{CLAUSE_ENDS}]{{0,6}}?(?:吗|么|[?])")
# A fever over for good: readings before it are of a past episode (前天38度，然后再没有发烧; 周日烧到
# 37.9，降下来以后没有再发烧), unless it came back after it (又发烧). Only a lasting absence (没有再,
# 再没, 一直没) counts: a fever gone since this morning (今天一早到现在都没再烧) leaves yesterday's
# reading the one of this episode (the pediatric dev split, measured both ways).
_RESOLVED = re.compile("没有?再(?:发烧|发热|烧)|再没有?(?:发烧|发热|烧)|一直没有?(?:发烧|发热|烧)")
# In a past cue's sentence: the fever it dates is still going (``_onset``).
_LASTING = re.compile(
    "一直(?:维持|在烧|在发烧|发烧|高烧|低烧|未降|没降|不退|没退)|还在烧|还在发烧|还没退|无法退烧|持续(?:发烧|发热|高烧|低烧)|又起|又烧|又发烧|又发热"
)
# A day of the month written in a parent's log (10号, 27日, 7月10日, 5.18出现, 6.12下午): a reading
# dated by one day is of a past day when the text goes on to a day two or more later (the clock rule
# of §4.7: now ends at yesterday; 16日 39度 … 17日上午 keeps it), unless the fever is said to last
# (``_LASTING``); a date also ends a past cue's reach (发热前两天…，7.03晚上发热到39.2度).
_DAYS_PAST = 2
_DAY = re.compile(
    "(?<![0-9.])(?:(?:1[0-2]|0?[1-9])月)?(?P<d>[1-3]?[0-9])[号日]"
    "|(?<![0-9.])(?:1[0-2]|0?[1-9])\\.(?P<d2>[1-3]?[0-9])(?![0-9]|\\.[0-9])(?=[号日早晚上下中凌当今出,]|$)"
)
_DAY_OPENING = re.compile("[0-9](?<![0-9.][0-9])")  # where a ``_DAY`` match can start
# How far back a §4.7 time cue puts its event (``_days_ago``); only these kinds tell when.
_TIMES = frozenset({"past", "now"})
_AGO_WORDS = {"前天": 2, "前两天": 2, "前几天": 3, "前些天": 3, "前些日子": 3, "上周": 7, "上星期": 7, "上个月": 30, "去年": 365, "前年": 730}
_AGO = re.compile("(?P<n>[0-9]{1,2}|[一两三四五六七八九十几半]{1,3})[多半]?(?P<u>天|个?周|个?星期|个多?月|年)[多半]?(?:以前|之前|前)")
_AGO_UNITS = {"天": 1, "周": 7, "星期": 7, "月": 30, "年": 365}
# A fever still there, said after the story's later events (…前天起流鼻涕，今天还有点低烧): the
# reading is of the illness that goes on.
_STILL = re.compile(f"(?:还|仍|仍然|依然|一直|今天|现在|目前)[^{CLAUSE_ENDS}没不无退]{{0,3}}?(?:发烧|发热|低烧|高烧|烧)")
# Today in a story told by days of the month (…13日上午打针…今天出疹…).
_TODAY = re.compile("今天|今早|今晚|今日|至今")
_RETURNED = re.compile("又(?:开始)?(?:发烧|发热|烧|起来|高|升|热)|反复")
# The §4.7 cues that say a reading is not the child's temperature now, and those that end their
# scope (a now cue or a contrast: 上次烧到40度，现在38度 reads 38).
_NOT_NOW = frozenset({"past", "hypothetical"})
# 当时 (§4.7 kind "then") takes the time told before it: after a now cue it is now, else the past.
_TIME_CUES = _NOT_NOW | {"now", "contrast", "then"}
_CLAUSE_MARK = re.compile(f"[{CLAUSE_ENDS}{LIST_MARK}]")
# 发烧的时候 / 那时候 a few characters before the reading: a past or habitual one (…时 of §4.7).
_PAST_WHEN = re.compile("(?<!最高的)(?<!最高)(?<!高的)时候|那时")  # not 最高的时候: the peak of this fever
_WHEN_REACH = 8
# Before a reading in its clause: the child's usual temperature (平时, 一般), not one now.
_USUAL_WORDS = ("平时", "平常", "一般", "通常")
_USUAL = re.compile(f"({'|'.join(_USUAL_WORDS)}|正常(?:是|都是|在))[^{CLAUSE_ENDS}()]*$")
_SENTENCE_END = re.compile(f"[{SENTENCE_ENDS}]")
# In the reading's clause before it (``_not_a_reading_now``): the weather's or a room's temperature
# (屋里温度…40℃), a condition right before it (只要烧到38.5, 就算38度多; not 即使吃了药也还是39度,
# a fact), a fever that has been (烧过, 发过烧); after it, an instruction for a threshold (38.5以上吃,
# 到39度再用药).
_CLAUSE_REACH = 20
_WEATHER_WORDS = ("室温", "气温", "水温", "奶温", "洗澡水", "泡澡水")
_WEATHER = re.compile(f"(?:(?:室外|户外|室内|屋里|屋内|房间|外面|外边|天气)的?温度|{'|'.join(_WEATHER_WORDS)})[^{CLAUSE_ENDS}()]*$")
_CONDITION_WORDS = ("只要", "就算", "即使", "哪怕", "即便")
_CONDITION = re.compile(f"(?:{'|'.join(_CONDITION_WORDS)})(?:体温|温度)?(?:发烧|发热|高烧|烧)?(?:到|是|有|在|了)?[ \\t]*$")
_HAD_FEVER_WORDS = ("烧过", "热过", "发过烧")
_HAD_FEVER = re.compile("|".join(_HAD_FEVER_WORDS))
_THIS_TIME = re.compile("这次|这回|这一次")
# A word every match of the four above holds (温度 of the weather's): a text with none skips them.
_CLUES = re.compile("|".join((*_USUAL_WORDS, "正常", "温度", *_WEATHER_WORDS, *_CONDITION_WORDS, *_HAD_FEVER_WORDS)))
_INSTRUCTION = re.compile(
    "[ \\t]*(?:(?:及|或)?以上(?:的时候|时)?[ \\t]*(?:再|才|就|要|需要)?(?:吃|用|服|喂|打|塞)"
    "|(?:的时候|时)?(?:再|才|就要|就得|就该)(?:吃|用|服|喂|给|打|塞))(?!了)"
)
_INSTRUCTION_WORDS = re.compile("以上|再|才|就要|就得|就该")
# A clock time before 时候 (昨晚11点时候发烧39.2度, 三点的时候) dates a reading, it is not "back then".
_CLOCK = re.compile("(?:点|点半|点钟|分)的?$")  # 九点半的时候
_CLOCK_REACH = 3


def temperature(d: Draft, cues: Callable[[str], Hits], patterns: tuple[tuple[re.Pattern[str], Any, str], ...]) -> float | None:
    """The highest of the child's current readings: one under a hypothetical cue of its sentence
    (要是, 如果) or of its clause (担心), or under a past cue of its sentence (前天发烧，最高40度) — the
    §4.7 cue words — is not a reading now. A past cue with 开始 in its clause reaches that clause
    only: it dates the onset of the illness the parent goes on to tell (前天晚上开始发烧，最高38.8，
    今天还在烧). A now cue ends the scope (前两天流鼻涕，今天发热到39.5度). Measured on the pediatric
    dev split against the clause scope for every cue: 3 rows more without a value filled, 1 exact
    more, 1 exact fewer."""
    if not d.readings:
        return None
    text = d.text
    over = _over(text, min(d.readings))
    found = [h for h in cues(text).group("ctx") if h.payload.direction == "before" and h.payload.kind in _TIME_CUES]
    for pattern, cue, needed in patterns:  # N天前, 两周前: §4.7's cue patterns
        if cue.direction == "before" and cue.kind in _TIME_CUES and needed in text:
            found += [Hit(m.start(), m.end(), m.group(), cue) for m in pattern.finditer(text)]
    found.sort(key=START)
    days = _days(text) if "号" in text or "日" in text or "." in text else []
    best: float | None = None
    clues = _CLUES.search(text) is not None  # one pass each, so that most texts skip the searches per reading
    instructions = _INSTRUCTION_WORDS.search(text) is not None
    times = [cue for cue in found if cue.payload.kind in _TIMES]
    moved_on = _story_moved_on(text, times, days) if times or days else None
    for start, value in d.readings.items():
        if start < over or (days and _earlier_day(text, days, start)):
            continue
        index = bisect_left(found, start, key=START)
        cue = found[index - 1] if index else None
        if days and cue is not None and any(cue.end < at < start for at, _ in days):
            cue = None  # a day named between the cue and the reading dates the reading anew (三天前5号 is the cue's own)
        back = index - 1
        while cue is not None and cue.term == "然后" and back > 0 and d.same_sentence(found[back - 1].end, start):
            back -= 1  # 然后 goes on with the story told before it: its time cue still dates the reading
            cue = found[back]
        kind = cue.payload.kind if cue is not None else ""
        if cue is not None and kind == "then":
            cue = _then(found, back)
            kind = "past"  # 当时 with no now cue before it: the past
        if cue is not None and kind in _NOT_NOW and d.same_sentence(cue.end, start) and (
            kind == "hypothetical" and cue.payload.scope != "clause"
            or kind == "past" and not _lasting(d, cue.end) and not _THIS_TIME.search(text, cue.end, start) and (
                _CLAUSE_MARK.search(text, cue.end, start) is None or not _onset(text, cue.end)
            )
            or kind == "hypothetical" and _CLAUSE_MARK.search(text, cue.end, start) is None
        ):
            continue
        if clues and _not_a_reading_now(text, start, found):
            continue
        if moved_on is not None and moved_on(start):
            continue
        reading = READING.match(text, start)
        end = reading.end() if reading is not None else start
        if instructions and _INSTRUCTION.match(text, end):
            continue  # 38.5以上吃, 到39度再用: a threshold to act on, not a reading
        if (start == 0 or text[start - 1] in SENTENCE_ENDS) and _WHEN_AFTER.match(text, end):
            continue  # 39度的时候就没精神: when a number is reached, not a reading (烧到39度的时候抽了 tells one)
        if _ASKED_AFTER.match(text, end) and _opens_question(text, start) or _may(text, start) and _ASKS.match(text, end):
            continue  # 39度5算高烧吗, 会烧到40度吗: a question about a number (宝宝现在38.5，算高烧吗 asks of a reading)
        if start in d.replied and _past_after(text, start, found):
            continue  # 38.3那是前天: a reply dated after its reading
        when = _PAST_WHEN.search(text, max(0, start - _WHEN_REACH), start)
        if when is not None and not _CLOCK.search(text, max(0, when.start() - _CLOCK_REACH), when.start()) and d.same_sentence(
            max(0, start - _WHEN_REACH), start
        ):
            continue
        if best is None or value > best:  # the highest; a lower bound (39度多), "almost N" or a range's top is ``approximate``
            best, d.temperature_approximate, d.temperature_at = value, text.startswith("多", end) or rough(text, start), start
    return best


def _opens_question(text: str, start: int) -> bool:
    """The reading opens its sentence, after a question's lead words at most (我问下37.8，算发烧吗):
    a number asked about. Said of the child or of now first (宝宝现在38.5，算高烧吗), it is a reading."""
    low = max(0, start - _LEAD_REACH)
    cut = max(text.rfind(mark, low, start) for mark in SENTENCE_ENDS)
    if cut < 0 and low > 0:
        return False
    return _QUESTION_LEAD.fullmatch(text, cut + 1, start) is not None


def _may(text: str, start: int) -> bool:
    """会 (not 一会, 不会) at most ``_MAY_REACH`` characters before ``start``, in its clause."""
    may = text.rfind("会", max(0, start - _MAY_REACH), start)
    return may >= 0 and (may == 0 or text[may - 1] not in "一不") and _CLAUSE_MARK.search(text, may, start) is None


def _then(cues: list[Hit], index: int) -> Hit | None:
    """当时 at ``cues[index]``: the past (itself), unless the time cue before it is a now cue (昨晚抽了，当时39度)."""
    for cue in reversed(cues[:index]):
        if cue.payload.kind in _TIMES:
            return None if cue.payload.kind == "now" else cue
    return cues[index]


def _not_a_reading_now(text: str, start: int, cues: list[Hit]) -> bool:
    """Words of the reading's clause that make it no reading of the child now: the usual
    temperature (平时体温36.5, 平常在37.3左右), the weather's or a room's (屋里温度有38℃), a
    condition (只要烧到38.5, 就算38度多也…), or a fever said to have been (前天烧过，最高38.2) with
    no now cue between."""
    clause = max(0, start - _CLAUSE_REACH)
    if _WEATHER.search(text, clause, start) or _CONDITION.search(text, clause, start):
        return True
    usual = _USUAL.search(text, clause, start)
    if usual is not None and not _now_between(text, usual.end(1), start, cues):
        return True  # not 平时很少生病，这次烧到39度
    had = None
    for had in _HAD_FEVER.finditer(text, clause, start):
        pass
    return had is not None and _SENTENCE_END.search(text, had.end(), start) is None and not _now_between(text, had.end(), start, cues)


def _now_between(text: str, start: int, end: int, cues: list[Hit]) -> bool:
    """A now cue of §4.7 (今天, 现在) or 这次 / 这回 in ``text[start:end]``."""
    index = bisect_left(cues, start, key=START)
    if any(cue.payload.kind == "now" for cue in cues[index : bisect_left(cues, end, key=START)]):
        return True
    return _THIS_TIME.search(text, start, end) is not None


def _days_ago(cue: Hit) -> int | None:
    """How many days back a time cue of §4.7 puts its event: 0 for a now cue, 2 for 前天, 7 for
    上周, N for N天前 (and for 从N天前, since then); None when it does not say (以前, 上次)."""
    term = cue.term[1:] if cue.term.startswith("从") else cue.term
    if cue.payload.kind == "now" and term == cue.term:
        return 0
    if term in _AGO_WORDS:
        return _AGO_WORDS[term]
    m = _AGO.fullmatch(term)
    if m is None:
        return None
    count = 3 if m.group("n") == "几" else parse_number(m.group("n"))
    return None if count is None else int(count * _AGO_UNITS[m.group("u").lstrip("个").rstrip("多")])


def _story_moved_on(text: str, cues: list[Hit], days: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether a story told in order has gone past a reading's day: the reading is dated by a past
    cue two days back or more (六天前起病…，烧到39度) or by a day of the month (12日晚上38.2), and
    after it the text tells a later event still two days back or more (…前天开始拉肚子: the reading
    is older), or a later day of the month and then today (…13日…今天), with nothing after it
    saying the fever lasts or came back. Its reading is of a past day (LABELS.md: current = today,
    these days). Everything the test needs is read once per text (suffix minima and maxima), so
    each reading costs two searches in sorted lists."""
    never = len(text) + 1
    lasting = [m.start() for pattern in (_LASTING, _RETURNED, _STILL) for m in pattern.finditer(text)]
    last_lasting = max(lasting, default=-1)
    backs = [_days_ago(cue) for cue in cues]
    nearest_later = [never] * (len(cues) + 1)  # the fewest days back (≥ 2) of the cues from i on
    for i in range(len(cues) - 1, -1, -1):
        back = backs[i]
        nearest_later[i] = min(nearest_later[i + 1], back if back is not None and back >= _DAYS_PAST else never)
    last_today = max((m.start() for m in _TODAY.finditer(text)), default=-1)
    latest_day = [-1] * (len(days) + 1)  # the latest day of the month named from i on, before a today
    for i in range(len(days) - 1, -1, -1):
        at, day = days[i]
        latest_day[i] = max(latest_day[i + 1], day if at < last_today else -1)

    def moved_on(start: int) -> bool:
        if last_lasting >= start:
            return False
        index = bisect_left(cues, start, key=START)
        day_index = bisect_left(days, (start, 0)) if days else 0
        if day_index > 0 and (index == 0 or days[day_index - 1][0] > cues[index - 1].start):
            day = days[day_index - 1][1]  # dated by a day of the month
            return nearest_later[index] < never or latest_day[day_index] > day
        back = backs[index - 1] if index else None
        return back is not None and back >= _DAYS_PAST and nearest_later[index] < back

    return moved_on


def _over(text: str, first: int) -> int:
    """Where the last statement that the fever is over ends (``_RESOLVED``), when nothing says it
    came back after it; -1 otherwise. One search from the first reading on: the text before it
    cannot end a fever that no reading has shown yet."""
    end = -1
    for m in _RESOLVED.finditer(text, first):
        end = m.end()
    if end != -1 and _RETURNED.search(text, end):
        return -1
    return end


def _days(text: str) -> list[tuple[int, int]]:
    """(where, day of the month) of every day named in the text (``_DAY``), in text order.

    ``_DAY.finditer`` itself, but for where it tries: a day opens with a digit that no digit or
    point comes before, and ``_DAY`` says so with a look-behind first, so sre tried a whole match
    at every character of any text with a decimal reading (94 µs for a 126-character fever story).
    The openings come from a pattern that starts with a class, which sre skips to (23 µs); each
    is tried where finditer would try it, from the end of the day before on."""
    days: list[tuple[int, int]] = []
    end = 0
    for opening in _DAY_OPENING.finditer(text):
        start = opening.start()
        if start < end:
            continue
        m = _DAY.match(text, start)
        if m is not None:
            days.append((start, int(m.group("d") or m.group("d2"))))
            end = m.end()
    return days


def _earlier_day(text: str, days: list[tuple[int, int]], start: int) -> bool:
    """The reading's day (the last one named before it) is followed by a day ``_DAYS_PAST`` or more
    later, and nothing after the reading says the fever lasts: 15号夜里开始发烧，最高到38.6度 …
    12号早上退烧."""
    index = bisect_left(days, (start, 0))
    if index == 0:
        return False
    day = days[index - 1][1]
    if not any(later - day >= _DAYS_PAST for _, later in days[index:]):
        return False
    return _LASTING.search(text, start) is None


def _past_after(text: str, start: int, cues: list[Hit]) -> bool:
    """A past cue after the reading in its sentence (38.3那是前天, 38.5，上周的)."""
    index = bisect_left(cues, start, key=START)
    return any(
        cue.payload.kind == "past" and _SENTENCE_END.search(text, start, cue.start) is None for cue in cues[index:]
    )


def _onset(text: str, end: int) -> bool:
    """开始 in the past cue's clause (前天晚上开始发烧, 两天前开始咳嗽): the current illness began then,
    and the readings after that clause are of it; without it (前天发烧，最高40度) the cue's event is
    over and covers its whole sentence."""
    mark = _CLAUSE_MARK.search(text, end)
    return text.find("开始", end, mark.start() if mark else len(text)) != -1


def _lasting(d: Draft, end: int) -> bool:
    """The past cue's sentence goes on to say the fever lasts (前天夜里烧到38.4左右，吃了药以后一直维持
    在38度以下; 前两天37度5 … 可没多久又起了): every reading of the sentence is of this episode."""
    lasting = _LASTING.search(d.text, end)
    return lasting is not None and d.same_sentence(end, lasting.start())
