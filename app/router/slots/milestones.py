"""Ages said by a milestone: 满月 and 满周岁 — reached (刚满月), almost (快满月, SPEC §4.4 revision 3),
not yet (未满月) or a moment (满月的时候) — and an age about to be reached, less the days still to go
(还有十天三个月了). The shared scan's branches for them are in ``ages``.
"""

from __future__ import annotations

import re

from .draft import Draft

# Days and months add up (三个月零八天, 一个月加十天): a month counts 30.4 days, a year 365 (SPEC §4.4).
DAYS_PER_MONTH = 30.4
# An upper bound counts a month as 30 days (``bounds``): 快满月 is under 30 days.
_BOUND_MONTH_DAYS = 30
# The words: policy ``[slots.milestones]`` — the days to go (还有十天三个月了), before 满月 (未满月,
# 出了满月) and after it (满月后就一直…, 满月的时候, 满月九斤); "almost" is ``bounds.almost``.


def set_days(m: re.Match[str], d: Draft, days: float, approximate: bool = False, current: bool = False) -> None:
    # Rounded to two decimals once, in ``set_age``: 三个月零八天 is (3 × 30.4 + 8) / 365 = 0.27.
    d.set_age(m.start(), m.end(), days / 365, approximate=approximate, current=current)

def on_full_month(m: re.Match[str], d: Draft) -> None:
    """满月 (刚满月, 满月了) is one month old, 满周岁 / 刚周岁 one year; 未满月 / 没满月 / 不到满月 is
    less, and no age; 出了满月 / 过完满月 / 从满月 / 满月开始 tell when something happened or
    since when, not the age."""
    start = m.start()  # the 满 or 刚: a led match starts at its first character
    w = d.words.milestones
    if w.since_full_month.match(d.text, m.end()) is not None:
        return  # 满月后就一直…: since then, the age now unknown
    if not d.text.endswith(w.not_full_month + w.past_full_month, 0, start):
        month = d.text[m.end() - 1] == w.month
        almost = d.text.endswith(d.words.bounds.almost, 0, start)
        below = (_BOUND_MONTH_DAYS if month else 365) if almost else None
        d.set_age(start, m.end(), 1 / 12 if month else 1.0, approximate=almost, below=below)


def on_age_to_go(m: re.Match[str], d: Draft) -> None:
    """还有十天三个月了, 差5天满13个月, 还有一个星期就两岁: "almost N" said with the days to go, which
    fills N, ``approximate`` and under N, as 快三个月 does (SPEC §4.4 revision 3). Without 还有 / 差
    before it (住了10天3个月…) both stay plain numbers."""
    start = m.start()
    w = d.words.milestones
    days = d.quantity(m, start, m.start("e"), "msub_d")
    age = d.quantity(m, *m.span("msub_n"), "msub_u")
    if days is None or age is None or not d.text.endswith(w.to_go, 0, start):
        return
    days_to_go = days["value"] * (1 if m.group("msub_d") == w.day else 7)
    months = m.group("msub_u") == w.months
    if days_to_go < age["value"] * (DAYS_PER_MONTH if months else 365):
        years = age["value"] / 12 if months else float(age["value"])
        d.set_age(start, m.end(), years, approximate=True, below=age["value"] * (_BOUND_MONTH_DAYS if months else 365))
