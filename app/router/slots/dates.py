"""Dates and windows: calendar dates (2026-03-05, 3月5日), relative days (昨天, 三天前, 上周三) and
look-back windows (最近7天, 近一个月, 两周内, a bare 两周).

Decisions where the spec is silent (each has a row in tests/router/test_slots.py):

* a date-shaped span that is not a calendar date (2月30日) is neither a date nor numbers;
* 明天 is reference + 1, N周前 reference − 7·N, 上周三 the Wednesday of the previous ISO week;
* a bare week count (两周) is a window unless it is an ordinal (第二周), a frequency (一周三次)
  or a point in time (两周后); a year is 365 days, a month 30;
* 孕22周 / 早孕22周 is no window.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from .draft import CN, NUM, SPAN_UNIT, WEEK, Draft, Handler, led, number
from ..numerals import parse_number

_WITHIN = "(?:以内|之内|内(?!瘘)|以来)"
WEEK_UNITS = frozenset({"周", "星期", "个星期", "礼拜", "个礼拜"})
_DAYS_PER = {"天": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7, "个礼拜": 7, "个月": 30, "年": 365}
_RELATIVE_DAYS = {"今天": 0, "今日": 0, "昨天": -1, "昨日": -1, "前天": -2, "大前天": -3, "明天": 1, "明日": 1}
_RELATIVE_DELTAS = {word: timedelta(days=days) for word, days in _RELATIVE_DAYS.items()}
_ONE_WEEK = timedelta(days=7)
# The reference dates that every relative word resolves against to a date: 上周一 said on a Sunday
# reaches 13 days back, 明天 one day forward (N天前 is checked as it is read).
REFERENCE_RANGE = (date.min + timedelta(days=13), date.max - timedelta(days=1))
_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS.update({str(n): n - 1 for n in range(1, 8)})
# A preceding character that turns 近 into another word: 将近 (nearly), 接近, 靠近, 附近 — the
# number after them is not a window.
_NOT_WINDOW = frozenset("将接靠附")
_PREGNANT = "孕"  # 孕22周, 早孕22周: a pregnancy, not a time window

# After four digits at the match start: 2026-03-05, 2026/3/5, 2026.3.5, 2026年3月5日.
DATE_TAIL = (
    r"(?<![0-9]{5})(?<=[0-9]{4})(?:(?P<sep>[-/.])(?P<m1>[0-9]{1,2})(?P=sep)(?P<d1>[0-9]{1,2})"
    r"|[ \t]*年[ \t]*(?P<m2>[0-9]{1,2})[ \t]*月[ \t]*(?P<d2>[0-9]{1,2})[ \t]*[日号]?)(?![0-9])"
)
# Unit tails (after a number at the match start): 3月5日, 三天前, 7天内.
TAILS = {
    "md": f"月[ \\t]*(?P<dd>[0-9]{{1,2}}|{CN})[ \\t]*[日号]",
    "ago": f"(?P<ago_u>天|{WEEK})(?:以前|之前|前)",
    "wsuf": f"(?P<wsuf_u>{SPAN_UNIT}){_WITHIN}",
}
# Context-led branches (first characters, body): 最近7天, 昨天, 上周三.
LED = {
    "win": (
        "最过近",
        led("最近", "过去", "近") + "(?:的|这)?[ \\t]*" + number("win") + f"[ \\t]*(?P<win_u>{SPAN_UNIT}){_WITHIN}?",
    ),
    "rel": (
        "大前昨今明上",
        "(?:(?<=大)前天|(?<![之以提]前)(?<=前)天|(?<=[昨今明])[天日]"
        "|(?<=上)个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7](?![0-9次回遍个天周]))?)",
    ),
}


def on_ymd(m: re.Match[str], d: Draft) -> None:
    year = int(d.text[m.start() : m.start("e")])
    if m.group("sep"):
        add_calendar_date(d, year, m.group("m1"), m.group("d1"))
    else:
        add_calendar_date(d, year, m.group("m2"), m.group("d2"))


def on_md(m: re.Match[str], d: Draft) -> None:
    add_calendar_date(d, d.reference.year, d.text[m.start() : m.start("e")], m.group("dd"))


def on_relative(m: re.Match[str], d: Draft) -> None:
    delta = _RELATIVE_DELTAS.get(m.group())
    try:
        if delta is not None:
            d.add_date(d.reference + delta)
        elif m.group("wd"):  # 上周三: the Wednesday of the previous week
            monday = d.reference - timedelta(days=d.reference.weekday() + 7)
            d.add_date(monday + timedelta(days=_WEEKDAYS[m.group("wd")]))
        else:
            d.add_date(d.reference - _ONE_WEEK)
    except OverflowError:
        return  # past year 1 or 9999 (a reference outside REFERENCE_RANGE, given in Python): not a date


def on_ago(m: re.Match[str], d: Draft) -> None:
    value = parse_number(d.text[m.start() : m.start("e")])
    if value is None or isinstance(value, float):
        return  # 三四天前, 1.5天前: not one day
    try:
        d.add_date(d.reference - timedelta(days=value * _DAYS_PER[m.group("ago_u")]))
    except OverflowError:
        return  # before year 1: not a date


def on_window(m: re.Match[str], d: Draft) -> None:
    if m.lastgroup == "win":
        quantity, unit = d.quantity(m, *m.span("win_n"), "win_u"), m.group("win_u")
        if d.text[m.start()] == "近" and m.start() and d.text[m.start() - 1] in _NOT_WINDOW:
            return
    else:
        quantity, unit = d.quantity(m, m.start(), m.start("e"), "wsuf_u"), m.group("wsuf_u")
    if quantity is not None and d.window is None and (d.subjects is None or not d.others(m.start())):
        d.window = round_half_up(quantity["value"] * _DAYS_PER[unit])


def add_calendar_date(d: Draft, year: int, month: str, day: str) -> None:
    month_value, day_value = parse_number(month), parse_number(day)
    if not isinstance(month_value, int) or not isinstance(day_value, int):
        return
    try:
        d.add_date(date(year, month_value, day_value))
    except ValueError:
        return  # 2月30日: shaped like a date, not one; its numbers are not quantities either


_FREQUENCY = re.compile(f"[ \\t]*(?:{NUM}|几)[ \\t]*[次回顿]")


def is_bare_span(d: Draft, m: re.Match[str]) -> bool:
    """两周 alone is a window; 第二周, 每两周, 一周三次 and 两周后 are not."""
    start, end = m.span()
    if start and d.text[start - 1] in "第每":
        return False
    if _PREGNANT in d.text[max(0, start - 2) : start]:
        return False  # 孕22周, 早孕22周: weeks of a pregnancy
    if d.text.startswith(("后", "以后", "之后"), end):
        return False
    return _FREQUENCY.match(d.text, end) is None


def round_half_up(value: float) -> int:
    return int(value + 0.5)


HANDLERS: dict[str, Handler] = {
    "ymd": on_ymd,
    "md": on_md,
    "rel": on_relative,
    "ago": on_ago,
    "win": on_window,
    "wsuf": on_window,
}
