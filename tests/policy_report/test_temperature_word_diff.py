"""``policy diff`` prices a change to a body temperature word (policy ``[slots.temperatures]``,
issue 30): the data change is named at its path, and every decision it alters is listed — and only
those."""

from __future__ import annotations

import pytest

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

# Our own sentences; the last one holds none of the edited words, so no edit may list it.
TEXTS = {"almost": "孩子烧到快40度了", "below": "宝宝发烧，体温没到38度，要吃药吗", "other": "孩子体重是30公斤，发烧了"}

CASES = [
    ("temperatures.almost loses 快: 烧到快40度 is 40 exactly, no longer approximate",
     ('almost = ["快", "快要"', 'almost = ["快要"'), "slots.temperatures.almost", "快", "almost",
     {"slots.approximate": {"old": ["temperature_c"], "new": []}}),
    ("temperatures.below_before loses 没到: 体温没到38度 becomes a reading of 38",
     ('"没超过", "没到", "没有到"', '"没超过", "没有到"'), "slots.temperatures.below_before", "没到", "below",
     {"slots.temperature_c": {"old": None, "new": 38.0}}),
]


@pytest.mark.parametrize("edit, path, word, changed_id, changed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_temperature_word_change_lists_the_decisions_it_alters(tmp_path, edit, path, word, changed_id, changed):
    new = edited_policy(tmp_path, edit)
    texts = corpus(tmp_path, [{"id": key, "text": text} for key, text in TEXTS.items()])
    code, report = report_json(SHIPPED, new, texts)
    assert code == 0
    assert [(c["path"], c["removed"]) for c in report["data_changes"]] == [(path, [word])]
    assert [(r["id"], r["kind"], r["changed"]) for r in rows_of(report)] == [(changed_id, "slots", changed)]
