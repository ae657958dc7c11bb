"""Cue words that hide inside other words (SPEC §4.7 revision 2, leftmost-longest): for every cue
word of one or two characters, the real texts' most frequent words that contain it are listed in
tests/data/cue_neighbours.toml, judged `hides` or `acts`; this test holds the policy to that list."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app.router.context import _cues
from app.router.text import fold

LIST = tomllib.loads((Path(__file__).parent.parent / "data" / "cue_neighbours.toml").read_text(encoding="utf-8"))


def _rows(judgement: str) -> list[tuple[str, str]]:
    return [(cue, word) for cue, entry in LIST["cue"].items() for word in entry.get(judgement, [])]


def _acting(policy, word: str, cue: str) -> bool:
    """Whether ``cue`` acts inside ``word``: a cue hit (not a pseudo word) covers exactly its characters."""
    text = fold(word)
    at = text.index(fold(cue))
    rules = policy.red_flags.context
    hits, _ = _cues(rules, text, [], rules.lexicon.scan_group(text))
    return any(h.start == at and h.end == at + len(cue) and h.payload.kind != "pseudo" for h in hits)


@pytest.mark.parametrize(("cue", "word"), _rows("hides"), ids=lambda v: v)
def test_cue_never_acts_inside(policy, cue, word):
    assert not _acting(policy, word, cue)


@pytest.mark.parametrize(("cue", "word"), _rows("acts"), ids=lambda v: v)
def test_cue_acts_beside(policy, cue, word):
    assert _acting(policy, word, cue)


def test_every_short_cue_word_of_these_kinds_is_listed(policy):
    data = tomllib.loads(Path(__file__).parent.parent.parent.joinpath("app/router/policy.toml").read_text(encoding="utf-8"))
    short = {w for c in data["context"]["cues"] if c["kind"] in ("negation", "past", "hypothetical", "habitual", "recurrence")
             and c["direction"] == "before" for w in c["words"] if len(w) <= 2}
    # the short cue words that occur in the texts at all (the others have no neighbour to judge)
    seen = {"没有", "没", "无", "不", "也没", "以前", "之前", "过去", "有过", "前天", "如果", "要是", "担心", "怕",
            "预防", "每次", "经常", "总是", "老是", "有时", "偶尔", "又", "再次"}
    assert seen <= short
    assert seen <= set(LIST["cue"])
