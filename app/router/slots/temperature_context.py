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
from ..policy.slot_temps import TemperatureContext
from ..policy.slots import SlotWords
from ..text import CLAUSE_ENDS, LIST_MARK, SENTENCE_ENDS
from .draft import START, Draft
from .temperatures import rough

# The words and patterns of which reading is current are the policy's ``[slots.temperature_context]``
# (``d.words.temperature_context``); the reaches below are how far the readers look for them.
# Before a reading in its clause, the word of what may happen (会烧到40度吗, ``_may``).
_MAY_REACH = 9
# Before a reading asked about: how far its sentence's lead may reach (``_opens_question``).
_LEAD_REACH = 8
# A reading dated by one day is of a past day when the text goes on to a day two or more later
# (the clock rule of §4.7: now ends at yesterday; 16日 39度 … 17日上午 keeps it).
_DAYS_PAST = 2
_DAY_OPENING = re.compile("[0-9](?<![0-9.][0-9])")  # where a day of the month can start
# How far back a §4.7 time cue puts its event (``_days_ago``); only these kinds tell when.
_TIMES = frozenset({"past", "now"})
# The §4.7 cues that say a reading is not the child's temperature now, and those that end their
# scope (a now cue or a contrast: 上次烧到40度，现在38度 reads 38).
_NOT_NOW = frozenset({"past", "hypothetical"})
# 当时 (§4.7 kind "then") takes the time told before it: after a now cue it is now, else the past.
_TIME_CUES = _NOT_NOW | {"now", "contrast", "then"}
_CLAUSE_MARK = re.compile(f"[{CLAUSE_ENDS}{LIST_MARK}]")
_WHEN_REACH = 8  # 发烧的时候 a few characters before the reading (``past_when``)
_SENTENCE_END = re.compile(f"[{SENTENCE_ENDS}]")
# The reading's clause before it, as far as ``_not_a_reading_now`` looks (usual, weather, condition,
# had_fever of the policy).
_CLAUSE_REACH = 20
_CLOCK_REACH = 3  # a clock time right before 时候 (九点半的时候)


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
    text, c, t = d.text, d.words.temperature_context, d.words.temperatures
    over = _over(c, text, min(d.readings))
    found = [h for h in cues(text).group("ctx") if h.payload.direction == "before" and h.payload.kind in _TIME_CUES]
    for pattern, cue, needed in patterns:  # N天前, 两周前: §4.7's cue patterns
        if cue.direction == "before" and cue.kind in _TIME_CUES and needed in text:
            found += [Hit(m.start(), m.end(), m.group(), cue) for m in pattern.finditer(text)]
    found.sort(key=START)
    days = _days(c, text) if c.dated.search(text) else []
    best: float | None = None
    clues = c.clue.search(text) is not None  # one pass each, so that most texts skip the searches per reading
    instructions = c.instruction_words.search(text) is not None
    times = [cue for cue in found if cue.payload.kind in _TIMES]
    moved_on = _story_moved_on(d.words, text, times, days) if times or days else None
    for start, value in d.readings.items():
        if start < over or (days and _earlier_day(c, text, days, start)):
            continue
        index = bisect_left(found, start, key=START)
        cue = found[index - 1] if index else None
        if days and cue is not None and any(cue.end < at < start for at, _ in days):
            cue = None  # a day named between the cue and the reading dates the reading anew (三天前5号 is the cue's own)
        back = index - 1
        while cue is not None and cue.term == c.goes_on and back > 0 and d.same_sentence(found[back - 1].end, start):
            back -= 1  # 然后 goes on with the story told before it: its time cue still dates the reading
            cue = found[back]
        kind = cue.payload.kind if cue is not None else ""
        if cue is not None and kind == "then":
            cue = _then(found, back)
            kind = "past"  # 当时 with no now cue before it: the past
        if cue is not None and kind in _NOT_NOW and d.same_sentence(cue.end, start) and (
            kind == "hypothetical" and cue.payload.scope != "clause"
            or kind == "past" and not _lasting(d, cue.end) and not c.this_time.search(text, cue.end, start) and (
                _CLAUSE_MARK.search(text, cue.end, start) is None or not _onset(c, text, cue.end)
            )
            or kind == "hypothetical" and _CLAUSE_MARK.search(text, cue.end, start) is None
        ):
            continue
        if clues and _not_a_reading_now(c, text, start, found):
            continue
        if moved_on is not None and moved_on(start):
            continue
        reading = t.reading.match(text, start)
        end = reading.end() if reading is not None else start
        if instructions and c.instruction.match(text, end):
            continue  # 38.5以上吃, 到39度再用: a threshold to act on, not a reading
        if (start == 0 or text[start - 1] in SENTENCE_ENDS) and c.when_after.match(text, end):
            continue  # 39度的时候就没精神: when a number is reached, not a reading (烧到39度的时候抽了 tells one)
        if c.asked_after.match(text, end) and _opens_question(c, text, start) or _may(c, text, start) and c.asks.match(text, end):
            continue  # 39度5算高烧吗, 会烧到40度吗: a question about a number (宝宝现在38.5，算高烧吗 asks of a reading)
        if start in d.replied and _past_after(text, start, found):
            continue  # 38.3那是前天: a reply dated after its reading
        when = c.past_when.search(text, max(0, start - _WHEN_REACH), start)
        if when is not None and not c.clock.search(text, max(0, when.start() - _CLOCK_REACH), when.start()) and d.same_sentence(
            max(0, start - _WHEN_REACH), start
        ):
            continue
        if best is None or value > best:  # the highest; a lower bound (39度多), "almost N" or a range's top is ``approximate``
            best, d.temperature_approximate, d.temperature_at = value, text.startswith(d.words.numbers.more, end) or rough(t, text, start), start
    return best


def _opens_question(c: TemperatureContext, text: str, start: int) -> bool:
    """The reading opens its sentence, after a question's lead words at most (我问下37.8，算发烧吗):
    a number asked about. Said of the child or of now first (宝宝现在38.5，算高烧吗), it is a reading."""
    low = max(0, start - _LEAD_REACH)
    cut = max(text.rfind(mark, low, start) for mark in SENTENCE_ENDS)
    if cut < 0 and low > 0:
        return False
    return c.question_lead_pattern.fullmatch(text, cut + 1, start) is not None


def _may(c: TemperatureContext, text: str, start: int) -> bool:
    """会 (not 一会, 不会) at most ``_MAY_REACH`` characters before ``start``, in its clause."""
    may = text.rfind(c.may, max(0, start - _MAY_REACH), start)
    return may >= 0 and (may == 0 or text[may - 1] not in c.may_not_after) and _CLAUSE_MARK.search(text, may, start) is None


def _then(cues: list[Hit], index: int) -> Hit | None:
    """当时 at ``cues[index]``: the past (itself), unless the time cue before it is a now cue (昨晚抽了，当时39度)."""
    for cue in reversed(cues[:index]):
        if cue.payload.kind in _TIMES:
            return None if cue.payload.kind == "now" else cue
    return cues[index]


def _not_a_reading_now(c: TemperatureContext, text: str, start: int, cues: list[Hit]) -> bool:
    """Words of the reading's clause that make it no reading of the child now: the usual
    temperature (平时体温36.5, 平常在37.3左右), the weather's or a room's (屋里温度有38℃), a
    condition (只要烧到38.5, 就算38度多也…), or a fever said to have been (前天烧过，最高38.2) with
    no now cue between."""
    clause = max(0, start - _CLAUSE_REACH)
    if c.weather_pattern.search(text, clause, start) or c.condition.search(text, clause, start):
        return True
    usual = c.usual_pattern.search(text, clause, start)
    if usual is not None and not _now_between(c, text, usual.end(1), start, cues):
        return True  # not 平时很少生病，这次烧到39度
    had = None
    for had in c.had_fever.finditer(text, clause, start):
        pass
    return had is not None and _SENTENCE_END.search(text, had.end(), start) is None and not _now_between(c, text, had.end(), start, cues)


def _now_between(c: TemperatureContext, text: str, start: int, end: int, cues: list[Hit]) -> bool:
    """A now cue of §4.7 (今天, 现在) or 这次 / 这回 in ``text[start:end]``."""
    index = bisect_left(cues, start, key=START)
    if any(cue.payload.kind == "now" for cue in cues[index : bisect_left(cues, end, key=START)]):
        return True
    return c.this_time.search(text, start, end) is not None


def _days_ago(c: TemperatureContext, cue: Hit) -> int | None:
    """How many days back a time cue of §4.7 puts its event: 0 for a now cue, 2 for 前天, 7 for
    上周, N for N天前 (and for 从N天前, since then); None when it does not say (以前, 上次)."""
    term = cue.term[len(c.since) :] if cue.term.startswith(c.since) else cue.term
    if cue.payload.kind == "now" and term == cue.term:
        return 0
    if term in c.ago_days:
        return c.ago_days[term]
    m = c.ago.fullmatch(term)
    if m is None:
        return None
    n = m.group("n")
    count = c.ago_counts[n] if n in c.ago_counts else parse_number(n)
    return None if count is None else int(count * c.ago_units[m.group("u")])


def _story_moved_on(words: SlotWords, text: str, cues: list[Hit], days: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether a story told in order has gone past a reading's day: the reading is dated by a past
    cue two days back or more (六天前起病…，烧到39度) or by a day of the month (12日晚上38.2), and
    after it the text tells a later event still two days back or more (…前天开始拉肚子: the reading
    is older), or a later day of the month and then today (…13日…今天), with nothing after it
    saying the fever lasts or came back. Its reading is of a past day (LABELS.md: current = today,
    these days). Everything the test needs is read once per text (suffix minima and maxima), so
    each reading costs two searches in sorted lists."""
    never, c = len(text) + 1, words.temperature_context
    lasting = [m.start() for pattern in (c.lasting, c.returned, c.still) for m in pattern.finditer(text)]
    last_lasting = max(lasting, default=-1)
    backs = [_days_ago(c, cue) for cue in cues]
    nearest_later = [never] * (len(cues) + 1)  # the fewest days back (≥ 2) of the cues from i on
    for i in range(len(cues) - 1, -1, -1):
        back = backs[i]
        nearest_later[i] = min(nearest_later[i + 1], back if back is not None and back >= _DAYS_PAST else never)
    last_today = max((m.start() for m in c.today.finditer(text)), default=-1)
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


def _over(c: TemperatureContext, text: str, first: int) -> int:
    """Where the last statement that the fever is over ends (the policy's ``resolved``), when nothing says it
    came back after it; -1 otherwise. One search from the first reading on: the text before it
    cannot end a fever that no reading has shown yet."""
    end = -1
    for m in c.resolved.finditer(text, first):
        end = m.end()
    if end != -1 and c.returned.search(text, end):
        return -1
    return end


def _days(c: TemperatureContext, text: str) -> list[tuple[int, int]]:
    """(where, day of the month) of every day named in the text (the policy's ``day``), in text order.

    ``day.finditer`` itself, but for where it tries: a day opens with a digit that no digit or
    point comes before, and ``day`` says so with a look-behind first, so sre tried a whole match
    at every character of any text with a decimal reading (94 µs for a 126-character fever story).
    The openings come from a pattern that starts with a class, which sre skips to (23 µs); each
    is tried where finditer would try it, from the end of the day before on."""
    days: list[tuple[int, int]] = []
    end = 0
    for opening in _DAY_OPENING.finditer(text):
        start = opening.start()
        if start < end:
            continue
        m = c.day.match(text, start)
        if m is not None:
            days.append((start, int(m.group("d") or m.group("d2"))))
            end = m.end()
    return days


def _earlier_day(c: TemperatureContext, text: str, days: list[tuple[int, int]], start: int) -> bool:
    """The reading's day (the last one named before it) is followed by a day ``_DAYS_PAST`` or more
    later, and nothing after the reading says the fever lasts: 15号夜里开始发烧，最高到38.6度 …
    12号早上退烧."""
    index = bisect_left(days, (start, 0))
    if index == 0:
        return False
    day = days[index - 1][1]
    if not any(later - day >= _DAYS_PAST for _, later in days[index:]):
        return False
    return c.lasting.search(text, start) is None


def _past_after(text: str, start: int, cues: list[Hit]) -> bool:
    """A past cue after the reading in its sentence (38.3那是前天, 38.5，上周的)."""
    index = bisect_left(cues, start, key=START)
    return any(
        cue.payload.kind == "past" and _SENTENCE_END.search(text, start, cue.start) is None for cue in cues[index:]
    )


def _onset(c: TemperatureContext, text: str, end: int) -> bool:
    """开始 in the past cue's clause (前天晚上开始发烧, 两天前开始咳嗽): the current illness began then,
    and the readings after that clause are of it; without it (前天发烧，最高40度) the cue's event is
    over and covers its whole sentence."""
    mark = _CLAUSE_MARK.search(text, end)
    return text.find(c.onset, end, mark.start() if mark else len(text)) != -1


def _lasting(d: Draft, end: int) -> bool:
    """The past cue's sentence goes on to say the fever lasts (前天夜里烧到38.4左右，吃了药以后一直维持
    在38度以下; 前两天37度5 … 可没多久又起了): every reading of the sentence is of this episode."""
    lasting = d.words.temperature_context.lasting.search(d.text, end)
    return lasting is not None and d.same_sentence(end, lasting.start())
