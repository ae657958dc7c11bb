"""Lab values (SPEC §4.7 revision 3, "One reading of every value"): which number of a text is the
value of which analyte word. The one reader of an analyte's value: the gate's critical values
(``analysis``) take their numbers from it and only compare them with the policy's thresholds.

A number belongs to at most one analyte word — a word of the policy's critical values (血钾, 钾, K)
or of the slot dictionary (钠, 肌酐) — of its clause (a sentence cut at commas, ``text.py``):

* the nearest word before it in its clause (血钾6.9, 钾离子化验单上写的6.9; 钠140钾6.9: 140 is 钠's);
* with no word before it in its clause, the nearest word after it there, when that word has no
  number after it in the clause (6.9这个钾值; 体重6.8钾4.5: 4.5 is 钾's, 6.8 nobody's);
* in a clause that names no analyte, the last word of the clause before it in the same sentence,
  when that word has no number after it in its own clause (钾那一项，6.9) or the clause opens with a
  time cue (血钾以前6.8，今天7.2 — SPEC §4.7 "Every value is read").

A number inside an analyte word (hco3) is part of the word; one Chinese numeral character is a
count (那一项, 一直), no value. Numbers are read once per text, from
the clause of the first critical word on, and each is given its word by one merge: linear in the
text however many words it repeats (钾 written 2,000 times, bench/adversarial_bench.py).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache
from typing import NamedTuple

from .. import numerals
from ..lexicon import Hit
from ..text import CLAUSE_ENDS, COMMA

_CLAUSE_MARK = re.compile(f"[{CLAUSE_ENDS}]")
_COMMA = frozenset(COMMA)  # the mark that cuts a clause and not its sentence


@lru_cache(maxsize=8)
def number_pattern(units: str) -> re.Pattern[str]:
    """A number in Arabic digits or a Chinese numeral (七点二), and whatever unit-like text follows
    it, by the policy's ``lab_values.units`` (毫摩尔/升 and 毫摩尔每升 whole: a unit read character by
    character would stop at 毫). Compiled once per policy (a policy holds one)."""
    return re.compile(rf"(?<![a-z0-9.])(\d+(?:\.\d+)?|[{numerals.CHARS}]+)(?![\d.])\s*({units})?")


class Value(NamedTuple):
    start: int  # of the number
    end: int
    value: int | float
    unit: str | None  # as folded, None when the number has none
    rule: int  # the payload of the critical word it belongs to: the critical-value rule's index


def critical_values(text: str, words: list[Hit], analytes: list[Hit], opening: re.Pattern[str] | None,
                    units: str) -> list[Value]:
    """The numbers that belong to a critical word (``words``, the lexicon's "critical" group, in
    text order), each with its rule's index. ``analytes``: the slot dictionary's analyte words (a
    number of another analyte is that analyte's); ``opening``: the time cues at a clause's start;
    ``units``: the policy's ``lab_values.units``."""
    if not words:
        return []
    marks = [m.start() for m in _CLAUSE_MARK.finditer(text)]
    anchors = _anchors(words, analytes)
    starts = [a[0] for a in anchors]
    first = marks[bisect_left(marks, words[0].start) - 1] + 1 if bisect_left(marks, words[0].start) else 0
    # One Chinese numeral character is a count (那一项, 一直, 两次), not a value: 七点二 and 六点九 are.
    numbers = [
        m for m in number_pattern(units).finditer(text, first)
        if m.end(1) - m.start(1) > 1 or "0" <= text[m.start(1)] <= "9"
        if not _inside(anchors, starts, m.start(1))
    ]
    positions = [m.start(1) for m in numbers]
    found: list[Value] = []
    for m in numbers:
        owner = _owner(text, m.start(1), marks, anchors, starts, positions, opening)
        if owner is None or owner[2] < 0:
            continue
        value = numerals.parse_number(m.group(1))
        if value is not None:
            found.append(Value(m.start(1), m.end(1), value, m.group(2), owner[2]))
    return found


def _anchors(words: list[Hit], analytes: list[Hit]) -> list[tuple[int, int, int]]:
    """Every analyte word as (start, end, rule index; -1 for an analyte no critical rule reads), in
    text order; a dictionary word that overlaps a critical word is that word (血钾 is in both)."""
    covered = {i for w in words for i in range(w.start, w.end)}
    merged = [(w.start, w.end, int(w.payload)) for w in words]
    merged += [(h.start, h.end, -1) for h in analytes if not any(i in covered for i in range(h.start, h.end))]
    merged.sort()
    return merged


def _inside(anchors: list[tuple[int, int, int]], starts: list[int], position: int) -> bool:
    index = bisect_right(starts, position)
    return index > 0 and position < anchors[index - 1][1]


def _owner(
    text: str, position: int, marks: list[int], anchors: list[tuple[int, int, int]], starts: list[int],
    numbers: list[int], opening: re.Pattern[str] | None,
) -> tuple[int, int, int] | None:
    clause = bisect_left(marks, position)  # the clause's index: the marks before the number
    low = marks[clause - 1] + 1 if clause else 0
    high = marks[clause] if clause < len(marks) else len(text)
    index = bisect_left(starts, position)
    before = anchors[index - 1] if index else None
    if before is not None and before[0] >= low:
        return before
    after = anchors[index] if index < len(anchors) else None
    if after is not None and after[0] < high:
        return None if _number_after(numbers, after[1], high) else after
    # No word in the number's clause: the last word of the clause before, in the same sentence.
    if before is None or clause == 0 or text[marks[clause - 1]] not in _COMMA:
        return None
    previous = marks[clause - 2] + 1 if clause > 1 else 0
    if before[0] < previous:
        return None
    if not _number_after(numbers, before[1], marks[clause - 1]) or (opening is not None and opening.match(text, low)):
        return before
    return None


def _number_after(numbers: list[int], start: int, end: int) -> bool:
    index = bisect_left(numbers, start)
    return index < len(numbers) and numbers[index] < end
