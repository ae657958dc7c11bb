"""Foods and portions: the dictionary words (foods, analytes, meals) come from the policy lexicon's
one Aho-Corasick scan; here is what the numeric scan needs of them — whether a portion belongs to a
food, and which analyte words name a result at all.

Decisions where the spec is silent (each has a row in tests/router/test_slots.py):

* 斤 / 两 (policy ``portions.food_bound_units``) are food measures only with a food in the same
  clause (长了两斤 is not a portion);
* a salt inside a medicine name (氯化钠注射液) is no analyte.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ..lexicon import Hit
from ..text import CLAUSE_ENDS, LIST_MARK
from .draft import START, Draft

# A portion's clause ends at a clause end or a list mark.
_CLAUSE = re.compile(f"[{CLAUSE_ENDS}{LIST_MARK}]")


def food_in_clause(d: Draft, m: re.Match[str]) -> bool:
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
    first = bisect_left(d.foods, lo, key=START)  # the first food opening in the clause ends first
    return first < len(d.foods) and d.foods[first].end <= hi


def outside(analytes: list[Hit], medicines: list[Hit]) -> list[Hit]:
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
