"""``policy diff`` prices a change to a word that was code before issue 30 (the perfect 过 of
``[context]``, a hot body part of ``[p0.infant_fever]``, a result's direction of ``[asking]``): the
data change is named at its path, and every decision it alters is listed — and only those."""

from __future__ import annotations

import pytest

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

# Our own sentences; the last one holds none of the edited words, so no edit may list it.
TEXTS = {"perfect": "孩子今天早上抽搐过一次", "hot": "宝宝50天，脖子挺烫的", "direction": "孩子肌酐高怎么办", "none": "孩子体重是30公斤"}

CASES = [
    ("context.perfect_words loses 过: a seizure had today is past, and asks instead of halting",
     ('perfect_words = ["过"]', "perfect_words = []"), "context.perfect_words", "过", "perfect", "halt_to_confirm",
     "red_flags", {"old": ["seizure:current"], "new": ["seizure:historical"]}),
    ("p0.infant_fever.hot_body loses 脖子: a hot neck in a 50-day-old is no fever any more",
     ('"背上", "脖子", "肚子"', '"背上", "肚子"'), "p0.infant_fever.hot_body", "脖子", "hot", "halt_to_silent",
     "red_flags", {"old": ["infant_fever:current"], "new": []}),
    ("asking.value_directions loses 高: 肌酐高 reads no result, the question is knowledge",
     ('value_directions = ["高", "低",', 'value_directions = ["低",'), "asking.value_directions", "高", "direction",
     "intent", "intent", {"old": "lab_result", "new": "knowledge"}),
]


@pytest.mark.parametrize("edit, path, word, changed_id, kind, field, change", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_grammar_word_change_lists_the_decisions_it_alters(tmp_path, edit, path, word, changed_id, kind, field, change):
    new = edited_policy(tmp_path, edit)
    texts = corpus(tmp_path, [{"id": key, "text": text} for key, text in TEXTS.items()])
    code, report = report_json(SHIPPED, new, texts)
    assert code == 0
    assert [(c["path"], c["removed"]) for c in report["data_changes"]] == [(path, [word])]
    rows = rows_of(report)
    assert [(r["id"], r["kind"]) for r in rows] == [(changed_id, kind)]
    assert rows[0]["changed"][field] == change
