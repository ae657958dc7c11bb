"""Body measures and temperatures: body weight (体重30斤, 十七个月男宝，12公斤, 现在126斤), height
(身高120, 1.2米, 一米二) and body temperature (体温38.5℃, 烧到三十八度五).

Decisions where the spec is silent (each has a row in tests/router/test_slots.py):

* a body weight or height needs its context *directly* before it (体重30斤, 体重是30斤);
  体重增加了2斤 is a change, not a weight, and stays a number;
* 身高1.2 (no unit) is metres, 身高120 centimetres; without 身高, only metres said with decimals
  below 3 (1.2米, 一米二) are a height — 200米 is a distance;
* the first weight / height read wins; later ones are still numbers;
* a weight with 斤 / 公斤 / kg and no 体重 is the child's when it comes at most 8 characters after
  the age in the same sentence, or right after 现在 / 目前 / 今年 (the current weight); a weight
  ranks birth < stated < current, and a later one replaces an earlier one of a lower rank only;
* body temperature (SPEC §4.4 revision 2): 35–43, right after a temperature word with no unit
  (烧到38.6, a comma or 一次 between; a range's upper end counts; a number before another unit —
  发烧3天 — is none), or with 度 / ℃ / ° and a temperature word anywhere in its sentence; 36度4 is
  36.4; readings under a hypothetical or a past cue of their sentence (§4.7's words and patterns;
  a past cue with 开始 only of its clause) are left out, and the highest current one wins; an upper
  bound (不到37度, 38.5以下) is no reading;
* a weight that is the whole message (7.5公斤, 12斤左右吧) is the child's.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, Callable

from ..lexicon import Hit, Hits
from .draft import FILL, METRE, NUM, OTHER, START, WRITER, Draft, Handler, led, masked, number
from ..numerals import CHARS, parse_number

_METRE_TAIL = r"[0-9]{1,2}(?![0-9.])|[零一二三四五六七八九]{1,2}"  # 一米二, 1米25
# A preceding character that turns 重 into another word: 超重 (overweight), 加重 (worsens) — the
# number after them is not a body weight.
_NOT_WEIGHT = frozenset("严加过超偏较沉")
# Body temperature (SPEC §4.4): a number in this range with 度 / ℃ / °C after a temperature word.
_TEMPERATURE = (35.0, 43.0)
# Right after a temperature word, a number needs no unit: 烧到38.6, 体温：38, 最高三十九点二.
# Between them: a colon, a comma (发烧，38.5), 是 / 到 / 一下 / 一次 (量了一次37.3), 一直 / 只有 / 还是
# (体温只有35.6, 体温一直35.1-35.5之间); after the
# number no other unit (发烧3天, 烧了38小时), and a range's upper end counts too (37.6到38.6).
_AFTER_WORD = re.compile(
    f"[ \\t:,]*(?:一直|只有|还是|是|到|至|在|为|了|有|一下|一次)?[ \\t:]*(?P<n>[0-9]+(?:\\.[0-9]+)?(?![0-9]|\\.[0-9])|[{CHARS}]+)"
    f"(?:[ \\t]*(?:-|~|到|至)[ \\t]*(?P<n2>[0-9]+(?:\\.[0-9]+)?(?![0-9.])))?"
    "(?![ \\t]*(?:岁|天|个|小时|分钟|次|年|月|周|斤|公斤|kg|克|毫升|ml|号|日|点|%))"
)
# The §4.7 cues that say a reading is not the child's temperature now, and those that end their
# scope (a now cue or a contrast: 上次烧到40度，现在38度 reads 38).
_NOT_NOW = frozenset({"past", "hypothetical"})
_TIME_CUES = _NOT_NOW | {"now", "contrast"}
_CLAUSE_MARK = re.compile("[,。!?;、\n]")
# 发烧的时候 / 那时候 a few characters before the reading: a past or habitual one (…时 of §4.7).
_PAST_WHEN = re.compile("时候|那时")
_WHEN_REACH = 8
# A clock time before 时候 (昨晚12点时候发烧39度, 三点的时候) dates a reading, it is not "back then".
_CLOCK = re.compile("点的?$")
# An upper bound is no reading: 体温一直不到37度, 发烧在38.5以下 (the child's temperature is below it).
_BELOW_BEFORE = ("不到", "低于", "不超过", "没超过", "没到", "没有到")
_BELOW_AFTER = ("以下", "之下")
WEIGHT_UNITS = frozenset({"公斤", "千克", "kg", "斤"})
# A weight right after an age (十七个月男宝，12公斤): at most this many characters after it, in the same sentence.
_WEIGHT_AFTER_AGE = 8
_CLAUSE_OPENERS = ",;、"  # a clause of the age's sentence starts after one
# After a weight that opens the message: nothing but an approximation and a particle.
_WHOLE_ANSWER = re.compile("(?:左右|上下)?[吧啊呢了]?[ \t。!?]*$")
_WEIGHT_UNIT = re.compile("[0-9.零〇一二两三四五六七八九十百千万点半 \t]*(?:公斤|千克|kg|斤)")
# Before a weight: it was the birth weight (出生体重5.3斤), or it is the current one (现体重8斤,
# 以前140斤现在126斤, 前年60公斤今年64公斤). A weight ranks birth < stated < current; a later
# weight replaces an earlier one of a lower rank only.
_BIRTH = ("出生", "生下来", "出生时", "刚出生")
_CURRENT = re.compile("(?:现在|目前|如今|今年|现)(?:我|是|有|已经|已|才|只有|体重)*[ \t]*$")
BIRTH_RANK, STATED_RANK, CURRENT_RANK = 0, 1, 2
_WRITER_RANKS = 3  # a writer's weight with a patient word after it ranks this much lower

# Unit tails (after a number at the match start): 30斤重, 1.2米, 38.5度.
TAILS = {
    "wt2": "(?P<wt2_u>公斤|千克|kg(?![a-z])|斤)(?=重)",
    "metre": f"(?P<metre_u>{METRE}|m(?![a-z0-9]))(?P<metre_t>{_METRE_TAIL})?",
    # 38.5度, 39℃, 38°, and 36度4 / 三十八度五 (a tenth said after 度).
    "temp": f"(?P<temp_u>度|°c?)(?P<temp_t>[0-9](?![0-9.])|[一二三四五六七八九](?![{CHARS}]))?",
}
# Context-led branches (first characters, body): 体重30斤, 身高120.
LED = {
    "wt": ("体重", led("体重", "重") + FILL + number("wt") + "[ \\t]*(?P<wt_u>公斤|千克|kg(?![a-z])|斤)"),
    "ht": (
        "身",
        f"(?<=身)高{FILL}(?P<ht_n>{NUM})[ \\t]*(?:(?P<ht_u>厘米|公分|cm(?![a-z]))"
        f"|(?P<ht_m>{METRE}|m(?![a-z0-9]))(?P<ht_t>{_METRE_TAIL})?)?",
    ),
}


def on_temperature(m: re.Match[str], d: Draft) -> None:
    """38.5℃, 38°, 三十八度五 with a fever word anywhere in its sentence: a reading (``temperature``
    decides which readings count)."""
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
    if not _TEMPERATURE[0] <= value <= _TEMPERATURE[1] or d.others(start) or _below(d.text, start, m.end()):
        return
    words = d.temperature_words
    index = bisect_left(words, start, key=START)
    if (index and words[index - 1].end <= start and d.same_sentence(words[index - 1].end, start)) or (
        index < len(words) and d.same_sentence(m.end(), words[index].start)
    ):
        d.readings[start] = value


def unitless_readings(d: Draft) -> None:
    """烧到38.6, 最高体温39.2, 体温三十八点五: a number in range right after a temperature word needs
    no unit (SPEC §4.4 revision 2). One anchored match per temperature word."""
    text = d.text
    for word in d.temperature_words:
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
            if value is not None and _TEMPERATURE[0] <= value <= _TEMPERATURE[1] and not _below(text, m.start(group), m.end(group)):
                d.readings[m.start(group)] = float(value)


def _below(text: str, start: int, end: int) -> bool:
    """The number is an upper bound (不到37度, 38.5以下): the child's reading is under it, unknown."""
    return text.endswith(_BELOW_BEFORE, 0, start) or text.startswith(_BELOW_AFTER, end)


def temperature(d: Draft, cues: Callable[[str], Hits], patterns: tuple[tuple[re.Pattern[str], Any], ...]) -> float | None:
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
    found = [h for h in cues(text).group("ctx") if h.payload.direction == "before" and h.payload.kind in _TIME_CUES]
    for pattern, cue in patterns:  # N天前, 两周前: §4.7's cue patterns
        if cue.direction == "before" and cue.kind in _TIME_CUES:
            found += [Hit(m.start(), m.end(), m.group(), cue) for m in pattern.finditer(text)]
    found.sort(key=START)
    best: float | None = None
    for start, value in d.readings.items():
        index = bisect_left(found, start, key=START)
        cue = found[index - 1] if index else None
        if cue is not None and cue.payload.kind in _NOT_NOW and d.same_sentence(cue.end, start) and (
            cue.payload.kind == "hypothetical" and cue.payload.scope != "clause"
            or _CLAUSE_MARK.search(text, cue.end, start) is None
            or cue.payload.kind == "past" and not _onset(text, cue.end)
        ):
            continue
        when = _PAST_WHEN.search(text, max(0, start - _WHEN_REACH), start)
        if when is not None and not _CLOCK.search(text, max(0, when.start() - 2), when.start()) and d.same_sentence(
            max(0, start - _WHEN_REACH), start
        ):
            continue
        best = value if best is None else max(best, value)
    return best


def _onset(text: str, end: int) -> bool:
    """开始 in the past cue's clause (前天晚上开始发烧, 两天前开始咳嗽): the current illness began then,
    and the readings after that clause are of it; without it (前天发烧，最高40度) the cue's event is
    over and covers its whole sentence."""
    mark = _CLAUSE_MARK.search(text, end)
    return text.find("开始", end, mark.start() if mark else len(text)) != -1


def on_weight(m: re.Match[str], d: Draft) -> None:
    if m.lastgroup == "wt":
        quantity, unit = d.quantity(m, *m.span("wt_n"), "wt_u"), m.group("wt_u")
        if d.text[m.start()] == "重" and m.start() and d.text[m.start() - 1] in _NOT_WEIGHT:
            return
    else:
        quantity, unit = d.quantity(m, m.start(), m.start("e"), "wt2_u"), m.group("wt2_u")
    if quantity is not None:
        start = m.start()
        if d.text.endswith(_BIRTH, 0, start):
            rank = BIRTH_RANK
        elif _CURRENT.search(d.text, max(0, start - 8), start):
            rank = CURRENT_RANK
        else:
            rank = STATED_RANK
        set_weight(d, start, quantity["value"], unit, rank)


def on_height(m: re.Match[str], d: Draft) -> None:
    if m.group("ht_m"):
        _metres(m, d, *m.span("ht_n"), "ht_m", "ht_t", stated=True)
        return
    quantity = d.quantity(m, *m.span("ht_n"), "ht_u")
    if quantity is not None and d.height is None and not d.others(m.start()):
        # 身高1.2 can only be metres, 身高120 only centimetres.
        value = quantity["value"]
        d.height = round(float(value * 100 if quantity["unit"] is None and value < 3 else value), 1)


def on_metres(m: re.Match[str], d: Draft) -> None:
    _metres(m, d, m.start(), m.start("e"), "metre_u", "metre_t", stated=False)


def _metres(m: re.Match[str], d: Draft, start: int, stop: int, unit: str, tail: str, stated: bool) -> None:
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


def _unit_end(text: str, start: int) -> int:
    m = _WEIGHT_UNIT.match(text, start)
    return m.end() if m else len(text) + 1


def set_weight(d: Draft, start: int, value: float, unit: str, rank: int) -> None:
    """The first weight of the highest rank: 出生体重5.3斤，现体重8斤 is 4 kg. The writer's own
    weight with a patient word after it ranks below every weight of the patient's."""
    if d.weight is not None and rank <= d.weight_rank:
        return
    if d.subjects is None:  # everything is the patient's
        d.weight, d.weight_rank = round(float(value * (0.5 if unit == "斤" else 1)), 2), rank
        return
    owner = d.owner(start)
    if owner == WRITER:
        rank -= _WRITER_RANKS
    if owner != OTHER and (d.weight is None or rank > d.weight_rank):
        d.weight, d.weight_rank = round(float(value * (0.5 if unit == "斤" else 1)), 2), rank


def bare_weight(d: Draft, start: int, value: float, unit: str) -> None:
    """A weight without 体重: said as the current one (现在150斤), a few characters after the age in
    its sentence (十七个月男宝，12公斤), or opening a clause after the age's (宝宝17个月，不爱吃饭，22斤)."""
    if _CURRENT.search(d.text, max(0, start - 8), start):
        set_weight(d, start, value, unit, CURRENT_RANK)
    elif start == 0 and _WHOLE_ANSWER.match(d.text, _unit_end(d.text, start)):
        set_weight(d, start, value, unit, STATED_RANK)  # 7.5公斤, 12斤左右吧: the message is the weight
    elif d.age_end >= 0 and d.age_end <= start and d.same_sentence(d.age_end, start) and (
        start - d.age_end <= _WEIGHT_AFTER_AGE or d.text[start - 1] in _CLAUSE_OPENERS
    ):
        set_weight(d, start, value, unit, STATED_RANK)


HANDLERS: dict[str, Handler] = {
    "temp": on_temperature,
    "wt": on_weight,
    "wt2": on_weight,
    "ht": on_height,
    "metre": on_metres,
}
