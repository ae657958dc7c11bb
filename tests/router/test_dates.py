"""Dates at the ends of the calendar (issue 11, point 6): an argument error or no date, never a crash.

A ``reference_date`` whose relative dates (明天 one day on, 上周一 up to 13 days back) could fall
off the calendar is an INVALID_ARGUMENT on ``reference_date`` whose message does not echo it; a
date written in the text that is not on the calendar is simply not a date.
"""

from __future__ import annotations

from datetime import date

import pytest

from app.router import ArgumentError, Router, load_policy

ROUTER = Router(load_policy())
TOOLS = {
    "extract_slots": lambda text, ref: {"text": text, "reference_date": ref},
    "route_request": lambda text, ref: {"text": text, "caller": "doctor_assistant", "reference_date": ref},
}

REFUSED = [
    ("9999-12-31 and 明天", "9999-12-31", "明天复查化验"),
    ("9999-12-31 without a relative word", "9999-12-31", "复查化验"),
    ("0001-01-01 and 昨天", "0001-01-01", "昨天查的化验"),
    ("0001-01-01 and 上周三", "0001-01-01", "上周三查的化验"),
    ("0001-01-13, a day too early for 上周一", "0001-01-13", "上周一查的化验"),
]

ACCEPTED = [
    ("0001-01-14 (a Sunday) and 上周一 reaches 0001-01-01", "0001-01-14", "上周一查的化验", ["0001-01-01"]),
    ("9999-12-30 and 明天 reaches 9999-12-31", "9999-12-30", "明天复查化验", ["9999-12-31"]),
    ("0001-01-14 and 大前天", "0001-01-14", "大前天查的化验", ["0001-01-11"]),
]


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(("reference", "text"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_reference_date_at_the_calendar_ends_is_an_argument_error(tool, reference, text):
    with pytest.raises(ArgumentError) as info:
        ROUTER.call(tool, TOOLS[tool](text, reference))
    error = info.value.as_dict()["error"]
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "reference_date")
    assert reference not in error["message"]


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(("reference", "text", "dates"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_a_reference_date_inside_the_range_resolves(tool, reference, text, dates):
    result = ROUTER.call(tool, TOOLS[tool](text, reference))
    assert getattr(result, "slots", result).date == dates


@pytest.mark.parametrize(("reference", "dates"), [(date.max, ["9999-12-30", "9999-12-22"]), (date.min, ["0001-01-02"])],
                         ids=["date.max", "date.min"])
def test_a_python_caller_past_the_range_gets_no_date_rather_than_a_crash(reference, dates):
    """Router methods take a ``date`` without ``call``'s validation: what would fall off the
    calendar is not a date (date.max, a Friday: no 明天; date.min, a Monday: no 昨天, no 上周三)."""
    assert ROUTER.extract_slots("明天 昨天 上周三", reference).date == dates


TEXT_DATES = [
    ("a day count past year 1", "99999999999天前复查", []),
    ("a week count past year 1", "300000周前复查", []),
    ("year 0", "0000年1月1日和0000-01-01复查", []),
    ("a five-digit year is no date", "10000-01-01复查", []),
    ("the last calendar day is a date", "9999年12月31日复查", ["9999-12-31"]),
    ("the first calendar day is a date", "0001-01-01复查", ["0001-01-01"]),
    ("2月30日 is no date", "2月30日复查", []),
]


@pytest.mark.parametrize(("text", "dates"), [r[1:] for r in TEXT_DATES], ids=[r[0] for r in TEXT_DATES])
def test_a_date_in_the_text_off_the_calendar_is_no_date(text, dates):
    assert ROUTER.extract_slots(text, "2026-03-10").date == dates
    assert ROUTER.route_request(text, "doctor_assistant", "P0001", "2026-03-10").slots.date == dates
