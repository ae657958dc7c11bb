"""The slot grammar's words (policy ``[slots.*]`` families, ``app/router/policy/slots.py``): each
family validated on load, its patterns bounded and never writing punctuation, and a policy without
the families reading the shipped ones."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from app.router import PolicyError
from app.router.policy import load_policy, parse_policy
from app.router.slots import SlotExtractor
from app.router.text import CLAUSE_ENDS, LIST_MARK, views

from .shipped import SHIPPED, edit

RELEASED = Path(__file__).resolve().parents[2] / "docs" / "policy-changes" / "released.toml"
ALSO = "also = '[他她][^{CLAUSE_ENDS}]{0,6}也'"


REFUSED = [
    ("a pattern that writes a clause mark", edit(ALSO, "also = '[他她][^,。]{0,6}也'"), "slots.subjects.also", "writes clause punctuation"),
    ("a pattern that writes the list mark", edit("[/{LIST_MARK}和与]?[ \\t]*体重|", "[/、和与]?[ \\t]*体重|"),
     "slots.body.pair", "writes clause punctuation"),
    ("an unknown placeholder", edit(ALSO, "also = '[他她][^{COMMA}]{0,6}也'"), "slots.subjects.also", "unknown placeholder {COMMA}"),
    ("a pattern with '.'", edit(ALSO, "also = '[他她].{0,6}也'"), "slots.subjects.also", "uses '.'"),
    ("a gap wider than the policy's patterns may use", edit(ALSO, "also = '[他她][^{CLAUSE_ENDS}]{0,30}也'"),
     "slots.subjects.also", "repeats more than 12 times"),
    ("an unbounded repeat of words", edit("{0,8}[ \\t]*$'", "*[ \\t]*$'"), "slots.body.current", "repeats more than 12 times"),
    ("an unbounded repeat of a class that admits a clause mark",
     edit(ALSO, "also = '[他她][ {CLAUSE_ONLY}]*也'"), "slots.subjects.also", "repeats more than 12 times"),
    ("a back reference", edit(ALSO, "also = '(?P<x>[他她])(?P=x)也'"), "slots.subjects.also", "back reference"),
    ("an invalid pattern", edit(ALSO, "also = '[他她'"), "slots.subjects.also", "not a valid regular expression"),
    ("a word listed twice", edit('governs = ["的", "家"]', 'governs = ["的", "家", "的"]'), "slots.subjects.governs", "listed twice"),
    ("an empty list", edit('food_bound_units = ["斤", "两"]', "food_bound_units = []"), "slots.portions.food_bound_units", "at least 1"),
    ("a character list holding a word", edit('not_window = ["将", "接", "靠", "附"]', 'not_window = ["将", "接近"]'),
     "slots.dates.not_window", "one character"),
    ("the pair pattern without its value groups", edit("(?P<b>[0-9]{1,3}", "([0-9]{1,3}"), "slots.body", "needs the groups ['b']"),
    ("a family with an unknown list", edit('[slots.portions]\n', '[slots.portions]\nfruit_units = ["个"]\n'),
     "slots.portions.fruit_units", "Extra inputs"),
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
def test_a_bad_slot_family_is_refused_with_its_reason(data, where, reason):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert any(where in p and reason in p for p in info.value.problems), info.value.problems


def test_a_pattern_names_the_clause_marks_and_gets_them_from_text_py():
    also = load_policy().slot_words.subjects.also
    assert all(also.search(f"他{mark}也") is None for mark in CLAUSE_ENDS)
    assert also.search("她昨天也") is not None
    pair = load_policy().slot_words.body.pair
    assert pair.search(f"身高{LIST_MARK}体重 70{LIST_MARK}8.5") is not None


def test_words_are_folded_as_the_text_view_is():
    policy = parse_policy(edit('window_words = ["最近", "过去"]', 'window_words = ["最近", "過去"]'))
    assert policy.slot_words.dates.window_words == ("最近", "过去")


def test_a_policy_without_the_families_reads_the_shipped_ones():
    """The released policy was written when these words were code: it reads them as shipped."""
    released = parse_policy(RELEASED.read_bytes())
    assert "[slots.body]" not in RELEASED.read_text(encoding="utf-8")
    assert released.slot_words == load_policy().slot_words


def test_a_family_of_the_file_replaces_the_shipped_one():
    policy = parse_policy(edit('window_words = ["最近", "过去"]', 'window_words = ["最近"]'))
    assert policy.slot_words.dates.window_words == ("最近",)
    assert policy.slot_words.body == load_policy().slot_words.body


def weight(policy_bytes: bytes, text: str) -> float | None:
    policy = parse_policy(policy_bytes)
    views_ = views(text)
    result = SlotExtractor(policy).extract(views_, policy.lexicon.scan(views_.text), date(2026, 12, 1), "v")
    return result.weight_kg


WEIGHT_ROWS = [
    ("body.weight_units 公斤 reads a weight", SHIPPED.encode(), "孩子体重是30公斤", 30),
    ("without 公斤 the same text has no weight", edit('weight_units = ["公斤", "千克", "kg", "斤"]', 'weight_units = ["千克", "kg", "斤"]'),
     "孩子体重是30公斤", None),
    ("body.change 瘦了 is a change, no weight", SHIPPED.encode(), "孩子三岁，瘦了3斤", None),
    ("without 瘦了 the same words are a weight after the age", edit('"胖了", "瘦了", ', '"胖了", '), "孩子三岁，瘦了3斤", 1.5),
]


@pytest.mark.parametrize("data, text, expected", [r[1:] for r in WEIGHT_ROWS], ids=[r[0] for r in WEIGHT_ROWS])
def test_the_readers_take_their_words_from_the_policy(data, text, expected):
    assert weight(data, text) == expected
