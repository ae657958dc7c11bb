"""``required_char``: a character every match of a pattern holds (the last one it names), so a text
without it is not scanned; ``heads``: the one or two characters every match opens with, so a
red-flag pattern is tried only where they stand. A character named wrongly would hide a cue or a
red flag: each row names a shape."""

from __future__ import annotations

import random
import re
from typing import Any
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest

from app.router.patterns import heads, required_char
from app.router.policy import load_policy
from app.router.slots import temperature_context

CASES = [
    ("the last literal", "从前", "前"),
    ("a branch: what every alternative holds", "天(?:以前|之前|前)", "前"),
    ("a branch with a common prefix", "(?:ab|ac)", "a"),
    ("an optional literal is not required", "周个?", "周"),
    ("a repeat of at least one requires its body", "从(?:天){1,3}", "天"),
    ("a repeat of zero or more does not", "yx{0,2}", "y"),
    ("a class holds no certain character", "天[2-9]", "天"),
    ("a negated class neither", "b[^a]", "b"),
    ("look-arounds consume nothing", "前(?!天)(?<=从前)", "前"),
    ("a case-insensitive group requires nothing", "ca(?i:b)", "a"),
    ("a case-insensitive pattern requires nothing", "(?i)abc", ""),
    ("an alternation of nothing in common", "甲|乙", ""),
    ("a pattern of the policy (N天前)", "(?:[2-9]|[1-9][0-9]|[两三])[多半]?天(?:以前|之前|前)", "前"),
]


@pytest.mark.parametrize(("pattern", "required"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_required_char(pattern: str, required: str) -> None:
    assert required_char(re.compile(pattern)) == required


TEXTS = ["3天前开始发烧", "从两周前就咳嗽", "一吃就吐", "前天晚上", "从20天以前", "一个月前", "十几天之前抽过一次"]


def test_policy_cue_patterns_match_only_texts_with_their_characters() -> None:
    """Every cue pattern of the policy: a match holds its required character, so skipping a text
    without it finds what the scan would find there (nothing)."""
    matches = 0
    for pattern, _, needed in load_policy().red_flags.context.patterns:
        for text in TEXTS:
            for m in pattern.finditer(text):
                assert needed in m.group(), (pattern.pattern, needed)
                matches += 1
    assert matches >= len(TEXTS)  # the texts do exercise the patterns


HEAD_CASES = [
    ("a literal word", "从前", {"从前"}),
    ("a single character", "吐", {"吐"}),
    ("a choice of words", "(?:不好好|不爱)(?:喝|吃)", {"不好", "不爱"}),
    ("an optional second character", "吐了?x", {"吐了", "吐x"}),
    ("an optional group may end the match", "x(?:y)?", {"x", "xy"}),
    ("a branch that ends early", "(?:ab|c)d", {"ab", "cd"}),
    ("a repeat of zero or more", "a{0,3}b", {"aa", "ab", "b"}),
    ("an unbounded repeat", "a*b", {"aa", "ab", "b"}),
    ("a class of a few", "[2-4]天", {"2天", "3天", "4天"}),
    ("look-behinds consume nothing", "(?:(?<=大)便|拉)血", {"便血", "拉血"}),
    ("a negated class after the first character", "吐[^，。]{0,2}血", {"吐"}),
    ("a look-ahead consumes nothing", "a(?=b)", {"a"}),
    ("an optional negated class opens anywhere", "[^，]?拉", None),
    ("a wide class opens anywhere", "[\u4e00-\u9fff]天", None),
    ("a case-insensitive pattern opens anywhere", "(?i)ab", None),
    ("an empty pattern opens anywhere", "(?:)", None),
]


@pytest.mark.parametrize(("pattern", "expected"), [c[1:] for c in HEAD_CASES], ids=[c[0] for c in HEAD_CASES])
def test_heads(pattern: str, expected: set[str] | None) -> None:
    assert heads(pattern) == (None if expected is None else frozenset(expected))


RED_FLAG_TEXTS = [
    "孩子不好好喝奶，吐了三次", "宝宝一直睡，叫不醒", "拉的大便有血，吐出来的是咖啡色", "吃什么都吐，没有尿",
    "不太精神，总是哭", "躺下就喘不上气", "烧一直没退过", "吃奶吃着停下来喘气", "嘴唇发紫，呼吸很急",
]


def test_policy_red_flag_patterns_open_with_a_head() -> None:
    """Every red-flag pattern of the policy, at every position of texts that exercise them: a match
    opens with one of its heads, and is tried there (``redflags._patterns``' look-up)."""
    starts = load_policy().red_flags.pattern_starts
    matches = 0
    for pattern, _, _ in {p for tried in starts.values() for p in tried}:
        found = heads(pattern.pattern)
        assert found is not None, pattern.pattern
        for text in RED_FLAG_TEXTS:
            for position in range(len(text)):
                if pattern.match(text, position):
                    assert any(text.startswith(head, position) for head in found), (pattern.pattern, text)
                    tried = starts.get(text[position : position + 2]) or starts[text[position]]
                    assert pattern in [p for p, _, _ in tried]
                    matches += 1
    assert matches >= len(RED_FLAG_TEXTS)  # the texts do exercise the patterns


def _sample(items: Any, rng: random.Random, noise: str) -> str:
    """A string the parsed pattern ``items`` could match, look-arounds left out (so some do not)."""
    out = []
    for op, av in items:
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.IN:
            chars = [chr(a) for o, a in av if o is sre.LITERAL] + [chr(a[0]) for o, a in av if o is sre.RANGE]
            negated = any(o is sre.NEGATE for o, _ in av)
            out.append(rng.choice(noise) if negated or not chars else rng.choice(chars))
        elif op is sre.BRANCH:
            out.append(_sample(rng.choice(av[1]), rng, noise))
        elif op is sre.SUBPATTERN:
            out.append(_sample(av[3], rng, noise))
        elif op is sre.ATOMIC_GROUP:
            out.append(_sample(av, rng, noise))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            out.extend(_sample(av[2], rng, noise) for _ in range(rng.randint(av[0], min(av[1], av[0] + 3))))
        elif op in (sre.ANY, sre.NOT_LITERAL, sre.CATEGORY):
            out.append(rng.choice(noise))
    return "".join(out)


def test_policy_red_flag_patterns_open_with_a_head_on_generated_texts() -> None:
    """Each red-flag pattern of the policy (a new one too) against texts generated from it, with
    a character or two of noise around them: wherever it matches, one of its heads opens the
    match. A head named wrongly would hide a red flag, so this is tried on many texts, not only on
    sentences written for it."""
    rng = random.Random(20)
    noise = "不吃没吐了的x1，。 "
    starts = load_policy().red_flags.pattern_starts
    patterns = sorted({p for tried in starts.values() for p in tried}, key=lambda p: p[1])
    matched = set()
    for pattern, name, _ in patterns:
        found = heads(pattern.pattern)
        assert found is not None, pattern.pattern
        parsed = sre_parse.parse(pattern.pattern)
        for _ in range(100):
            before = "".join(rng.choice(noise) for _ in range(rng.randint(0, 2)))
            text = before + _sample(parsed, rng, noise) + rng.choice(noise)
            for position in range(len(text)):
                if pattern.match(text, position):
                    assert any(text.startswith(head, position) for head in found), (pattern.pattern, text)
                    matched.add(name)
    assert len(matched) >= len(patterns) * 3 // 4  # the texts exercise most patterns (a look-behind is left out)


DAY_TEXTS = [
    ("days and months", "7月10日发烧39度，12号退了"),
    ("a month.day before a time word", "5.18早上38.5，6.12下午"),
    ("a decimal reading is no day", "最高38.5，吃药后37.2"),
    ("digits after a point open no day", "1.5.18号"),
    ("a day right after a day", "10号11号12日"),
    ("a day at the text's start and end", "3日体温38度，到了8."),
    ("a run of digits opens once", "123456号"),
    ("no digit at all", "宝宝发烧了"),
]


@pytest.mark.parametrize("text", [t for _, t in DAY_TEXTS], ids=[i for i, _ in DAY_TEXTS])
def test_days_are_finditer_from_the_openings(text: str) -> None:
    """``temperature_context._days`` tries the policy's ``day`` only where a day can open: the same days as its finditer."""
    words = load_policy().slot_words.temperature_context
    expected = [(m.start(), int(m.group("d") or m.group("d2"))) for m in words.day.finditer(text)]
    assert temperature_context._days(words, text) == expected

