"""Every word of the slot grammar, in every place a parent may write it, is read without an error.

A parent's 两个多月前发烧39度 raised ``KeyError`` on main at 83967c1: the fever-context reader's
"ago" pattern read 个多月, its table of days had no such unit. No table test held that combination,
and random text rarely spells one. So the words come from the policy itself: every short word
of every ``[slots.*]`` family (units, spans, time words, fillers…) after a number and before each
of the tails that give a number its meaning (前, 以来, 内, 了 …), in the sentences the readers
look at (a fever, a reading, an age, a meal), then word against word in a seeded random product.
Each text goes through ``Router.call``, the protocol's entry, for route_request and extract_slots:
the test fails on any exception, on an answer that is not a decision and on a value no reading
may give (a temperature outside 35–43 °C, a negative age, an unparsable date). It asserts nothing
about which decision: the tables do that. (Main's code at 83967c1, given these words, raised on 16 of the
80,400 texts of the first test, in both tools.)
"""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from app.router import load_policy
from scripts.fuzz_words import CALLERS, FACTS, calls, policy_words

POLICY = load_policy()

# A word: a string value of a family (a list's item, a table's key), 1–3 characters, no pattern.
_PATTERN_CHARS = re.compile(r"[\\()\[\]?*+|{}^$.]")


def _grammar_words() -> list[str]:
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            if 1 <= len(value) <= 3 and not _PATTERN_CHARS.search(value):
                found.add(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key in value:
                walk(key)

    words = POLICY.slot_words
    for name in type(words).model_fields:
        family = getattr(words, name)
        for field in type(family).model_fields:
            walk(getattr(family, field))
    return sorted(found)


WORDS = _grammar_words()
NUMBERS = ["两", "3", "十二", "1.5", "半"]
TAILS = ["前", "以前", "以来", "内", "了", "多", "后", ""]
# Where the readers look: a fever then and now, a reading alone, an age, a meal, a bare reply.
FRAMES = ["孩子{}发烧39度，现在还烧吗", "宝宝{}体温38.5", "{}的宝宝能吃鸡蛋吗", "我家孩子{}，吃了一碗粥", "{}"]


def _calls(router, text: str) -> None:
    routed = router.call("route_request", {"text": text, "caller": "parent_assistant", "patient_id": "P0001"})
    assert routed.status in {"proceed", "clarify", "denied", "review", "confirm", "halt"}, routed.status
    slots = router.call("extract_slots", {"text": text, "reference_date": date(2026, 3, 10).isoformat()})
    # What every value must be, whatever the words around it (SPEC §4.4).
    assert slots.temperature_c is None or 35 <= slots.temperature_c <= 43, slots.temperature_c
    assert slots.age_years is None or slots.age_years >= 0, slots.age_years
    assert slots.weight_kg is None or slots.weight_kg > 0, slots.weight_kg
    assert slots.height_cm is None or slots.height_cm > 0, slots.height_cm
    assert slots.time_window_days is None or slots.time_window_days >= 0, slots.time_window_days
    assert all(date.fromisoformat(day) for day in slots.date)
    assert set(slots.approximate) <= set(type(slots).model_fields), slots.approximate


def test_the_grammar_has_words():
    assert len(WORDS) > 300 and {"个多月", "天", "周", "斤", "以内"} <= set(WORDS)


@pytest.mark.parametrize("frame", FRAMES)
def test_every_grammar_word_after_a_number_before_every_tail(router, frame):
    for word in WORDS:
        for number in NUMBERS:
            for tail in TAILS:
                _calls(router, frame.format(number + word + tail))


@pytest.mark.parametrize("seed", range(4))
def test_grammar_words_against_each_other(router, seed):
    rng = random.Random(seed)
    pieces = WORDS + NUMBERS + TAILS[:-1] + ["发烧", "39度", "38.5", "抽搐", "尿少", "，", "。", "?", " "]
    for _ in range(1500):
        _calls(router, "".join(rng.choice(pieces) for _ in range(rng.randint(2, 9))))


# Every word of the whole policy (red flags, cues, intents, facts, slots …), in four places, through
# every text tool, with and without patient facts: the long random search beside this is
# scripts/fuzz_words.py.
POLICY_WORDS = policy_words()


@pytest.mark.parametrize("frame", ["{}", "孩子{}", "宝宝3个月，{}，怎么办", "我家孩子没有{}吗？"])
def test_every_policy_word_through_every_text_tool(router, frame):
    assert len(POLICY_WORDS) > 4000
    for index, word in enumerate(POLICY_WORDS):
        for tool, arguments in calls(frame.format(word), CALLERS[index % len(CALLERS)], FACTS[index % len(FACTS)]):
            assert router.call(tool, arguments) is not None
