"""Ages said by a milestone: 满月 and 满周岁 — reached (刚满月), almost (快满月, SPEC §4.4 revision 3),
not yet (未满月) or a moment (满月的时候) — and an age about to be reached, less the days still to go
(还有十天三个月了). The shared scan's branches for them are in ``ages``.
"""

from __future__ import annotations

import re

from ..numerals import CHARS
from .bounds import ALMOST
from .draft import Draft

# Days and months add up (三个月零八天, 一个月加十天): a month counts 30.4 days, a year 365 (SPEC §4.4).
DAYS_PER_MONTH = 30.4
# The age a child is about to reach, less the days still to go (还有十天三个月了, 差5天满13个月).
_TO_GO = ("还有", "还差", "差", "再过", "还剩")
# Before 满月: not reached yet (未满月), or a plan for when it is (打算满月再…, 等满月); 快满月 is
# "almost" (``ALMOST``, SPEC §4.4 revision 3).
_NOT_FULL_MONTH = ("未", "没", "不到", "没有", "还没", "将要", "等", "打算", "准备")
_PAST_FULL_MONTH = ("出了", "过了", "过完", "从")
# After 满月: since then (满月后就一直…, 满月以后都是…) — what has been so since, not the age now.
# Or 满月 as a moment or an event, not the age: 满月的时候, 满月时, 满月再加, 满月照 / 满月酒, 满月体重,
# 满月九斤 (a weight taken then).
_SINCE_FULL_MONTH = re.compile(
    f"(?:后|以后|之后)(?:就|一直|都|开始)|开始|起|的?时候|时|那天|前|之前|再|照|酒|宴|礼|体重|称|[0-9.{CHARS}]+(?:斤|公斤|千克|kg)"
)


def set_days(m: re.Match[str], d: Draft, days: float, approximate: bool = False, current: bool = False) -> None:
    # Rounded to two decimals once, in ``set_age``: 三个月零八天 is (3 × 30.4 + 8) / 365 = 0.27.
    d.set_age(m.start(), m.end(), days / 365, approximate=approximate, current=current)

def on_full_month(m: re.Match[str], d: Draft) -> None:
    """满月 (刚满月, 满月了) is one month old, 满周岁 / 刚周岁 one year; 未满月 / 没满月 / 不到满月 is
    less, and no age; 出了满月 / 过完满月 / 从满月 / 满月开始 tell when something happened or
    since when, not the age."""
    start = m.start()  # the 满 or 刚: a led match starts at its first character
    since = _SINCE_FULL_MONTH.match(d.text, m.end())
    if since is not None:
        return  # 满月后就一直…: since then, the age now unknown
    if not d.text.endswith(_NOT_FULL_MONTH + _PAST_FULL_MONTH, 0, start):
        month = d.text[m.end() - 1] == "月"
        almost = d.text.endswith(ALMOST, 0, start)
        below = (30 if month else 365) if almost else None
        d.set_age(start, m.end(), 1 / 12 if month else 1.0, approximate=almost, below=below)


def on_age_to_go(m: re.Match[str], d: Draft) -> None:
    """还有十天三个月了, 差5天满13个月, 还有一个星期就两岁: "almost N" said with the days to go, which
    fills N, ``approximate`` and under N, as 快三个月 does (SPEC §4.4 revision 3). Without 还有 / 差
    before it (住了10天3个月…) both stay plain numbers."""
    start = m.start()
    days = d.quantity(m, start, m.start("e"), "msub_d")
    age = d.quantity(m, *m.span("msub_n"), "msub_u")
    if days is None or age is None or not d.text.endswith(_TO_GO, 0, start):
        return
    days_to_go = days["value"] * (1 if m.group("msub_d") == "天" else 7)
    months = m.group("msub_u") == "个月"
    if days_to_go < age["value"] * (DAYS_PER_MONTH if months else 365):
        years = age["value"] / 12 if months else float(age["value"])
        d.set_age(start, m.end(), years, approximate=True, below=age["value"] * (30 if months else 365))
