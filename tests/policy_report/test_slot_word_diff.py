"""``policy diff`` prices a change to a slot-grammar word (policy ``[slots.*]``, issue 30): the data
change is named at its path, and every decision it alters is listed — and only those."""

from __future__ import annotations

import pytest

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

# Our own sentences; the last one holds none of the edited words, so no edit may list it.
TEXTS = {"change": "宝宝三岁，瘦了3斤", "unit": "孩子体重是30公斤", "window": "孩子最近7天尿少。"}

CASES = [
    ("body.change loses 瘦了: 瘦了3斤 after the age becomes the child's weight",
     ('"胖了", "瘦了", ', '"胖了", '), "slots.body.change", "瘦了", "change", {"old": None, "new": 1.5}),
    ("body.weight_units loses 公斤: 体重是30公斤 is no weight any more",
     ('weight_units = ["公斤", "千克", "kg", "斤"]', 'weight_units = ["千克", "kg", "斤"]'),
     "slots.body.weight_units", "公斤", "unit", {"old": 30, "new": None}),
]


@pytest.mark.parametrize("edit, path, word, changed_id, weight", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_slot_word_change_lists_the_decisions_it_alters(tmp_path, edit, path, word, changed_id, weight):
    new = edited_policy(tmp_path, edit)
    texts = corpus(tmp_path, [{"id": key, "text": text} for key, text in TEXTS.items()])
    code, report = report_json(SHIPPED, new, texts)
    assert code == 0
    assert [(c["path"], c["removed"]) for c in report["data_changes"]] == [(path, [word])]
    rows = rows_of(report)
    assert [(r["id"], r["kind"], r["changed"]) for r in rows] == [(changed_id, "slots", {"slots.weight_kg": weight})]
