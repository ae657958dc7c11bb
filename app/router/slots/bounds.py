"""Upper bounds (SPEC §4.7 revision 3): an age said as "not yet N" — 宝宝不到3个月, 孩子还没满两个月,
宝宝快三个月了 ("almost N" is under N), 出生不到10周, 新生儿, 刚出生, 未满月 / 满月. "Not yet N" fills
no ``age_years`` (an upper bound is no age); "almost N" fills N there, ``approximate`` (SPEC §4.4
revision 3, read by ``ages``, which hands its bound to ``Draft.age_below``). Only the infant-fever
rule asks for the bounds, and only of a text with a fever and no age under its limit — so a pass of
its own there (``UpperBounds``), not a branch of the shared scan that every text pays for.

A bound needs a child word or 出生 right before it, or 大 / a child word right after it: 咳嗽快3个月了
and 不到两个月就复发 are durations, not ages.
"""

from __future__ import annotations

import re

from ..numerals import parse_number
from ..policy.slot_types import either
from ..policy.slots import SlotWords
from .draft import NUM, Draft, supposed

# 新生儿 and the words of a first month (policy ``bounds.newborn``: 未满月, 满月, 刚出生): a month at most.
_NEWBORN_DAYS = 30
# A half month (``bounds.half_month``: 不到两个半月) counts 30 days, as the policy's months do.
_HALF_MONTH_DAYS = 30


def almost_days(words: SlotWords, count: float, span: str) -> float:
    """"Almost ``count`` ``span``" (快三个月, 快四十天) as an upper bound in days, counted as ``bound`` counts
    (policy ``bounds.days``; a lower bound's 多 / 几 left out: 快三个多月 is under three months)."""
    b = words.bounds
    for vague in b.vague:
        span = span.replace(vague, "")
    return count * b.days[span]


class UpperBounds:
    """The lowest upper bound of the child's age a text states, in days (``bound``)."""

    def __init__(self, kid_words: tuple[str, ...], words: SlotWords) -> None:
        b = words.bounds
        kids = "|".join(re.escape(w) for w in sorted(kid_words, key=len, reverse=True))
        below = either(b.below + b.almost)
        between = either(b.between)
        born, old, of = re.escape(b.born), re.escape(b.old), re.escape(words.numbers.possessive)
        self._find = re.compile(
            f"(?:(?:{kids})[ \\t]*(?:{between})?|{born}[ \\t]*)(?:{below})[ \\t]*(?P<n>{NUM})(?P<u>{b.spans})"
            f"|(?:{below})[ \\t]*(?P<n2>{NUM})(?P<u2>{b.spans})(?={old}|{of}?(?:{kids}))"
            f"|(?P<newborn>{b.newborn})"
        ).finditer
        # Every bound holds one of these words. Their alternation opens with literals, so sre skips
        # in C to a first character; ``_find`` opens with groups and is tried at every position (4 µs
        # on a dev text): most texts with a fever and no young age have none.
        self._hint = re.compile(f"{below}|{b.newborn}").search
        self._days, self._half_month = b.days, b.half_month

    def bound(self, d: Draft) -> float | None:
        lowest = d.age_below  # the "almost N" the age readers filled (宝宝快三个月 → 90 days)
        if self._hint(d.text) is None:
            return lowest
        for m in self._find(d.text):
            if d.others(m.start()) or supposed(d, m.start()):
                continue
            if m.group("newborn"):
                days: float | None = _NEWBORN_DAYS
            else:
                count = parse_number(m.group("n") or m.group("n2"))
                unit = m.group("u") or m.group("u2")
                days = (
                    None if count is None
                    else (count + 0.5) * _HALF_MONTH_DAYS if unit == self._half_month else count * self._days[unit]
                )
            if days is not None and (lowest is None or days < lowest):
                lowest = days
        return lowest
