"""The body temperature families of the slot grammar (policy ``[slots.temperatures]`` and
``[slots.temperature_context]``, ``app/router/policy/slot_temps.py``): their ``{NUMERALS}``
placeholder the numerals' characters, and the readers taking their words from them (the refusals
on load are test_slot_words' table)."""

from __future__ import annotations

from datetime import date

import pytest

from app.router.numerals import CHARS
from app.router.policy import load_policy, parse_policy
from app.router.slots import SlotExtractor
from app.router.text import views

from .shipped import SHIPPED, edit



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
