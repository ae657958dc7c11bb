"""The ``[slots]`` section: the words the slot readers (``app/router/slots/``) look for — foods,
measure units, temperature and child words, analytes, meals, and the slot grammar's families
(``[slots.body]``, ``[slots.dates]`` …) — model, checks and compiled form, validated and compiled
once at load. The subject words (a patient, the writer) are the ``[context]`` section's
(``cues.py``); the slots read them folded, as they read their own.

Every word the slot readers need to tell a quantity's meaning — the units, the words before a body
weight, the relative days, the words that make a value a supposition — is data here, so ``policy
diff`` shows the decisions a change to one alters; the readers (``app/router/slots``) hold the
algorithm and the numerals' digits only.

Each family is a table of named lists and patterns. A list is words, folded like the text view
(order kept: where the reader tries them in turn, the list says which wins). A pattern is a
regular expression written for the text view, bounded as the policy's other patterns are: no
``.``, no back reference, every repeat at most ``MAX_GAP`` wide unless it repeats a listed set of
characters without a clause mark (blanks, digits, a unit's letters): a gap (a negated class)
always has its bound. Punctuation is never written in one: where a pattern stops at a
clause or sentence end it names the set (``{CLAUSE_ENDS}``, ``{SENTENCE_ENDS}``, ``{CLAUSE_ONLY}``,
``{LIST_MARK}``), and the compiler puts in the marks ``text.py`` defines.

A policy written before the families existed (the released one) has none of them: it is read with
the families of the shipped file, which hold the words that were code when it was released.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..text import fold
from .common import Groups, NonEmpty, Terms, duplicates, overlaps, shipped
from .cues import ContextEntry
from .slot_ages import Ages, Bounds, Milestones
from .slot_temps import TemperatureContext, Temperatures
from .slot_types import Chars, Fragment, Regex, Table, Word, Words, _Family, language, needs_groups


class Numbers(_Family):
    units: Words
    fill: Words
    more: Word
    possessive: Word
    counter: Word
    half_units: Words
    rank: Word
    supposed: Regex
    supposed_words: Words
    decimal_lead: Chars
    decimal_not_before: Chars


class Body(_Family):
    weight_words: Words
    weight_short: Word
    not_weight: Chars
    weight_units: Words
    jin: Word
    liang: Word
    height_words: Words
    pair_height_words: Words
    height_units: Words
    metre: Word
    metre_not_before: Chars
    has: Words
    reached: Word
    own_clause: Regex
    birth: Regex
    current: Regex
    change: Words
    later_moments: Words
    pair: Regex

    @model_validator(mode="after")
    def _pair_groups(self) -> Body:
        needs_groups(self.pair, "pair", {"h1", "a", "b", "u"})
        return self


class Dates(_Family):
    year: Word
    month: Word
    day: Chars
    span_units: Words
    week: Fragment
    week_units: Words
    days_per: Table
    within: Fragment
    ago: Words
    window_words: Words
    window_short: Word
    window_fill: Words
    not_window: Chars
    relative_days: Table
    relative_first: Chars
    relative: Fragment
    weekdays: Table
    pregnant: Word
    not_span_before: Chars
    not_span_after: Words
    some: Words
    frequency: Chars

    @model_validator(mode="after")
    def _relative_groups(self) -> Dates:
        if "wd" not in re.compile(self.relative).groupindex:
            raise ValueError("relative: needs the group 'wd'")
        return self


class Subjects(_Family):
    writer: Word
    reflexive: Word
    governs: Words
    elder_mark: Word
    elder: Words
    child_nouns: Words
    elder_before: Words
    two_children: Regex
    also: Regex


class Portions(_Family):
    food_bound_units: Words


class LabValues(_Family):
    units: Fragment


class SlotGrammar(BaseModel):
    """The ``[slots.*]`` grammar families; the base of the policy's ``[slots]`` model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    numbers: Numbers | None = None
    body: Body | None = None
    dates: Dates | None = None
    subjects: Subjects | None = None
    portions: Portions | None = None
    temperatures: Temperatures | None = None
    temperature_context: TemperatureContext | None = None
    lab_values: LabValues | None = None
    ages: Ages | None = None
    bounds: Bounds | None = None
    milestones: Milestones | None = None


_FAMILIES = ("numbers", "body", "dates", "subjects", "portions", "temperatures", "temperature_context", "lab_values",
             "ages", "bounds", "milestones")


class SlotWords(BaseModel):
    """The compiled grammar: every family present (from the file, or the shipped file's)."""

    model_config = ConfigDict(frozen=True)

    numbers: Numbers
    body: Body
    dates: Dates
    subjects: Subjects
    portions: Portions
    temperatures: Temperatures
    temperature_context: TemperatureContext
    lab_values: LabValues
    ages: Ages
    bounds: Bounds
    milestones: Milestones


def _uncounted_spans(words: SlotWords) -> list[str]:
    """A span a reader can match that no table counts would raise at the first text holding it
    (两个多月前 did, on main at 83967c1): each span pattern's words must each be in its table —
    an age's months, days or half months, a bound's days, the fever-context's "ago" units, a date's
    or a window's days."""
    a, b, c, dates = words.ages, words.bounds, words.temperature_context, words.dates

    def plain(span: str) -> str:  # a bound's span without its vague 多 / 几 (快三个多月 is under 3 months)
        for vague in b.vague:
            span = span.replace(vague, "")
        return span

    counted = set(a.month_spans) | set(a.day_spans)
    checks: list[tuple[str, frozenset[str] | None, Callable[[str], bool]]] = [
        ("slots.ages.spans", language(a.spans), lambda s: s in a.half_spans or (s in counted and plain(s) in b.days)),
        ("slots.ages.lead_spans", language(a.lead_spans), lambda s: s in (a.bare_month, *a.half_spans) or s in counted),
        ("slots.ages.month", frozenset({a.month, a.months_more}), lambda s: s in a.month_spans and plain(s) in b.days),
        ("slots.bounds.spans", language(b.spans), lambda s: s == b.half_month or s in b.days),
        ("slots.temperature_context.ago", language(c.ago.pattern, "u"), lambda s: s in c.ago_units),
        ("slots.dates.week", language(dates.week), lambda s: s in dates.days_per),
        ("slots.dates.span_units", frozenset(dates.span_units), lambda s: s in dates.days_per),
    ]
    problems = []
    for where, spans, counts in checks:
        if spans is None:
            problems.append(f"{where}: not a short list of words, so its spans cannot be checked")
            continue
        missing = sorted(s for s in spans if not counts(s))
        if missing:
            problems.append(f"{where}: no table counts {', '.join(missing)}")
    return problems


def compile_slot_words(spec: SlotGrammar) -> SlotWords:
    """Every family of ``spec``, the shipped file's where ``spec`` has none."""
    return SlotWords.model_validate(
        {name: getattr(spec, name) or getattr(_shipped_families(), name) for name in _FAMILIES}
    )


@lru_cache(maxsize=1)
def _shipped_families() -> SlotWords:
    """The shipped file's families (a shipped file without one is a bug: it fails here)."""
    slots = shipped("slots")
    return SlotWords.model_validate({name: slots.get(name) for name in _FAMILIES})


MEALS = ("breakfast", "lunch", "dinner", "snack")


class SlotsEntry(SlotGrammar):  # and the grammar's families ([slots.body], …), above
    foods: Terms
    temperature_words: Terms
    # Absent in a policy written before issue 21: no extra child word (the released behaviour).
    age_child_words: list[NonEmpty] = []
    measure_units: Terms
    analytes: Annotated[dict[NonEmpty, Terms], Field(min_length=1)]
    meals: dict[Literal["breakfast", "lunch", "dinner", "snack"], Terms]


def check(slots: SlotsEntry, context: ContextEntry) -> list[str]:
    problems: list[str] = []
    duplicates(problems, "slots.foods", slots.foods)
    duplicates(problems, "slots.temperature_words", slots.temperature_words)
    duplicates(problems, "slots.age_child_words", slots.age_child_words)
    overlaps(problems, "context", {"patient_words": context.patient_words, "other_person_words": context.other_person_words})
    overlaps(problems, "slots.analytes", slots.analytes)
    for meal in MEALS:
        if meal not in slots.meals:
            problems.append(f"slots.meals: no words for {meal!r}")
    overlaps(problems, "slots.meals", slots.meals)
    return problems + _uncounted_spans(compile_slot_words(slots))


@dataclass(frozen=True, slots=True)
class SlotsPolicy:
    """Folded slot dictionaries: the keys are how the words appear in the ``text`` view."""

    foods: tuple[str, ...]
    measure_units: tuple[str, ...]
    patient_words: tuple[str, ...]  # also the child words that make N个月 an age (宝宝17个月)
    age_child_words: tuple[str, ...]  # child words only next to an age (9个月幼儿, 男婴9个月)
    self_words: tuple[str, ...]  # the writer (我, 本人): a value said of the writer (SPEC §4.4)
    self_not_inside: tuple[str, ...]  # 我们, 我觉得: words that hide a self word
    analytes: dict[str, str]  # synonym → canonical field name
    meals: dict[str, str]  # word → breakfast | lunch | dinner | snack


def _folded(words: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(fold(w) for w in words))


def compile_slots(slots: SlotsEntry, context: ContextEntry) -> SlotsPolicy:
    return SlotsPolicy(
        foods=_folded(slots.foods),
        measure_units=_folded(slots.measure_units),
        patient_words=_folded(context.patient_words),
        age_child_words=_folded(slots.age_child_words),
        self_words=_folded(context.self_words),
        self_not_inside=_folded(context.self_not_inside),
        analytes={fold(w): name for name, words in slots.analytes.items() for w in words},
        meals={fold(w): meal for meal, words in slots.meals.items() for w in words},
    )


def lexicon_groups(compiled: SlotsPolicy, slots: SlotsEntry, context: ContextEntry) -> Groups:
    return {
        "food": [(f, None) for f in compiled.foods],
        "analyte": list(compiled.analytes.items()),
        "meal": list(compiled.meals.items()),
        "temperature": [(fold(w), None) for w in slots.temperature_words],
        "patient": [(w, None) for w in compiled.patient_words],
        "other": [(fold(w), None) for w in context.other_person_words],
    }
