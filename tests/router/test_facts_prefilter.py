"""The cheap front of ``facts.fact_flags`` (issue 32) decides exactly as the full reading.

``fact_flags`` returns early where, from the kinds of the fact words found (the ``fact`` group's
payload) and the temperature, no rule can make a flag; elsewhere it runs ``_flags``, the full
reading. Our own sentences × every combination of facts: the two give the same flags, both ways
(rows that make a flag and rows that make none).
"""

from __future__ import annotations

import re

import pytest

from app.router.facts import KIDNEY_THERAPIES, PatientFacts, _flags, _plan, _READING_NUMBER, fact_flags
from app.router.slots import child_values
from app.router.text import Cut, views

PARENT = "parent_assistant"

TEXTS = [
    pytest.param("孩子今天发烧了，能吃苹果吗", id="a fever word"),
    pytest.param("孩子昨天发烧，今天量体温37.2，能吃香蕉吗", id="a fever word and a reading below the threshold"),
    pytest.param("孩子今天量体温38.8", id="a reading at the threshold or above"),
    pytest.param("38.9", id="a bare reading"),
    pytest.param("孩子肚子有点疼，晚饭吃了两碗米饭", id="belly pain alone"),
    pytest.param("孩子肚子疼，还有点发烧", id="belly pain with a fever"),
    pytest.param("孩子今天说右下腹疼", id="a word holding another kind's word"),
    pytest.param("孩子下机后回到家里一直打寒战", id="chills after a session"),
    pytest.param("上机的时候孩子觉得有点发烧", id="a fever during a session"),
    pytest.param("孩子这两天尿量减少", id="urine falling"),
    pytest.param("孩子今天小腿肿痛", id="a limb swollen and painful"),
    pytest.param("孩子手脚发凉，还说头晕", id="cold hands and feet with dizziness"),
    pytest.param("孩子手脚发凉", id="cold hands and feet alone"),
    pytest.param("孩子以前发烧过，现在能吃鸡蛋吗", id="a past fever"),
    pytest.param("慢性肾病的孩子一天能吃多少盐？", id="no fact word, no number"),
    pytest.param("孩子今年8岁，体重25公斤，白蛋白38，请问香蕉还能不能吃？", id="no fact word, a number that is no reading"),
]

FACTS = [PatientFacts(age_years=age, kidney_therapy=therapy, nephrotic=nephrotic)
         for age in (None, 0.1, 8) for therapy in (None, *KIDNEY_THERAPIES) for nephrotic in (None, True)]


def test_the_early_returns_never_drop_a_flag(router):
    policy = router.policy
    made = [0, 0]  # (facts, text) pairs without a flag, with one: the table goes both ways
    for param in TEXTS:
        text = param.values[0]
        v = views(text)
        hits = policy.lexicon.scan(v.text)
        child = child_values(policy, v, hits)
        cues = policy.red_flags.context.lexicon.scan_group(v.text)
        for facts in FACTS:
            fast = fact_flags(policy.facts, policy.red_flags, facts, Cut(v.text), hits, [], PARENT,
                              lambda: child.temperature, lambda: cues)
            full = _flags(policy.facts, policy.red_flags, facts, Cut(v.text), hits, [], PARENT, lambda: child.temperature,
                          lambda: cues, _plan(facts, policy.facts), None)
            assert fast == full, (param.id, facts)
            made[bool(full)] += 1
    assert made[0] and made[1], made

# The pattern as first written (a lookbehind first); the one in use has a first character per branch.
_FIRST = re.compile("(?<![0-9])(?:3[5-9]|4[0-3])(?![0-9])|[三四]十")


@pytest.mark.parametrize("text", ["38.5", "体温38", "138", "383", "a35b", "9.40", "三十八度", "四十", "三十", "二十九", "3", "43", "44",
                                  "34", "x35", "0.36", "1 36", "十", "35", "4", "37度5", "99"])
def test_the_reading_number_pattern_finds_what_the_first_one_found(text):
    assert (_READING_NUMBER.search(text) is None) == (_FIRST.search(text) is None)
