"""``policy diff`` prices a change to a grammar word (issue 30: the words that were code are policy
data — the slot grammar's ``[slots.*]`` families, and ``[context]``, ``[p0.infant_fever]``,
``[asking]``): the data change is named at its path, and every decision it alters is listed — and
only those, over every sentence below (each edit alters one of them; the last two hold none of the
edited words)."""

from __future__ import annotations

import pytest

from .conftest import SHIPPED, corpus, edited_policy, report_json, rows_of

# Our own sentences.
TEXTS = {
    "change": "宝宝三岁，瘦了3斤", "unit": "孩子体重是30公斤", "within": "宝宝一岁以内能喝牛奶吗",
    "almost_age": "宝宝快两岁了，能喝牛奶吗", "almost_fever": "孩子烧到快40度了", "below": "宝宝发烧，体温没到38度，要吃药吗",
    "perfect": "孩子今天早上抽搐过一次", "hot": "宝宝50天，脖子挺烫的", "direction": "孩子肌酐高怎么办",
    "window": "孩子最近7天尿少。", "other": "孩子体重是15千克，发烧了",
}

# (what the edit does, (old, new) in the shipped file, the changed path, the word removed, the one
# text whose decision changes, the row's kind, what changed: every field for a slots row, the named
# fields for the others).
CASES = [
    ("body.change loses 瘦了: 瘦了3斤 after the age becomes the child's weight",
     ('"胖了", "瘦了", ', '"胖了", '), "slots.body.change", "瘦了", "change", "slots",
     {"slots.weight_kg": {"old": None, "new": 1.5}}),
    ("body.weight_units loses 公斤: 体重是30公斤 is no weight any more",
     ('weight_units = ["公斤", "千克", "kg", "斤"]', 'weight_units = ["千克", "kg", "斤"]'),
     "slots.body.weight_units", "公斤", "unit", "slots", {"slots.weight_kg": {"old": 30, "new": None}}),
    ("ages.not_age_after loses 以内: 一岁以内 becomes the child's age",
     ('"至", "左右", "以内", ', '"至", "左右", '), "slots.ages.not_age_after", "以内", "within", "slots",
     {"slots.age_years": {"old": None, "new": 1.0}}),
    ("bounds.almost loses 快: 快两岁 is two years, no longer approximate",
     ('almost = ["快要", "快", ', 'almost = ["快要", '), "slots.bounds.almost", "快", "almost_age", "slots",
     {"slots.approximate": {"old": ["age_years"], "new": []}}),
    ("temperatures.almost loses 快: 烧到快40度 is 40 exactly, no longer approximate",
     ('almost = ["快", "快要"', 'almost = ["快要"'), "slots.temperatures.almost", "快", "almost_fever", "slots",
     {"slots.approximate": {"old": ["temperature_c"], "new": []}}),
    ("temperatures.below_before loses 没到: 体温没到38度 becomes a reading of 38",
     ('"没超过", "没到", "没有到"', '"没超过", "没有到"'), "slots.temperatures.below_before", "没到", "below", "slots",
     {"slots.temperature_c": {"old": None, "new": 38.0}}),
    ("context.perfect_words loses 过: a seizure had today is past, and asks instead of halting",
     ('perfect_words = ["过"]', "perfect_words = []"), "context.perfect_words", "过", "perfect", "halt_to_confirm",
     {"red_flags": {"old": ["seizure:current"], "new": ["seizure:historical"]}}),
    ("p0.infant_fever.hot_body loses 脖子: a hot neck in a 50-day-old is no fever any more",
     ('"背上", "脖子", "肚子"', '"背上", "肚子"'), "p0.infant_fever.hot_body", "脖子", "hot", "halt_to_silent",
     {"red_flags": {"old": ["infant_fever:current"], "new": []}}),
    ("asking.value_directions loses 高: 肌酐高 reads no result, the question is knowledge",
     ('value_directions = ["高", "低",', 'value_directions = ["低",'), "asking.value_directions", "高", "direction",
     "intent", {"intent": {"old": "lab_result", "new": "knowledge"}}),
]


@pytest.mark.parametrize("edit, path, word, changed_id, kind, changed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_grammar_word_change_lists_the_decisions_it_alters(tmp_path, edit, path, word, changed_id, kind, changed):
    new = edited_policy(tmp_path, edit)
    texts = corpus(tmp_path, [{"id": key, "text": text} for key, text in TEXTS.items()])
    code, report = report_json(SHIPPED, new, texts)
    assert code == 0
    assert [(c["path"], c["removed"]) for c in report["data_changes"]] == [(path, [word])]
    rows = rows_of(report)
    assert [(r["id"], r["kind"]) for r in rows] == [(changed_id, kind)]
    found = rows[0]["changed"]
    assert (found if kind == "slots" else {field: found[field] for field in changed}) == changed
