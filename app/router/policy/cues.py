"""The ``[context]`` section (SPEC §4.7): whose a red-flag mention is and when it happens — subject
words, cues with their direction and scope, enumerations — model, checks, compiled form.

A cue rule is data, the way medspaCy's ConText writes one: a kind, a direction, a scope and an
optional bound, checked here against the table of the combinations the contract allows;
``app/router/context.py`` is the one small algorithm that applies them.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from ..context import ContextRules, Cue
from ..lexicon import Lexicon
from ..patterns import pattern_problems, required_char
from ..text import CLAUSE_ENDS, fold
from .common import Name, NonEmpty, Strict, Terms, given_or_shipped

CueKind = Literal[
    "negation", "pseudo", "now", "past", "hypothetical", "habitual", "manner", "contrast", "recurrence", "now_clause", "ongoing",
    "then",
]
# Which (kind, direction, scope) a cue may have: SPEC §4.7's table, nothing else.
ALLOWED_CUES = {
    ("negation", "before", "next_mention"),
    ("pseudo", "before", "none"),
    ("now", "before", "sentence"),
    ("past", "before", "sentence"),
    ("past", "after", "mention_before"),
    ("hypothetical", "before", "sentence"),
    ("hypothetical", "before", "clause"),
    ("hypothetical", "after", "mention_before"),
    ("habitual", "before", "clause"),
    ("manner", "before", "none"),
    ("contrast", "before", "terminate"),
    ("recurrence", "before", "next_mention"),
    ("now_clause", "before", "clause"),
    ("ongoing", "before", "sentence"),
    ("then", "before", "sentence"),
}

# The subject word lists, each with the role its words have.
_SUBJECTS = (("patient_words", "patient"), ("other_person_words", "other"), ("self_words", "self"),
             ("third_person_words", "third"))


class CueEntry(Strict):
    kind: CueKind
    direction: Literal["before", "after"]
    scope: Literal["next_mention", "sentence", "clause", "mention_before", "none", "terminate"]
    max_gap: Annotated[int, Field(ge=0, le=12)] | None = None
    words: Terms
    not_inside: list[NonEmpty] = []
    patterns: dict[Name, NonEmpty] = {}


class ContextEntry(Strict):
    patient_words: Terms
    other_person_words: Terms
    self_words: Terms
    self_is_patient_for: list[NonEmpty]
    self_not_inside: list[NonEmpty] = []
    subject_not_inside: list[NonEmpty] = []
    place_after: list[NonEmpty] = []
    carer_before: list[NonEmpty] = []
    carer_before_if_patient: list[NonEmpty] = []
    negation_filler: list[NonEmpty] = []
    third_person_words: Terms
    governing_links: Terms
    enumeration_joiners: Terms
    enumeration_item_max: Annotated[int, Field(ge=1, le=8)]
    # Each absent in a policy written before it (the released one): the shipped file's, the words
    # that were code then. Self words that name no one new after a subject word (孩子自己); past
    # after-cue words that are the perfect in a clause of today (抽搐过); manner cue words that make
    # the mention right before them a stated event (惊厥了).
    reflexive_words: list[NonEmpty] | None = None
    perfect_words: list[NonEmpty] | None = None
    event_marks: list[NonEmpty] | None = None
    cues: Annotated[list[CueEntry], Field(min_length=1)]


# ------------------------------------------------------------------------------------------------
# Checks: one role per word, only the allowed cue shapes, every hider hides one of its words
# ------------------------------------------------------------------------------------------------


def check(context: ContextEntry, roles: set[str]) -> list[str]:
    problems: list[str] = []
    for role in context.self_is_patient_for:
        if role not in roles:
            problems.append(f"context.self_is_patient_for: unknown role {role!r}")
    role_of: dict[str, str] = {}

    def claim(word: str, role: str, where: str) -> None:
        key = fold(word)
        if key in role_of and role_of[key] != role:
            problems.append(f"{where}: {word!r} is already a {role_of[key]} word")
        elif key in role_of:
            problems.append(f"{where}: {word!r} is listed twice")
        role_of[key] = role

    for field, role in _SUBJECTS:
        for word in getattr(context, field):
            claim(word, role, f"context.{field}")
    for n, cue in enumerate(context.cues):
        where = f"context.cues[{n}] ({cue.kind})"
        if (cue.kind, cue.direction, cue.scope) not in ALLOWED_CUES:
            problems.append(f"{where}: a {cue.kind} cue cannot have direction {cue.direction!r} and scope {cue.scope!r}")
        # A habitual cue may bound its reach into the clause (parents' run-on clauses have no comma);
        # without max_gap it covers the whole clause, as the released policy reads.
        if cue.kind != "habitual" and (cue.scope in ("next_mention", "mention_before")) != (cue.max_gap is not None):
            problems.append(f"{where}: max_gap is required with scope next_mention or mention_before, and only there"
                            " (and optional for a habitual cue)")
        for word in cue.words:
            claim(word, f"{cue.kind} cue", where)
        for name, pattern in cue.patterns.items():
            problems.extend(f"{where}.patterns.{name}: {p}" for p in pattern_problems(pattern))
    for n, cue in enumerate(context.cues):
        _hiders(problems, f"context.cues[{n}] ({cue.kind}).not_inside", cue.not_inside, cue.words, role_of)
    for key, role in (("reflexive_words", "self"), ("perfect_words", "past cue"), ("event_marks", "manner cue")):
        problems.extend(f"context.{key}: {word!r} is no {role} word" for word in given_or_shipped(context, "context", key)
                        if role_of.get(fold(word)) != role)
    _hiders(problems, "context.self_not_inside", context.self_not_inside, context.self_words, role_of)
    subject_words = context.patient_words + context.other_person_words + context.self_words + context.third_person_words
    _hiders(problems, "context.subject_not_inside", context.subject_not_inside, subject_words, role_of)
    return problems


def _hiders(problems: list[str], where: str, phrases: list[str], words: list[str], role_of: dict[str, str]) -> None:
    """A ``not_inside`` phrase must contain one of its own words and have no role of its own."""
    folded = [fold(w) for w in words]
    for phrase in phrases:
        key = fold(phrase)
        if key in role_of:
            problems.append(f"{where}: {phrase!r} is itself a {role_of[key]} word")
        elif not any(w in key for w in folded):
            problems.append(f"{where}: {phrase!r} contains none of its words, so it hides nothing")


# ------------------------------------------------------------------------------------------------
# Compiled form
# ------------------------------------------------------------------------------------------------

# The reach of a habitual cue with no max_gap: any clause is shorter.
_WHOLE_CLAUSE = 1 << 30


def compile_context(context: ContextEntry, patterns_by_name: dict[str, re.Pattern[str]]) -> ContextRules:
    """``patterns_by_name``: the red-flag patterns, so a negation standing in a pattern's gap acts."""
    cues: list[tuple[str, Cue]] = []
    cue_patterns: list[tuple[re.Pattern[str], Cue, str]] = []
    for entry in context.cues:
        reach = entry.max_gap if entry.max_gap is not None else (_WHOLE_CLAUSE if entry.kind == "habitual" else 0)
        cue = Cue(entry.kind, entry.direction, entry.scope, reach)
        cues += [(fold(w), cue) for w in entry.words]
        cues += [(fold(w), Cue("pseudo")) for w in entry.not_inside]
        cue_patterns += [(c, cue, required_char(c)) for c in map(re.compile, entry.patterns.values())]
    for field, kind in _SUBJECTS:
        cues += [(fold(w), Cue(kind)) for w in getattr(context, field)]
    cues += [(fold(w), Cue("pseudo")) for w in context.self_not_inside + context.subject_not_inside]
    filler = "|".join(re.escape(fold(w)) for w in sorted(context.negation_filler, key=len, reverse=True))
    joiners = re.escape("".join(context.enumeration_joiners))
    enumeration = re.compile(f"[{joiners}](?:[^{joiners}{CLAUSE_ENDS}]{{1,{context.enumeration_item_max}}}[{joiners}])*")
    return ContextRules(
        lexicon=Lexicon({"ctx": cues}),
        patterns=tuple(cue_patterns),
        self_is_patient_for=frozenset(context.self_is_patient_for),
        governing_links=frozenset(fold(w) for w in context.governing_links),
        enumeration=enumeration,
        negation_filler=re.compile(f"(?:{filler})*" if filler else ""),
        place_after=tuple(sorted((fold(w) for w in context.place_after), key=len, reverse=True)),
        carer_before=frozenset(fold(w) for w in context.carer_before),
        carer_before_if_patient=frozenset(fold(w) for w in context.carer_before_if_patient),
        patterns_by_name=patterns_by_name,
        reflexive=_words(context, "reflexive_words"),
        perfect=_words(context, "perfect_words"),
        event_marks=_words(context, "event_marks"),
    )


def _words(context: ContextEntry, key: str) -> frozenset[str]:
    return frozenset(fold(w) for w in given_or_shipped(context, "context", key))


def time_opening(context: ContextEntry) -> re.Pattern[str] | None:
    """A time cue (now, past, then…) said before what it times: at a clause start, a critical
    word's values continue there."""
    words = [fold(w) for e in context.cues if e.kind in ("now", "past", "now_clause", "ongoing", "then") and e.direction == "before"
             for w in e.words]
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(alternatives) if alternatives else None
