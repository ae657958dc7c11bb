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

from ..numerals import parse_number
from ..policy.slot_types import either
from ..policy.slots import SlotWords
from .draft import CN, NUM, Draft, Handler, led, number

_ONE_WEEK = timedelta(days=7)
# The reference dates that every relative word resolves against to a date: 上周一 said on a Sunday
# reaches 13 days back, 明天 one day forward (N天前 is checked as it is read).
REFERENCE_RANGE = (date.min + timedelta(days=13), date.max - timedelta(days=1))
# How far before a week count its pregnancy word may be (孕22周, 早孕22周).
_PREGNANT_REACH = 2


def span_unit(words: SlotWords) -> str:
    """The units of a time window: the day (the first of ``dates.span_units``), the week's own
    pattern, then the other units (a month, a year)."""
    day, *longer = words.dates.span_units
    return "|".join([re.escape(day), words.dates.week, *map(re.escape, longer)])


def date_tail(words: SlotWords) -> str:
    """After four digits at the match start: 2026-03-05, 2026/3/5, 2026.3.5, 2026年3月5日."""
    w = words.dates
    year, month, day = re.escape(w.year), re.escape(w.month), "".join(w.day)
    return (
        r"(?<![0-9]{5})(?<=[0-9]{4})(?:(?P<sep>[-/.])(?P<m1>[0-9]{1,2})(?P=sep)(?P<d1>[0-9]{1,2})"
        rf"|[ \t]*{year}[ \t]*(?P<m2>[0-9]{{1,2}})[ \t]*{month}[ \t]*(?P<d2>[0-9]{{1,2}})[ \t]*[{day}]?)(?![0-9])"
    )


def tails(words: SlotWords) -> dict[str, str]:
    """Unit tails (after a number at the match start): 3月5日, 三天前, 7天内."""
    w = words.dates
    return {
        "md": f"{re.escape(w.month)}[ \\t]*(?P<dd>[0-9]{{1,2}}|{CN})[ \\t]*[{''.join(w.day)}]",
        "ago": f"(?P<ago_u>{re.escape(w.span_units[0])}|{w.week})(?:{either(w.ago)})",
        "wsuf": f"(?P<wsuf_u>{span_unit(words)}){w.within}",
    }


def led_branches(words: SlotWords) -> dict[str, tuple[str, str]]:
    """Context-led branches (first characters, body): 最近7天, 昨天, 上周三."""
    w = words.dates
    return {
        "win": (
            "".join(dict.fromkeys(word[0] for word in w.window_words + (w.window_short,))),
            led(*w.window_words, w.window_short) + f"(?:{either(w.window_fill)})?[ \\t]*" + number("win")
            + f"[ \\t]*(?P<win_u>{span_unit(words)}){w.within}?",
        ),
        "rel": ("".join(w.relative_first), w.relative),
    }


def frequency(words: SlotWords) -> re.Pattern[str]:
    """A frequency after a week count (一周三次): no window."""
    return re.compile(f"[ \\t]*(?:{NUM}|{either(words.dates.some)})[ \\t]*[{''.join(words.dates.frequency)}]")


def on_ymd(m: re.Match[str], d: Draft) -> None:
    year = int(d.text[m.start() : m.start("e")])
    if m.group("sep"):
        add_calendar_date(d, year, m.group("m1"), m.group("d1"))
    else:
        add_calendar_date(d, year, m.group("m2"), m.group("d2"))


def on_md(m: re.Match[str], d: Draft) -> None:
    add_calendar_date(d, d.reference.year, d.text[m.start() : m.start("e")], m.group("dd"))


def on_relative(m: re.Match[str], d: Draft) -> None:
    days = d.words.dates.relative_days.get(m.group())
    try:
        if days is not None:
            d.add_date(d.reference + timedelta(days=days))
        elif m.group("wd"):  # 上周三: the Wednesday of the previous week
            monday = d.reference - timedelta(days=d.reference.weekday() + 7)
            wd = m.group("wd")
            d.add_date(monday + timedelta(days=int(wd) - 1 if "0" <= wd <= "9" else d.words.dates.weekdays[wd]))
        else:
            d.add_date(d.reference - _ONE_WEEK)
    except OverflowError:
        return  # past year 1 or 9999 (a reference outside REFERENCE_RANGE, given in Python): not a date


def on_ago(m: re.Match[str], d: Draft) -> None:
    value = parse_number(d.text[m.start() : m.start("e")])
    if value is None or isinstance(value, float):
        return  # 三四天前, 1.5天前: not one day
    try:
        d.add_date(d.reference - timedelta(days=value * d.words.dates.days_per[m.group("ago_u")]))
    except OverflowError:
        return  # before year 1: not a date


def on_window(m: re.Match[str], d: Draft) -> None:
    if m.lastgroup == "win":
        quantity, unit = d.quantity(m, *m.span("win_n"), "win_u"), m.group("win_u")
        w = d.words.dates
        # 将近 (nearly), 接近, 靠近, 附近: the number after them is no window.
        if m.start() and d.text.startswith(w.window_short, m.start()) and d.text[m.start() - 1] in w.not_window:
            return
    else:
        quantity, unit = d.quantity(m, m.start(), m.start("e"), "wsuf_u"), m.group("wsuf_u")
    if quantity is not None and d.window is None and (d.subjects is None or not d.others(m.start())):
        d.window = round_half_up(quantity["value"] * d.words.dates.days_per[unit])


def add_calendar_date(d: Draft, year: int, month: str, day: str) -> None:
    month_value, day_value = parse_number(month), parse_number(day)
    if not isinstance(month_value, int) or not isinstance(day_value, int):
        return
    try:
        d.add_date(date(year, month_value, day_value))
    except ValueError:
        return  # 2月30日: shaped like a date, not one; its numbers are not quantities either


def is_bare_span(d: Draft, m: re.Match[str]) -> bool:
    """两周 alone is a window; 第二周, 每两周, 一周三次 and 两周后 are not."""
    start, end = m.span()
    w = d.words.dates
    if start and d.text[start - 1] in w.not_span_before:
        return False
    if w.pregnant in d.text[max(0, start - _PREGNANT_REACH) : start]:
        return False  # 孕22周, 早孕22周: weeks of a pregnancy
    if d.text.startswith(w.not_span_after, end):
        return False
    return d.grammar.frequency.match(d.text, end) is None


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
