"""A span a reader can match must be counted by its table, checked when the policy loads (policy
``[slots.*]``): 两个多月前 raised ``KeyError`` on main at 83967c1 because the fever-context reader's
"ago" pattern read 个多月 and its table had no entry. Now such a policy is refused, with the span."""

from __future__ import annotations

import pytest

from app.router import PolicyError
from app.router.policy import parse_policy
from app.router.policy.slot_types import language

from .shipped import SHIPPED, edit


REFUSED = [
    ("the ago table without 个多月", edit('"个月" = 30, "个多月" = 30, ', '"个月" = 30, '),
     ["slots.temperature_context.ago: no table counts 个多月"]),
    ("the bound days without 个礼拜", edit('"礼拜" = 7, "个礼拜" = 7, "天" = 1 }', '"礼拜" = 7, "天" = 1 }'),
     ["slots.ages.spans: no table counts 个礼拜", "slots.bounds.spans: no table counts 个礼拜"]),
    ("an age span no table knows", edit('day_spans = { "天" = 1, "多天" = 1,', 'day_spans = { "多天" = 1,'),
     ["slots.ages.spans: no table counts 天", "slots.ages.lead_spans: no table counts 天"]),
    ("a window unit no table counts", edit('"礼拜" = 7, "个礼拜" = 7, "个月" = 30,', '"礼拜" = 7, "个月" = 30,'),
     ["slots.dates.week: no table counts 个礼拜"]),
    ("a span pattern that is no list of words", edit("spans = '个半月|个月|周(?!岁)|个?星期|个?礼拜|天'",
                                                      "spans = '个半月|个月|周(?!岁)|个?星期|个?礼拜|天|[0-9]+年'"),
     ["slots.bounds.spans: not a short list of words, so its spans cannot be checked"]),
]


@pytest.mark.parametrize("data, problems", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_span_no_table_counts_is_refused_on_load(data, problems):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert info.value.problems == problems


def test_the_shipped_policy_counts_every_span():
    parse_policy(SHIPPED.encode())


LANGUAGES = [
    ("个?星期(?!岁)", None, {"星期", "个星期"}),
    ("个多?月|天", None, {"个月", "个多月", "天"}),
    ("(?P<n>[0-9])(?P<u>周|个?礼拜)前", "u", {"周", "礼拜", "个礼拜"}),
    ("[ab]{1,2}", None, {"a", "b", "aa", "ab", "ba", "bb"}),
    ("a+", None, None),
    ("[^a]", None, None),
    ("(?P<x>a)", "y", None),
]


@pytest.mark.parametrize("fragment, group, words", LANGUAGES, ids=[f"{f} {g}" for f, g, _ in LANGUAGES])
def test_language_lists_every_string_of_a_short_pattern(fragment, group, words):
    assert language(fragment, group) == (None if words is None else frozenset(words))
