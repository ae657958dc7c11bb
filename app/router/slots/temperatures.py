"""Body temperature readings (SPEC §4.4 revision 2): 体温38.5℃, 烧到三十八度五, a reply's 38.5.

Which of the readings is the child's current one is ``temperature_context``'s decision.

Decisions where the spec is silent (each has a row in tests/router/test_slots.py or test_slots_parents.py):

* 35–43, right after a temperature word with no unit (烧到38.6, a comma or 一次 between; a range's
  upper end counts; a number before another unit — 发烧3天 — is none), or with 度 / ℃ / ° and a
  temperature word anywhere in its sentence; 36度4 is 36.4; an upper bound (不到37度, 38.5以下) is
  no reading;
* a number with decimals and no unit (37.5) in the sentence of a temperature word, before or after
  it (体温退了些，上午37.6; 36.8这个温度), is a reading as one with 度 is — not a price, a body measure
  (体重37.5) or another unit's;
* as the dev split, the pool and the imcs messages write them (issue 21, session 4): a threshold
  after 超过 / 高于 with a fever word too is no reading; a short reply that lists readings reads each;
* SPEC §4.4 revision 3: a reading with 度 that is a whole clause (孩子咳嗽，39度，怎么办) or the whole
  message (39度4) is the child's temperature, a message of bare numbers (38.5 alone) none — a bare
  reading after an age (宝宝2个月，38.5) still is one, as §4.7 revision 3 reads it; a range
  (三十八度五六, 38.5-39度, 三十八九度) reads its highest value and "almost N" (烧到快40度) N, both
  ``approximate`` (``rough``).
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ..lexicon import Hit
from ..numerals import CHARS, parse_number
from ..policy.slots import SlotWords
from ..policy.slot_temps import Temperatures
from ..text import CLAUSE_ENDS, LIST_MARK
from .draft import START, Draft, Handler, masked
from .result import Quantity

# Body temperature (SPEC §4.4): a number in this range with 度 / ℃ / °C after a temperature word.
_TEMPERATURE = (35.0, 43.0)
# The patterns and words of a reading are the policy's ``[slots.temperatures]`` (``d.words.temperatures``).
_LISTED_MAX = 3  # more readings listed after the first (体温37.8，38.1 / 38.2、38.5)
# A reading in a message without any temperature word: a short chat reply (the doctor's question,
# 体温多少, is the context the parent answers) that ends with it (38.5, 现在有39.5了, 腋下量了38.2,
# 一直37.5左右), or any message that opens with it after a word of now at most (现在是37.6从八点多…
# 中间有一会退烧了): a number 35–43 written with a
# decimal or with 度 / ℃ / ° is the child's temperature. Elsewhere in a reply (孩子38.2，有点咳嗽,
# 今天38度，很热) it may be anything, and a text with a temperature word is read by the rules above.
REPLY_LENGTH = 40
# How far before a number a body measure's word (体重37.5) or a lab result's name may be, and a
# water's or a room's temperature word (水温40℃).
_MEASURE_REACH = 12
_AMBIENT_REACH = 12
_RANGE_REACH = 12  # how far before a reading its range's lower end may start (38.5-39度)

# A reading that is its whole clause (SPEC §4.4 revision 3): the clause's start before it, at most a
# lower bound or a particle after it.
_CLAUSE_OPENS = CLAUSE_ENDS + LIST_MARK
# 三十八九度: 38 to 39 degrees, two numerals in a row (the higher one is the reading).
_TENS_RANGE = re.compile("[三四]十[一二三四五六七八九]{2}")


def tails(words: SlotWords) -> dict[str, str]:
    """The unit tail of a reading (after a number at the match start): 38.5度, 39℃, 38°, and 36度4 /
    三十八度五 (a tenth said after the unit). 三十九度二三 is 39.2 to 39.3: the higher tenth counts."""
    unit = re.escape(words.temperatures.unit)
    return {
        "temp": f"(?P<temp_u>{unit}|°c?)(?P<temp_t>[0-9](?![0-9.])|[一二三四五六七八九][二三四五六七八九]?(?![{CHARS}]))?",
    }


def on_temperature(m: re.Match[str], d: Draft) -> None:
    """38.5℃, 38°, 三十八度五 with a fever word anywhere in its sentence: a reading (``temperature``
    decides which readings count)."""
    start, t = m.start(), d.words.temperatures
    quantity = d.quantity(m, start, m.start("e"), "temp_u")
    tenth = m.group("temp_t")
    if quantity is None:
        quantity = _tens_range(d.text[start : m.start("e")], t.unit) if not tenth else None
        if quantity is None:
            return
    if tenth:  # 36度4 is 36.4
        if isinstance(quantity["value"], float):
            return
        if len(tenth) == 2:  # 三十九度二三: two tenths in a row, the higher one; 度五八 is no reading
            low, high = parse_number(tenth[0]), parse_number(tenth[1])
            if low is None or high != low + 1:
                return
            tenth = tenth[1]
        quantity["value"] = float(f"{quantity['value']}.{parse_number(tenth)}")
        quantity["raw"] = d.cased[start : m.end("temp_t")]
    value = float(quantity["value"])
    if not in_range(value) or d.others(start) or _below(t, d.text, start, m.end()) or not _body_range(t, d.text, start, m.end()):
        return
    if d.text.endswith(t.threshold_before, 0, start):
        return  # 超过38度5的时候吃退烧药: a threshold, with a fever word or without
    words = d.temperature_words
    index = bisect_left(words, start, key=START)
    if (index and words[index - 1].end <= start and d.same_sentence(words[index - 1].end, start)) or (
        index < len(words) and d.same_sentence(m.end(), words[index].start)
    ):
        d.readings[start] = value
    elif (
        m.group("temp_u") != t.unit
        and not t.ambient.search(d.text, max(0, start - _AMBIENT_REACH), start)
        and not d.text.endswith(t.threshold_before, 0, start)
    ):
        d.readings[start] = value  # 持续39°以上: ℃ and ° in 35–43 are a body's (the unlabelled pool: every one)
    else:
        d.replies[start] = value  # 39度, 昨天才正常36度: ``reply_readings`` decides


def _tens_range(token: str, unit: str) -> Quantity | None:
    """三十八九 as the higher of its two numbers (39), when they follow each other; else None. A
    range is no number (SPEC §4.4), so it is a reading only: nothing is added to the numbers."""
    if _TENS_RANGE.fullmatch(token) is None:
        return None
    low, high = parse_number(token[:-1]), parse_number(token[:-2] + token[-1])
    if low is None or high is None or high != low + 1:
        return None
    return {"value": high, "unit": unit, "raw": token}


def rough(t: Temperatures, text: str, start: int) -> bool:
    """The reading at ``start`` is "almost N" (烧到快40度, SPEC §4.4 revision 3: N, approximate) or the
    highest value of a range (38.5-39度, 37.8 到 38.3, 三十八度五六, 三十八九度)."""
    return text.endswith(t.almost, 0, start) or _ranged(t, text, start)


def _ranged(t: Temperatures, text: str, start: int) -> bool:
    return t.range_start.search(text, max(0, start - _RANGE_REACH), start) is not None or t.range_at.match(text, start) is not None


def _whole_clause(t: Temperatures, text: str, start: int, end: int) -> bool:
    """The reading is its clause's only words (39度，…; 38.5 alone), a lower bound or a particle after it at most."""
    opening = start
    while opening and text[opening - 1] in " \t":
        opening -= 1
    return (opening == 0 or text[opening - 1] in _CLAUSE_OPENS) and t.clause_rest.match(text, end) is not None


def in_range(value: float) -> bool:
    return _TEMPERATURE[0] <= value <= _TEMPERATURE[1]


def _body_range(t: Temperatures, text: str, start: int, end: int) -> bool:
    """Not one end of a range whose other end is no body temperature (40度-45度 of bath water)."""
    after = t.range_end.match(text, end)
    before = t.range_start.search(text, max(0, start - _RANGE_REACH), start)
    return all(m is None or in_range(float(m.group("n"))) for m in (after, before))


def reply_readings(d: Draft, analytes: list[Hit]) -> None:
    """Readings without a temperature word right before them (``REPLY_LENGTH``): the candidates the
    scan kept in ``Draft.replies`` that open the message, or end a short one without a temperature
    word, or are written with decimals in a sentence with a temperature word (``_in_fever_sentence``),
    unless they are a bound (超过38.5, 38.5以下) or follow a lab word (白蛋白38.5)."""
    text, t = d.text, d.words.temperatures
    if t.bare_message.fullmatch(text):
        return  # SPEC §4.4 revision 3: a message of bare numbers (38.5) says no unit, so no temperature
    short = len(text) <= REPLY_LENGTH and not d.temperature_words
    # A short reply that ends with a reading lists its readings (昨晚38.5，今天早上37.8): each one counts.
    listed = short and len(d.replies) > 1 and _ends_with_reading(t, text, max(d.replies))
    for start, value in d.replies.items():
        reading = t.reading.match(text, start)
        end = reading.end() if reading else start
        replied = t.reply_opening.fullmatch(text, 0, start) is not None or (
            short and (t.ends_message.match(text, end) is not None or listed and not _measured(t, text, start))
        )
        if not (replied or d.temperature_words) and t.unit in text[start:end] and _whole_clause(t, text, start, end):
            replied = True  # SPEC §4.4 revision 3: a whole reply clause with 度 is a reading (孩子咳嗽，39度，怎么办)
        if not replied and not _in_fever_sentence(d, start):
            continue
        if text.endswith(t.threshold_before, 0, start) or _below(t, text, start, end) or not _body_range(t, text, start, end):
            continue
        if any(h.end <= start <= h.end + 3 for h in analytes):
            continue
        d.readings[start] = value
        if replied:
            d.replied.add(start)
        else:  # 37.8-38的体温: a range's upper end in body range counts too
            upper = t.range_end.match(text, end)
            if upper is not None and in_range(top := float(upper.group("n"))) and not _below(t, text, upper.start("n"), upper.end()):
                d.readings[upper.start("n")] = top


def _ends_with_reading(t: Temperatures, text: str, start: int) -> bool:
    reading = t.reading.match(text, start)
    return t.ends_message.match(text, reading.end() if reading else start) is not None


def _measured(t: Temperatures, text: str, start: int) -> bool:
    """A body measure's word before ``start`` in its clause (体重37.5)."""
    return t.measure_before.search(text, max(0, start - _MEASURE_REACH), start) is not None


def _in_fever_sentence(d: Draft, start: int) -> bool:
    """A number with decimals and no unit (37.5, not 37.5元 or 38度) in the sentence of a temperature
    word, before it or after it (体温退了些，上午37.6下午37.2; 36.8这个温度; 现在量是37.4,还会再烧吗), and
    not in a clause about a body measure (体重37.5): a reading, as a number with 度 there is."""
    text, words, t = d.text, d.temperature_words, d.words.temperatures
    if not words or t.decimal_reading.match(text, start) is None or _measured(t, text, start):
        return False
    index = bisect_left(words, start, key=START)
    since = max(0, start - _MEASURE_REACH, words[index - 1].end if index else 0)
    if t.lab_before.search(text, since, start):
        return False  # 发烧三天，C反应蛋白38.5: a result after the fever word, not a temperature
    return (index > 0 and d.same_sentence(words[index - 1].end, start)) or (
        index < len(words) and d.same_sentence(start, words[index].start)
    )


def unitless_readings(d: Draft) -> None:
    """烧到38.6, 最高体温39.2, 体温三十八点五: a number in range right after a temperature word needs
    no unit (SPEC §4.4 revision 2). One anchored match per temperature word."""
    text, t = d.text, d.words.temperatures
    after_word, taken = t.after_word_pattern, t.taken
    for word in d.temperature_words:
        if word.term.startswith(taken) and word.start and text[word.start - 1] in t.amount_before:
            continue  # 奶量的40: an amount, not a reading taken
        m = after_word.match(text, word.end)
        if m is None or m.start("n") in d.readings:
            continue
        start = m.start("n")
        if start and "0" <= text[start - 1] <= "9":
            continue
        if d.others(start) or (d.masks and masked(d.masks, start)):
            continue
        for group in ("n", "n2"):
            value = parse_number(m.group(group)) if m.group(group) else None
            if value is None or not in_range(value) or _below(t, text, m.start(group), m.end(group)):
                continue
            if _body_range(t, text, m.start(group), m.end(group)):
                d.readings[m.start(group)] = float(value)
        end = m.end()
        for _ in range(_LISTED_MAX):  # 体温37.8，38.1
            listed = t.listed.match(text, end)
            if listed is None or not in_range(reading := float(listed.group("n"))):
                break
            d.readings[listed.start("n")] = reading
            end = listed.end()


def _below(t: Temperatures, text: str, start: int, end: int) -> bool:
    """The number is an upper bound (不到37度, 38.5以下): the child's reading is under it, unknown."""
    return text.endswith(t.below_before, 0, start) or text.startswith(t.below_after, end)


HANDLERS: dict[str, Handler] = {"temp": on_temperature}
