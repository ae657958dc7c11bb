"""``policy diff`` prices a change to an age word (policy ``[slots.ages]``, ``[slots.bounds]``,
issue 30): the data change is named at its path, and every decision it alters is listed — and only
those."""

from __future__ import annotations

import pytest

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

# Our own sentences; the last one holds none of the edited words, so no edit may list it.
TEXTS = {"within": "宝宝一岁以内能喝牛奶吗", "almost": "宝宝快两岁了，能喝牛奶吗", "window": "孩子最近7天尿少。"}

CASES = [
    ("ages.not_age_after loses 以内: 一岁以内 becomes the child's age",
     ('"至", "左右", "以内", ', '"至", "左右", '), "slots.ages.not_age_after", "以内", "within",
     {"slots.age_years": {"old": None, "new": 1.0}}),
    ("bounds.almost loses 快: 快两岁 is two years, no longer approximate",
     ('almost = ["快要", "快", ', 'almost = ["快要", '), "slots.bounds.almost", "快", "almost",
     {"slots.approximate": {"old": ["age_years"], "new": []}}),
]


@pytest.mark.parametrize("edit, path, word, changed_id, changed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_age_word_change_lists_the_decisions_it_alters(tmp_path, edit, path, word, changed_id, changed):
    new = edited_policy(tmp_path, edit)
    texts = corpus(tmp_path, [{"id": key, "text": text} for key, text in TEXTS.items()])
    code, report = report_json(SHIPPED, new, texts)
    assert code == 0
    assert [(c["path"], c["removed"]) for c in report["data_changes"]] == [(path, [word])]
    rows = rows_of(report)
    assert [(r["id"], r["kind"], r["changed"]) for r in rows] == [(changed_id, "slots", changed)]
