"""The body temperature families of the slot grammar (policy ``[slots.temperatures]`` and
``[slots.temperature_context]``, ``app/router/policy/slot_temps.py``): validated on load, their
``{NUMERALS}`` placeholder the numerals' characters, and the readers taking their words from them."""

from __future__ import annotations

from datetime import date

import pytest

from app.router import PolicyError
from app.router.numerals import CHARS
from app.router.policy import default_policy_bytes, load_policy, parse_policy
from app.router.slots import SlotExtractor
from app.router.text import views

SHIPPED = default_policy_bytes().decode()


def edit(old: str, new: str) -> bytes:
    assert SHIPPED.count(old) == 1, old
    return SHIPPED.replace(old, new).encode()


REFUSED = [
    ("after_word without its range's upper end", edit("(?P<n2>[0-9]+", "([0-9]+"), "slots.temperatures", "needs the groups ['n2']"),
    ("the day pattern without its second day group", edit("(?P<d2>[1-3]?[0-9])", "([1-3]?[0-9])"), "slots.temperature_context",
     "needs the groups ['d2']"),
    ("a pattern that writes the comma", edit("[号日早晚上下中凌当今出{CLAUSE_ONLY}]", "[号日早晚上下中凌当今出,]"),
     "slots.temperature_context.day", "writes clause punctuation"),
    ("an unknown placeholder", edit("(?:[0-9.]+|[{NUMERALS}]+)[ \\t]*(?:度", "(?:[0-9.]+|[{DIGITS}]+)[ \\t]*(?:度"),
     "slots.temperatures.reading", "unknown placeholder {DIGITS}"),
    ("a particle listed twice", edit('particles = ["多", "左右"', 'particles = ["多", "多", "左右"'), "slots.temperatures.particles",
     "listed twice"),
]


@pytest.mark.parametrize("data, where, reason", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_bad_temperature_family_is_refused_with_its_reason(data, where, reason):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert any(where in p and reason in p for p in info.value.problems), info.value.problems


def test_numerals_name_the_numerals_characters():
    reading = load_policy().slot_words.temperatures.reading
    assert f"[{CHARS}]" in reading.pattern and "{NUMERALS}" not in reading.pattern
    assert reading.fullmatch("三十八度五") is not None


def temperature(policy_bytes: bytes, text: str) -> float | None:
    policy = parse_policy(policy_bytes)
    views_ = views(text)
    return SlotExtractor(policy).extract(views_, policy.lexicon.scan(views_.text), date(2026, 12, 1), "v").temperature_c


ROWS = [
    ("below_before 没到 is an upper bound, no reading", SHIPPED.encode(), "宝宝发烧，体温没到38度", None),
    ("without 没到 the same words are a reading", edit('"没超过", "没到", "没有到"', '"没超过", "没有到"'), "宝宝发烧，体温没到38度", 38.0),
    ("ago_units 个多月: 两个多月前 dates the fever two months back (it raised KeyError)", SHIPPED.encode(), "两个多月前发烧39度", None),
    ("a now cue after it: today's reading", SHIPPED.encode(), "两个多月前发烧过一次，今天又烧到39度", 39.0),
]


@pytest.mark.parametrize("data, text, expected", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_the_temperature_readers_take_their_words_from_the_policy(data, text, expected):
    assert temperature(data, text) == expected
