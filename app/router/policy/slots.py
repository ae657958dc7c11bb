"""The ``[slots]`` section: the words the slot readers (``app/router/slots/``) look for — foods,
measure units, temperature and child words, analytes, meals — model, checks, compiled form.

Every word of the slot grammar belongs here, under ``[slots]``, beside these: the readers hold the
algorithm, this module the words they read. The subject words (a patient, the writer) are the
``[context]`` section's (``cues.py``); the slots read them folded, as they read their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from ..text import fold
from .common import Groups, NonEmpty, Strict, Terms, duplicates, overlaps
from .cues import ContextEntry

MEALS = ("breakfast", "lunch", "dinner", "snack")


class SlotsEntry(Strict):
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
    return problems


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
