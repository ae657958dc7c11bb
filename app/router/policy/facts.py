"""The ``[facts]`` section: how the session's patient facts feed the red flags (SPEC §4.5
revision 3) — the concept each fact raises, the fever threshold and the words of each kind —
model, checks, compiled form. ``app/router/facts.py`` holds the facts argument and the rules that
read this section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import Field

from ..text import fold
from .common import Groups, Name, Strict, Terms

KINDS = ("fever", "belly_pain", "chills", "session", "urine_falling", "graft_pain", "limb_swelling",
         "cold_extremities", "dizziness")
GROUP = {kind: f"fact_{kind}" for kind in KINDS}
ANY_GROUP = "fact"  # every word of every kind, with the kinds of the words inside it: whether the text holds any
# (one look-up for most texts) and of which kinds (``lexicon_groups``)


class FactWords(Strict):
    fever: Terms
    belly_pain: Terms
    chills: Terms
    session: Terms
    urine_falling: Terms
    graft_pain: Terms
    limb_swelling: Terms
    cold_extremities: Terms
    dizziness: Terms


class FactConcepts(Strict):
    age_years: Name
    transplant: Name
    pd: Name
    hd: Name
    nephrotic: Name


class FactsEntry(Strict):
    """``[facts]`` of policy.toml."""

    young_infant_years: float = Field(gt=0, le=1)
    fever_celsius: float = Field(ge=37, le=40)
    reading_name: Name
    concepts: FactConcepts
    words: FactWords


def check(entry: FactsEntry, concept_ids: list[str]) -> list[str]:
    problems: list[str] = []
    for key, concept in entry.concepts.model_dump().items():
        if concept not in concept_ids:
            problems.append(f"facts.concepts.{key}: {concept!r} is not a p0 concept")
    for kind in KINDS:
        seen: set[str] = set()
        for word in getattr(entry.words, kind):
            key = fold(word)
            if key in seen:
                problems.append(f"facts.words.{kind}: {word!r} is listed twice")
            seen.add(key)
    return problems


@dataclass(frozen=True, slots=True)
class FactRules:
    young_infant_years: float
    fever_celsius: float
    reading_name: str
    concept: dict[str, str]  # age_years, transplant, pd, hd, nephrotic → concept id
    # A message that opens with a number, after the temperature reader's own reply opening
    # ([slots.temperatures] reply_opening: 现在是38度): one of the places it may read a reading.
    opens_with_number: re.Pattern[str]


def compile_rules(entry: FactsEntry, reply_opening: re.Pattern[str]) -> FactRules:
    """``reply_opening``: the temperature reader's (``[slots.temperatures]``), read, not copied."""
    opens = re.compile(r"\s*(?:" + reply_opening.pattern + r")\s*(?:[0-9]|[三四]十)")
    return FactRules(entry.young_infant_years, entry.fever_celsius, entry.reading_name, entry.concepts.model_dump(),
                     opens)


def lexicon_groups(entry: FactsEntry) -> Groups:
    """The policy lexicon's groups ``fact_<kind>``, one per kind, each word with its kind: a kind's
    longest word wins inside that kind only (右下腹痛 is pain over a graft and belly pain both)."""
    groups: Groups = {
        GROUP[kind]: [(fold(w), kind) for w in getattr(entry.words, kind)] for kind in KINDS}
    # Each word of any kind, with the kinds of every word inside it (its own included): a longer
    # word hides the shorter ones in this group, not in their kinds' groups (``fact_flags``).
    kinds_of: dict[str, set[str]] = {}
    for kind in KINDS:
        for w in getattr(entry.words, kind):
            kinds_of.setdefault(fold(w), set()).add(kind)
    shared: dict[frozenset[str], frozenset[str]] = {}
    groups[ANY_GROUP] = [(w, shared.setdefault(k, k)) for w in kinds_of
                         for k in [frozenset(kind for inner, ks in kinds_of.items() if inner in w for kind in ks)]]
    return groups
