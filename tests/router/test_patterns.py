"""``required_chars``: the characters every match of a pattern holds, so a text without one of them
is not scanned. A character it names wrongly would hide a cue: each row names the pattern's shape."""

from __future__ import annotations

import re

import pytest

from app.router.patterns import required_chars
from app.router.policy import load_policy

CASES = [
    ("literals are required", "从前", "从前"),
    ("a branch requires what every alternative holds", "(?:以前|之前|前)", "前"),
    ("a branch with a common prefix", "(?:ab|ac)d", "ad"),
    ("an optional literal is not required", "个?周", "周"),
    ("a repeat of at least one requires its body", "(?:天){1,3}", "天"),
    ("a repeat of zero or more does not", "x{0,2}y", "y"),
    ("a class holds no certain character", "[2-9]天", "天"),
    ("a negated class neither", "[^a]b", "b"),
    ("look-arounds consume nothing: none required", "(?<=从)前(?!天)", "前"),
    ("a case-insensitive group requires nothing", "a(?i:b)c", "ac"),
    ("a case-insensitive pattern requires nothing", "(?i)abc", ""),
    ("an alternation of nothing in common", "甲|乙", ""),
]


@pytest.mark.parametrize(("pattern", "required"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_required_chars(pattern: str, required: str) -> None:
    assert required_chars(re.compile(pattern)) == "".join(sorted(required))


TEXTS = ["3天前开始发烧", "从两周前就咳嗽", "一吃就吐", "前天晚上", "从20天以前", "一个月前", "十几天之前抽过一次"]


def test_policy_cue_patterns_match_only_texts_with_their_characters() -> None:
    """Every cue pattern of the policy: a match holds each required character, so skipping a text
    without one finds what the scan would find there (nothing)."""
    matches = 0
    for pattern, _, needed in load_policy().red_flags.context.patterns:
        for text in TEXTS:
            for m in pattern.finditer(text):
                assert all(ch in m.group() for ch in needed), (pattern.pattern, needed)
                matches += 1
    assert matches >= len(TEXTS)  # the texts do exercise the patterns
