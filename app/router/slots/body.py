"""Body measures: body weight (体重30斤, 十七个月男宝，12公斤, 现在126斤) and height (身高120, 1.2米,
一米二); body temperature is ``temperatures``.

Decisions where the spec is silent (each has a row in tests/router/test_slots.py):

* a body weight or height needs its context *directly* before it (体重30斤, 体重是30斤);
  体重增加了2斤 is a change, not a weight, and stays a number;
* 身高1.2 (no unit) is metres, 身高120 centimetres; without 身高, only metres said with decimals
  below 3 (1.2米, 一米二) are a height — 200米 is a distance;
* the first weight / height read wins; later ones are still numbers;
* a weight with 斤 / 公斤 / kg and no 体重 is the child's when it comes at most 8 characters after
  the age in the same sentence, or right after 现在 / 目前 / 今年 (the current weight); a weight
  ranks birth < stated < current, and a later one replaces an earlier one of a lower rank only;
* a weight that is the whole message (7.5公斤, 12斤左右吧) is the child's;
* height and weight named together with their two values after them (身高/体重：70.5/8.3) are the
  height and the weight, in the order named, when both are in a child's range;
* as the dev split, the pool and the imcs messages write them (issue 21, session 4): a weight as a
  reply with 多 or a guess word (14斤多吧), said as reached (有12斤, 有20斤了), 体重N公斤半; the
  weight after 足月 / 早产 in its clause or at a past moment (三岁时, 住院的时候) never fills; a later
  moment (满月, 百天) ranks above a weight said with none; under a supposition or a general rule in
  its clause none fills; a lower bound of the weight (16斤多) is ``approximate`` (LABELS.md).
"""

from __future__ import annotations

import re

from ..numerals import parse_number
from ..policy.slots import SlotWords
from ..text import CLAUSE_ENDS, LIST_MARK
from .draft import NUM, OTHER, WRITER, Draft, Handler, fill, led, number, supposed
from .foods import food_in_clause

_LIANG = "[0-9](?![0-9.])|[一二三四五六七八九]"  # the 两 of 7斤4两
_METRE_TAIL = r"[0-9]{1,2}(?![0-9.])|[零一二三四五六七八九]{1,2}"  # 一米二, 1米25
# A weight right after an age (十七个月男宝，12公斤): at most this many characters after it, in the same sentence.
_WEIGHT_AFTER_AGE = 8
# A clause of the age's sentence starts after one (a sentence end there fails ``same_sentence`` first).
_CLAUSE_OPENERS = CLAUSE_ENDS + LIST_MARK
# Where a word said as reached (有12斤) may open: a clause, or after a blank.
_OPENS = frozenset(CLAUSE_ENDS + LIST_MARK + " ")
# The policy's ``body.birth`` is searched this far before a weight, ``body.current`` this far.
_BIRTH_REACH = 10
_CURRENT_REACH = 8
BIRTH_RANK, STATED_RANK, MOMENT_RANK, CURRENT_RANK = 0, 1, 2, 3
_HEIGHT_RANGE = (30.0, 200.0)
_WEIGHT_RANGE = (1.5, 150.0)
_WRITER_RANKS = 4  # a writer's weight with a patient word after it ranks this much lower


def metre(words: SlotWords) -> str:
    """米 as a unit: not where it is rice (二两米饭), policy ``body.metre_not_before``."""
    return re.escape(words.body.metre) + f"(?![{''.join(words.body.metre_not_before)}])"


def _units(units: tuple[str, ...], guard: bool = True, jin: str = "", liang: str = "") -> str:
    """An alternation of ``units`` in the policy's order; with ``guard``, an ASCII unit must not run
    into a letter (kg, not kgs); with ``liang``, the jin unit may take its liang after it (7斤4两)."""
    return "|".join(
        re.escape(u) + ("(?![a-z])" if guard and u.isascii() else "")
        + (f"(?:(?:{_LIANG}){re.escape(liang)})?" if liang and u == jin else "")
        for u in units
    )


def weight_unit(words: SlotWords) -> re.Pattern[str]:
    """A weight's unit after its number (``_unit_end``): 12斤, 7斤4两, 五公斤."""
    b = words.body
    return re.compile(f"[0-9.零〇一二两三四五六七八九十百千万点半 \\t]*(?:{_units(b.weight_units, False, b.jin, b.liang)})")


def tails(words: SlotWords) -> dict[str, str]:
    """Unit tails (after a number at the match start): 30斤重, 7斤4两, 1.2米."""
    b = words.body
    metre_unit = metre(words)
    return {
        "wt2": f"(?P<wt2_u>{_units(b.weight_units)})(?={re.escape(b.weight_short)})",
        "jl": f"(?P<jl_u>{re.escape(b.jin)})(?P<jl_n>{_LIANG}){re.escape(b.liang)}",
        "metre": f"(?P<metre_u>{metre_unit}|m(?![a-z0-9]))(?P<metre_t>{_METRE_TAIL})?",
    }


def led_branches(words: SlotWords) -> dict[str, tuple[str, str]]:
    """Context-led branches (first characters, body): 体重30斤, 身高120."""
    b = words.body
    filler, metre_unit = fill(words), metre(words)
    weights = b.weight_words + (b.weight_short,)
    return {
        "wt": (
            "".join(dict.fromkeys(w[0] for w in weights)),
            led(*weights) + filler + number("wt") + f"[ \\t]*(?P<wt_u>{_units(b.weight_units)})"
            f"(?:(?<={re.escape(b.jin)})(?P<wt_l>{_LIANG}){re.escape(b.liang)}|(?P<wt_h>半))?",
        ),
        "ht": (
            "".join(dict.fromkeys(w[0] for w in b.height_words)),
            led(*b.height_words) + f"{filler}(?P<ht_n>{NUM})[ \\t]*(?:(?P<ht_u>{_units(b.height_units)})"
            f"|(?P<ht_m>{metre_unit}|m(?![a-z0-9]))(?P<ht_t>{_METRE_TAIL})?)?",
        ),
    }


def on_weight(m: re.Match[str], d: Draft) -> None:
    if m.lastgroup == "wt":
        quantity, unit = d.quantity(m, *m.span("wt_n"), "wt_u", "wt_h"), m.group("wt_u")  # 体重八公斤半
        b = d.words.body
        # 超重 (overweight), 加重 (worsens): the number after them is no body weight.
        if m.start() and d.text.startswith(b.weight_short, m.start()) and d.text[m.start() - 1] in b.not_weight:
            return
    else:
        quantity, unit = d.quantity(m, m.start(), m.start("e"), "wt2_u"), m.group("wt2_u")
    if quantity is not None:
        start = m.start()
        value = quantity["value"] + (_liang(m, d, "wt_l") if m.lastgroup == "wt" else 0)
        if d.words.body.birth.search(d.text, max(0, start - _BIRTH_REACH), start):
            rank = BIRTH_RANK
        elif d.words.body.current.search(d.text, max(0, start - _CURRENT_REACH), start):
            rank = CURRENT_RANK
        else:
            rank = STATED_RANK
        set_weight(d, start, value, unit, rank, approximate=d.text.startswith(d.words.numbers.more, m.end()))


def _liang(m: re.Match[str], d: Draft, group: str) -> float:
    """The 两 after a weight in 斤 (体重7斤4两), in 斤, recorded as a number of its own; 0 when none."""
    start = m.start(group)
    if start < 0:
        return 0
    quantity = d.quantity(m, start, m.end(group))
    if quantity is None:
        return 0
    quantity["unit"], quantity["raw"] = d.words.body.liang, d.cased[start : m.end(group) + 1]
    return quantity["value"] / 10


def on_jin_liang(m: re.Match[str], d: Draft) -> None:
    """六斤一两: a body weight where one may stand (``bare_weight``), or a food's portion (一斤二两猪肉)."""
    start = m.start()
    jin = d.quantity(m, start, m.start("e"), "jl_u")
    liang = _liang(m, d, "jl_n")
    if jin is None or not liang:
        return
    if food_in_clause(d, m):
        d.measures.extend((len(d.numbers) - 2, len(d.numbers) - 1))
        return
    bare_weight(d, start, jin["value"] + liang, d.words.body.jin)


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


def measure_pairs(d: Draft) -> None:
    """身高/体重：70.5/8.3, 体重、身高 9.5、72: two measures named together, their values after them in
    the same order (a form's line), both in a child's range: the height, and the weight unless one
    was read already."""
    jin = d.words.body.jin
    for m in d.words.body.pair.finditer(d.text):
        first, second = float(m.group("a")), float(m.group("b"))
        height, weight = (first, second) if m.group("h1") else (second, first)
        unit = jin if m.group("u") == jin and m.group("h1") else "kg"  # 70.5/16.6斤: the weight's unit
        kilograms = weight * (0.5 if unit == jin else 1)
        if not (_HEIGHT_RANGE[0] <= height <= _HEIGHT_RANGE[1] and _WEIGHT_RANGE[0] <= kilograms <= _WEIGHT_RANGE[1]):
            continue
        if d.others(m.start()):
            continue
        d.height = round(height, 1)  # over 身高 9.5 read alone from 体重、身高 9.5、72
        if d.weight is None:
            set_weight(d, m.start(), weight, unit, STATED_RANK)


def _has(d: Draft, start: int) -> bool:
    """A word of the policy's ``body.has`` (有12斤, 已经20斤了) right before ``start`` that opens
    the text or a clause; the first word of the list that ends there decides."""
    text = d.text
    for word in d.words.body.has:
        if text.endswith(word, 0, start):
            before = start - len(word)
            return before == 0 or text[before - 1] in _OPENS
    return False


def _unit_end(d: Draft, start: int) -> int:
    m = d.grammar.weight_unit.match(d.text, start)
    return m.end() if m else len(d.text) + 1


def set_weight(d: Draft, start: int, value: float, unit: str, rank: int, approximate: bool = False) -> None:
    """The first weight of the highest rank: 出生体重5.3斤，现体重8斤 is 4 kg. The writer's own
    weight with a patient word after it ranks below every weight of the patient's."""
    if rank == BIRTH_RANK or (d.weight is not None and rank <= d.weight_rank):
        return  # a birth weight is a past value (SPEC §4.4 revision 2): it never fills
    if supposed(d, start):
        return
    half = unit == d.words.body.jin  # a 斤 is half a kilogram
    if d.subjects is None:  # everything is the patient's
        d.weight, d.weight_rank = round(float(value * (0.5 if half else 1)), 2), rank
        d.weight_approximate = approximate
        return
    owner = d.owner(start)
    if owner == WRITER:
        rank -= _WRITER_RANKS
    if owner != OTHER and (d.weight is None or rank > d.weight_rank):
        d.weight, d.weight_rank = round(float(value * (0.5 if half else 1)), 2), rank
        d.weight_approximate = approximate


def bare_weight(d: Draft, start: int, value: float, unit: str) -> None:
    """A weight without 体重: said as the current one (现在150斤), a few characters after the age in
    its sentence (十七个月男宝，12公斤), or opening a clause after the age's (宝宝17个月，不爱吃饭，22斤)."""
    text, b = d.text, d.words.body
    if text.endswith(b.change, 0, start):
        return  # 体重增加一斤半: how much it changed
    end = _unit_end(d, start)
    if b.birth.search(text, max(0, start - _BIRTH_REACH), start):
        rank = BIRTH_RANK
    elif b.current.search(text, max(0, start - _CURRENT_REACH), start):
        rank = CURRENT_RANK
    elif text.endswith(b.later_moments, 0, start):
        rank = MOMENT_RANK
    elif start == 0 and b.own_clause.match(text, end):
        rank = STATED_RANK  # 7.5公斤, 12斤左右吧: the clause is the weight
    elif _has(d, start) and (b.own_clause.match(text, end) or text.startswith(b.reached, end)):
        rank = STATED_RANK  # 有12斤, 有20斤了: said as reached
    elif d.age_end >= 0 and d.age_end <= start and d.same_sentence(d.age_end, start) and (
        start - d.age_end <= _WEIGHT_AFTER_AGE or d.text[start - 1] in _CLAUSE_OPENERS
    ):
        rank = STATED_RANK
    else:
        return
    set_weight(d, start, value, unit, rank, approximate=text.startswith(d.words.numbers.more, end))


HANDLERS: dict[str, Handler] = {
    "wt": on_weight,
    "wt2": on_weight,
    "jl": on_jin_liang,
    "ht": on_height,
    "metre": on_metres,
}
