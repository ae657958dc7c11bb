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
from .draft import NUM, Draft, supposed

# "Almost N" before an age (快两岁, 宝宝快三个月, 出生将近40天) and after it (3周岁差点): N, and under N.
ALMOST = ("快要", "快", "将近", "马上", "就要", "差不多")
ALMOST_AFTER = ("差一点", "差点", "差几", "差不多")
_BELOW = ("还不到", "不到", "还没到", "没到", "还没满", "还未满", "没满", "未满", "不满", *ALMOST)
_BETWEEN = ("才", "刚", "还", "现在", "目前", "今天", "出生", "生下来", "今年")
_BOUND_SPAN = "个半月|个月|周(?!岁)|个?星期|个?礼拜|天"
# 新生儿 and the words of a first month (未满月, 满月, 刚出生): a month at most. 满月酒 / 满月照 are an event.
_NEWBORN_WORDS = "新生儿|刚出生|出生不久|满月(?![酒宴照])"
_NEWBORN_DAYS = 30
# An upper bound counts a month as 30 days: 不到3个月 is under 90 days, the policy's three months.
_BOUND_DAYS = {"个月": 30, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7, "个礼拜": 7, "天": 1}


def almost_days(count: float, span: str) -> float:
    """"Almost ``count`` ``span``" (快三个月, 快四十天) as an upper bound in days, counted as ``bound`` counts."""
    return count * _BOUND_DAYS[span.replace("多", "").replace("几", "")]


class UpperBounds:
    """The lowest upper bound of the child's age a text states, in days (``bound``)."""

    def __init__(self, kid_words: tuple[str, ...]) -> None:
        kids = "|".join(re.escape(w) for w in sorted(kid_words, key=len, reverse=True))
        below = "|".join(map(re.escape, _BELOW))
        between = "|".join(map(re.escape, _BETWEEN))
        self._find = re.compile(
            f"(?:(?:{kids})[ \\t]*(?:{between})?|出生[ \\t]*)(?:{below})[ \\t]*(?P<n>{NUM})(?P<u>{_BOUND_SPAN})"
            f"|(?:{below})[ \\t]*(?P<n2>{NUM})(?P<u2>{_BOUND_SPAN})(?=大|的?(?:{kids}))"
            f"|(?P<newborn>{_NEWBORN_WORDS})"
        ).finditer
        # Every bound holds one of these words. Their alternation opens with literals, so sre skips
        # in C to a first character; ``_find`` opens with groups and is tried at every position (4 µs
        # on a dev text): most texts with a fever and no young age have none.
        self._hint = re.compile(f"{below}|{_NEWBORN_WORDS}").search

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
                days = None if count is None else (count + 0.5) * 30 if unit == "个半月" else count * _BOUND_DAYS[unit]
            if days is not None and (lowest is None or days < lowest):
                lowest = days
        return lowest

