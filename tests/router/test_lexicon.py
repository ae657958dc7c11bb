"""Longest match wins within a group, and only within it."""

from __future__ import annotations

import pytest

from app.router.lexicon import Lexicon

LEX = Lexicon({"g": [("少尿", "term"), ("减少尿蛋白", "safe"), ("食谱", 1), ("一周食谱", 2), ("周食", 3), ("coma", 4)],
               "h": [("食谱", "other")]})

CASES = [
    ("a longer phrase hides the term inside it", "减少尿蛋白", "g", ["减少尿蛋白"]),
    ("same start: the longer wins", "一周食谱", "g", ["一周食谱"]),
    ("overlapping but not contained: both stay", "周食谱", "g", ["周食", "食谱"]),
    ("two occurrences both count", "少尿，又少尿", "g", ["少尿", "少尿"]),
    ("other groups are not hidden", "一周食谱", "h", ["食谱"]),
    ("ASCII whole words only", "glaucoma coma comatose", "g", ["coma"]),
]


@pytest.mark.parametrize(("text", "group", "terms"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_longest_match(text, group, terms):
    assert [h.term for h in LEX.scan(text).group(group)] == terms


# One group, as the context cues are: a term written twice (a cue and a pseudo word) keeps its last
# owner in ``scan``, and ``scan_group`` must give the very hits ``scan(...).group`` gives.
ONE = Lexicon({"c": [("少尿", "term"), ("减少尿蛋白", "safe"), ("食谱", 1), ("一周食谱", 2), ("周食", 3), ("coma", 4),
                     ("食谱", "again")]})


@pytest.mark.parametrize("text", [c[1] for c in CASES] + ["", "食谱", "coma, comatose"],
                         ids=[c[0] for c in CASES] + ["empty text", "a term with two owners", "ASCII edges"])
def test_scan_group_is_the_scan_of_its_one_group(text):
    assert ONE.scan_group(text) == ONE.scan(text).group("c")


def test_scan_group_refuses_a_lexicon_of_two_groups():
    with pytest.raises(ValueError):
        LEX.scan_group("一周食谱")
