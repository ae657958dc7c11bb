"""The age families of the slot grammar: ``[slots.ages]`` (an age said in years, months, days or
weeks, ``app/router/slots/ages.py``), ``[slots.milestones]`` (满月, the days to go) and
``[slots.bounds]`` (an age said as "not yet N" or "almost N"). Shapes as the other families'
(``slots.py``): lists are words folded like the text view, fragments are pieces of the slot scan's
branches, patterns are searched on their own; the readers hold the algorithm.
"""

from __future__ import annotations

from .slot_types import Chars, Fragment, Regex, Table, Word, Words, _Family


class Ages(_Family):
    spans: Fragment
    month_spans: Words
    day_spans: Table
    approximate_spans: Words
    half_spans: Words
    plus_day_spans: Words
    month: Word
    months_more: Word
    half_month: Word
    bare_month: Word
    bare_half_month: Word
    day: Word
    years: Fragment
    year_months: Fragment
    month_units: Fragment
    sum_months: Fragment
    lead_spans: Fragment
    kid_months: Fragment
    kid_more: Fragment
    kid_days: Fragment
    age_months: Fragment
    joins: Chars
    almost_inside: Words
    perfective: Word
    old: Fragment
    not_window_after: Words
    not_now_after: Fragment
    now_not_after: Fragment
    year_week: Word
    year_week_joins: Chars
    year_week_months: Fragment
    year_week_not_before: Chars
    years_and_half: Word
    month_age: Word
    year_age: Word
    form_fill: Chars
    year_age_not_before: Chars
    sex: Chars
    sex_nouns: Words
    kid_fill: Words
    born_first: Chars
    born: Word
    born_after: Words
    ordinal: Word
    pronouns: Chars
    pronoun_now: Words
    pronoun_only: Words
    now_word: Word
    now_fill: Words
    not_kid_openers: Words
    whole_end: Chars
    reply: Words
    demonstratives: Words
    months_lead: Words
    months_lead_inside: Words
    reached: Words
    full: Word
    not_age_after: Words
    past_day: Word
    range_marks: Chars
    until: Words
    past_before: Regex
    event_after: Regex
    past_moment: Regex
    not_span_before: Chars
    only: Words
    today: Words
    newborn: Word
    newborn_not_after: Words
    clause_end: Regex
    now_words: Words
    now_before: Regex
    at_a_moment: Words
    not_a_moment: Words
    as_now: Words
    began: Words
    below_typo: Word
    not_below_typo: Word
    dosage: Regex
    dosage_hints: Words
    pregnancy: Regex
    planned: Regex
    not_a_child: Words


class Bounds(_Family):
    almost: Words
    almost_after: Words
    below: Words
    between: Words
    born: Word
    spans: Fragment
    half_month: Word
    old: Word
    newborn: Fragment
    days: Table
    vague: Chars


class Milestones(_Family):
    to_go: Words
    not_full_month: Words
    past_full_month: Words
    since_full_month: Regex
    full_first: Chars
    full_month: Fragment
    full_year: Fragment
    to_go_spans: Fragment
    to_go_joins: Fragment
    to_go_ages: Fragment
    month: Word
    day: Word
    months: Word
