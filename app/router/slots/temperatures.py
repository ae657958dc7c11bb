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
from .draft import START, Draft, Handler, masked
from ..numerals import CHARS, parse_number
from ..text import CLAUSE_ENDS, LIST_MARK, SENTENCE_ENDS
from .result import Quantity

# Body temperature (SPEC §4.4): a number in this range with 度 / ℃ / °C after a temperature word.
_TEMPERATURE = (35.0, 43.0)
# Right after a temperature word, a number needs no unit: 烧到38.6, 体温：38, 最高三十九点二, 体温计，38.
# Between them: a colon, a comma (发烧，38.5), 是 / 到 / 一下 / 一次 (量了一次37.3), 一直 / 只有 / 还是
# (体温只有35.6, 体温一直35.1-35.5之间), a verb of rising (体温升高38.8, 最高达到39), 有点高 / 偏高
# (体温有点高37.3); after the
# number no other unit (发烧3天, 烧了38小时), and a range's upper end counts too (37.4到38.9).
_AFTER_WORD = re.compile(
    "(?:计(?:上|上显示|显示)?(?:的|是)?)?[ \\t:,]*(?:一直|只有|还是|升高到|升高|升到|升至|上升到|上升|达到|高达|达|又回到|回到|有点高|偏高|是|到|至|在|为|了|有|一下|一次)?"
    f"[ \\t:]*(?P<n>[0-9]+(?:\\.[0-9]+)?(?![0-9]|\\.[0-9])|[{CHARS}]+)"
    f"(?:[ \\t]*(?:-|~|到|至)[ \\t]*(?P<n2>[0-9]+(?:\\.[0-9]+)?(?![0-9.])))?"
    "(?![ \\t]*(?:岁|天|个|小时|分钟|次|年|月|周|斤|公斤|kg|克|毫升|ml|号|日|点|%))"
)
# Before 量的 / 量得: an amount (奶量, 尿量, 剂量), not a temperature taken.
_AMOUNT_BEFORE = frozenset("奶尿饭剂食药用水血流雨大少适容热能总含")
# More readings listed after the first, each with a decimal (体温37.8，38.1 / 38.2、38.5).
_LISTED = re.compile("[ \\t]*[,、/][ \\t]*(?P<n>[0-9]{2}\\.[0-9])(?![0-9]|\\.[0-9]|[ \\t]*(?:天|个|小时|次|%|斤|kg|公斤))")
_LISTED_MAX = 3
# The other end of a range (40度-45度, 37-50度): a reading only when both ends are body temperatures.
_RANGE_END = re.compile("(?:度|°c?)?[ \\t]*(?:--|-|~|到|至)[ \\t]*(?P<n>[0-9]+(?:\\.[0-9]+)?)")
RANGE_START = re.compile("(?<![0-9.度°])(?P<n>[0-9]+(?:\\.[0-9]+)?)(?:度|°c?)?[ \\t]*(?:--|-|~|到|至)[ \\t]*$")
# A reading in a message without any temperature word: a short chat reply (the doctor's question,
# 体温多少, is the context the parent answers) that ends with it (38.5, 现在有39.5了, 腋下量了38.2,
# 一直37.5左右), or any message that opens with it after a word of now at most (现在是37.6从八点多…
# 中间有一会退烧了): a number 35–43 written with a
# decimal or with 度 / ℃ / ° is the child's temperature. Elsewhere in a reply (孩子38.2，有点咳嗽,
# 今天38度，很热) it may be anything, and a text with a temperature word is read by the rules above.
REPLY_LENGTH = 40
_REPLY_OPENING = re.compile("(?:现在|目前|刚才|刚刚|刚|这会儿?)?(?:是|有|也是|又|还是|量的|测的)?[ \\t]*")
READING = re.compile(f"(?:[0-9.]+|[{CHARS}]+)[ \\t]*(?:度|°c?)?(?:[0-9]|[{CHARS}])?")
# A number with decimals and no unit that may be a reading in a fever sentence (``_in_fever_sentence``):
# not a price, a ward, a share or a ratio after it.
_DECIMAL_READING = re.compile("[0-9]{2}\\.[0-9]{1,2}(?![0-9])(?![ \\t]*(?:度|°|元|块|毛|号|床|楼|万|倍|%|/))")
# A body measure before the number in its clause (体重37.5, 身高：95.5).
_MEASURE_BEFORE = re.compile(f"(?:体重|身高|身长|头围|胸围|腰围)[^{CLAUSE_ENDS}]*$")
_MEASURE_REACH = 12
# A result's name between the fever word and the number (C反应蛋白38.5, 淋巴细胞百分比38.6, crp 38.5).
_LAB_BEFORE = re.compile(f"(?:[a-z]|细胞|蛋白|百分比|比率|比例|压积|计数|指数|常规|化验|结果|报告|检查)[^{CLAUSE_ENDS}]*$")
# After a reply's reading: nothing but an approximation and a particle (38度多, 37.5左右吧).
_ENDS_MESSAGE = re.compile(f"(?:多|左右|以上|了|啊|吧|呢)*[ \\t{SENTENCE_ENDS}]*$")  # 以上 a lower bound, as 多
# Before a number with ℃ / ° in its clause: the temperature of water, a room or the weather, not the
# child's (a number with ℃ / ° needs no fever word: 度 is also a myopia's, a liquor's, an angle's).
_AMBIENT = re.compile(f"(?:水温|室温|气温|水|澡|房间|屋|天气|外面|奶温|温度计)[^{CLAUSE_ENDS}]*$")
_AMBIENT_REACH = 12
# A threshold is no reading: 超过38.8再吃退烧药, 高于39 (with 不到 / 以下 of ``_BELOW_*``).
_THRESHOLD_BEFORE = ("超过", "超出", "高于", "大于", "没上", "上了")
# An upper bound is no reading: 体温一直没到37度, 发烧在38.3以下 (the child's temperature is below it).
_BELOW_BEFORE = ("不到", "低于", "不超过", "没超过", "没到", "没有到")
_BELOW_AFTER = ("以下", "之下")

# A reading that is its whole clause (SPEC §4.4 revision 3): the clause's start before it, at most a
# lower bound or a particle after it.
_CLAUSE_OPENS = CLAUSE_ENDS + LIST_MARK
_CLAUSE_REST = re.compile(f"(?:多|左右|以上|了|啊|吧|呢)*[ \t]*(?:[{CLAUSE_ENDS}{LIST_MARK}~]|$)")
_ALMOST = ("快", "快要", "快到", "将近", "接近", "差不多")
# A message of bare numbers and particles only (38.5, 38.5，37.8吧): numbers without a unit, no reading.
# Possessive throughout: a run of digits is never split between two numbers on a failing text.
_BARE_MESSAGE = re.compile(f"(?:[ \\t]*+[0-9]++(?:\\.[0-9]++)?+(?:多|左右|以上|了|啊|吧|呢)*+[ \\t]*+[{CLAUSE_ENDS}{LIST_MARK}~]*+)++")
# 三十八九度: 38 to 39 degrees, two numerals in a row (the higher one is the reading).
_TENS_RANGE = re.compile("[三四]十[一二三四五六七八九]{2}")
# A range's highest value (SPEC §4.4 revision 3): 三十八度五六 (two tenths) or 三十八九度 at the reading.
_RANGE_AT = re.compile(f"(?:[0-9]+|[{CHARS}]+)度[{CHARS}]{{2}}(?![{CHARS}])|[三四]十[一二三四五六七八九]{{2}}度")

# Unit tail (after a number at the match start).
TAILS = {
    # 38.5度, 39℃, 38°, and 36度4 / 三十八度五 (a tenth said after 度).
    # 三十九度二三 is 39.2 to 39.3: the higher tenth counts.
    "temp": f"(?P<temp_u>度|°c?)(?P<temp_t>[0-9](?![0-9.])|[一二三四五六七八九][二三四五六七八九]?(?![{CHARS}]))?",
}


def on_temperature(m: re.Match[str], d: Draft) -> None:
    """38.5℃, 38°, 三十八度五 with a fever word anywhere in its sentence: a reading (``temperature``
    decides which readings count)."""
    start = m.start()
    quantity = d.quantity(m, start, m.start("e"), "temp_u")
    tenth = m.group("temp_t")
    if quantity is None:
        quantity = _tens_range(d.text[start : m.start("e")]) if not tenth else None
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
    if not in_range(value) or d.others(start) or _below(d.text, start, m.end()) or not _body_range(d.text, start, m.end()):
        return
    if d.text.endswith(_THRESHOLD_BEFORE, 0, start):
        return  # 超过38度5的时候吃退烧药: a threshold, with a fever word or without
    words = d.temperature_words
    index = bisect_left(words, start, key=START)
    if (index and words[index - 1].end <= start and d.same_sentence(words[index - 1].end, start)) or (
        index < len(words) and d.same_sentence(m.end(), words[index].start)
    ):
        d.readings[start] = value
    elif (
        m.group("temp_u") != "度"
        and not _AMBIENT.search(d.text, max(0, start - _AMBIENT_REACH), start)
        and not d.text.endswith(_THRESHOLD_BEFORE, 0, start)
    ):
        d.readings[start] = value  # 持续39°以上: ℃ and ° in 35–43 are a body's (the unlabelled pool: every one)
    else:
        d.replies[start] = value  # 39度, 昨天才正常36度: ``reply_readings`` decides


def _tens_range(token: str) -> Quantity | None:
    """三十八九 as the higher of its two numbers (39), when they follow each other; else None. A
    range is no number (SPEC §4.4), so it is a reading only: nothing is added to the numbers."""
    if _TENS_RANGE.fullmatch(token) is None:
        return None
    low, high = parse_number(token[:-1]), parse_number(token[:-2] + token[-1])
    if low is None or high is None or high != low + 1:
        return None
    return {"value": high, "unit": "度", "raw": token}


def rough(text: str, start: int) -> bool:
    """The reading at ``start`` is "almost N" (烧到快40度, SPEC §4.4 revision 3: N, approximate) or the
    highest value of a range (38.5-39度, 37.8 到 38.3, 三十八度五六, 三十八九度)."""
    return text.endswith(_ALMOST, 0, start) or _ranged(text, start)


def _ranged(text: str, start: int) -> bool:
    return RANGE_START.search(text, max(0, start - 12), start) is not None or _RANGE_AT.match(text, start) is not None


def _whole_clause(text: str, start: int, end: int) -> bool:
    """The reading is its clause's only words (39度，…; 38.5 alone), a lower bound or a particle after it at most."""
    opening = start
    while opening and text[opening - 1] in " \t":
        opening -= 1
    return (opening == 0 or text[opening - 1] in _CLAUSE_OPENS) and _CLAUSE_REST.match(text, end) is not None


def in_range(value: float) -> bool:
    return _TEMPERATURE[0] <= value <= _TEMPERATURE[1]


def _body_range(text: str, start: int, end: int) -> bool:
    """Not one end of a range whose other end is no body temperature (40度-45度 of bath water)."""
    after = _RANGE_END.match(text, end)
    before = RANGE_START.search(text, max(0, start - 12), start)
    return all(m is None or in_range(float(m.group("n"))) for m in (after, before))


def reply_readings(d: Draft, analytes: list[Hit]) -> None:
    """Readings without a temperature word right before them (``REPLY_LENGTH``): the candidates the
    scan kept in ``Draft.replies`` that open the message, or end a short one without a temperature
    word, or are written with decimals in a sentence with a temperature word (``_in_fever_sentence``),
    unless they are a bound (超过38.5, 38.5以下) or follow a lab word (白蛋白38.5)."""
    text = d.text
    if _BARE_MESSAGE.fullmatch(text):
        return  # SPEC §4.4 revision 3: a message of bare numbers (38.5) says no unit, so no temperature
    short = len(text) <= REPLY_LENGTH and not d.temperature_words
    # A short reply that ends with a reading lists its readings (昨晚38.5，今天早上37.8): each one counts.
    listed = short and len(d.replies) > 1 and _ends_with_reading(text, max(d.replies))
    for start, value in d.replies.items():
        reading = READING.match(text, start)
        end = reading.end() if reading else start
        replied = _REPLY_OPENING.fullmatch(text, 0, start) is not None or (
            short and (_ENDS_MESSAGE.match(text, end) is not None or listed and not _measured(text, start))
        )
        if not (replied or d.temperature_words) and "度" in text[start:end] and _whole_clause(text, start, end):
            replied = True  # SPEC §4.4 revision 3: a whole reply clause with 度 is a reading (孩子咳嗽，39度，怎么办)
        if not replied and not _in_fever_sentence(d, start):
            continue
        if text.endswith(_THRESHOLD_BEFORE, 0, start) or _below(text, start, end) or not _body_range(text, start, end):
            continue
        if any(h.end <= start <= h.end + 3 for h in analytes):
            continue
        d.readings[start] = value
        if replied:
            d.replied.add(start)
        else:  # 37.8-38的体温: a range's upper end in body range counts too
            upper = _RANGE_END.match(text, end)
            if upper is not None and in_range(top := float(upper.group("n"))) and not _below(text, upper.start("n"), upper.end()):
                d.readings[upper.start("n")] = top


def _ends_with_reading(text: str, start: int) -> bool:
    reading = READING.match(text, start)
    return _ENDS_MESSAGE.match(text, reading.end() if reading else start) is not None


def _measured(text: str, start: int) -> bool:
    """A body measure's word before ``start`` in its clause (体重37.5)."""
    return _MEASURE_BEFORE.search(text, max(0, start - _MEASURE_REACH), start) is not None


def _in_fever_sentence(d: Draft, start: int) -> bool:
    """A number with decimals and no unit (37.5, not 37.5元 or 38度) in the sentence of a temperature
    word, before it or after it (体温退了些，上午37.6下午37.2; 36.8这个温度; 现在量是37.4,还会再烧吗), and
    not in a clause about a body measure (体重37.5): a reading, as a number with 度 there is."""
    text, words = d.text, d.temperature_words
    if not words or _DECIMAL_READING.match(text, start) is None or _MEASURE_BEFORE.search(text, max(0, start - _MEASURE_REACH), start):
        return False
    index = bisect_left(words, start, key=START)
    since = max(0, start - _MEASURE_REACH, words[index - 1].end if index else 0)
    if _LAB_BEFORE.search(text, since, start):
        return False  # 发烧三天，C反应蛋白38.5: a result after the fever word, not a temperature
    return (index > 0 and d.same_sentence(words[index - 1].end, start)) or (
        index < len(words) and d.same_sentence(start, words[index].start)
    )


def unitless_readings(d: Draft) -> None:
    """烧到38.6, 最高体温39.2, 体温三十八点五: a number in range right after a temperature word needs
    no unit (SPEC §4.4 revision 2). One anchored match per temperature word."""
    text = d.text
    for word in d.temperature_words:
        if word.term[0] == "量" and word.start and text[word.start - 1] in _AMOUNT_BEFORE:
            continue  # 奶量的40: an amount, not a reading taken
        m = _AFTER_WORD.match(text, word.end)
        if m is None or m.start("n") in d.readings:
            continue
        start = m.start("n")
        if start and "0" <= text[start - 1] <= "9":
            continue
        if d.others(start) or (d.masks and masked(d.masks, start)):
            continue
        for group in ("n", "n2"):
            value = parse_number(m.group(group)) if m.group(group) else None
            if value is None or not in_range(value) or _below(text, m.start(group), m.end(group)):
                continue
            if _body_range(text, m.start(group), m.end(group)):
                d.readings[m.start(group)] = float(value)
        end = m.end()
        for _ in range(_LISTED_MAX):  # 体温37.8，38.1
            listed = _LISTED.match(text, end)
            if listed is None or not in_range(reading := float(listed.group("n"))):
                break
            d.readings[listed.start("n")] = reading
            end = listed.end()


def _below(text: str, start: int, end: int) -> bool:
    """The number is an upper bound (不到37度, 38.5以下): the child's reading is under it, unknown."""
    return text.endswith(_BELOW_BEFORE, 0, start) or text.startswith(_BELOW_AFTER, end)


HANDLERS: dict[str, Handler] = {"temp": on_temperature}
