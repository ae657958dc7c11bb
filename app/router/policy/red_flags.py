"""The ``[p0]`` and ``[symptoms]`` sections (SPEC §3.5, §4.7): the red-flag concepts, their terms
and bounded patterns, soft forms and severity questions, critical values, blood pressure, infant
fever, and the symptom families every sick child is asked about — models, checks, compiled form.

The module runs past 400 lines on purpose: the two sections compile into one ``RedFlagRules`` (the
symptom families' patterns share the concepts' pattern index, their questions the severity
questions) and are checked against each other (a symptom word is never a P0 term or safe phrase),
so each grows with the other; split, one vocabulary change would touch both modules.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field, StringConstraints

from ..context import ContextRules
from ..numerals import CHARS
from ..patterns import heads, pattern_problems
from ..text import CLAUSE_ENDS, fold
from .common import Groups, Name, NonEmpty, Strict, Terms, given_or_shipped
from .cues import ContextEntry, compile_context, time_opening

# ------------------------------------------------------------------------------------------------
# The sections: p0 (concepts, safe phrases, critical values, blood pressure, infant fever), symptoms
# ------------------------------------------------------------------------------------------------


class ConceptEntry(Strict):
    id: Name
    group: Name
    terms: Terms
    patterns: dict[Name, NonEmpty] = {}
    # SPEC §4.7 "Soft signs ask": parents' mild forms; a current one asks `severity_question`.
    soft_terms: list[NonEmpty] = []
    # …and the families of them a bounded pattern says better than a list (精神没以前好, 尿比之前少):
    # a current match asks like a soft term; names share one namespace with `patterns`.
    soft_patterns: dict[Name, NonEmpty] = {}
    severity_question: NonEmpty | None = None
    # A mention of the concept counts only in a text that holds one of these (肾病: the complications
    # of nephrotic syndrome are other things elsewhere).
    only_with: list[NonEmpty] = []
    # Two mild forms of one sign said of the child now, each of another facet, are its strong form
    # (poor spirits and wanting to sleep all the time are IMCI's "lethargic"): name → the facets,
    # each a list of the concept's soft terms and soft pattern names. Across clauses, as parents say
    # them ("精神不好，总想睡觉"); a pattern's gap never crosses a comma.
    together: dict[Name, Annotated[list[Terms], Field(min_length=2)]] = {}


class CriticalValueEntry(Strict):
    analyte: NonEmpty
    concept: Name
    name: Name
    words: Terms
    threshold: Annotated[float, Field(gt=0)]
    plausible_max: Annotated[float, Field(gt=0)]
    units: Terms
    window: Annotated[int, Field(ge=1, le=40)]


class InfantFeverEntry(Strict):
    concept: Name
    name: Name
    min_celsius: Annotated[float, Field(ge=35, le=43)]
    max_celsius: Annotated[float, Field(ge=35, le=45)]
    max_age_days: Annotated[int, Field(ge=1, le=365)]
    child_words: Terms  # unused since SPEC §4.7 revision 3 (the slot readers read the age)
    # A fever said without a number (``_fever_word``); each absent in a policy written before it
    # (the released one): the shipped file's, the words that were code then.
    fever_words: list[NonEmpty] | None = None
    fever_patterns: list[NonEmpty] | None = None
    hot: NonEmpty | None = None
    hot_body: list[NonEmpty] | None = None
    hot_degree: list[NonEmpty] | None = None


class BloodPressureEntry(Strict):
    concept: Name
    name: Name
    words: Terms  # a single value after one of these is the systolic one…
    diastolic_words: Terms  # …after one of these the diastolic one
    systolic: Annotated[int, Field(ge=100, le=300)]
    diastolic: Annotated[int, Field(ge=60, le=200)]
    child_systolic: Annotated[int, Field(ge=100, le=300)]
    child_diastolic: Annotated[int, Field(ge=60, le=200)]
    window: Annotated[int, Field(ge=1, le=20)]
    not_before: list[NonEmpty] = []  # 高压锅: what a word is not when these follow it
    more: NonEmpty | None = None  # 血压170多; absent (a policy before it): the shipped file's
    age_unit: NonEmpty | None = None  # 12岁: a child's text; absent: the shipped file's


class P0Entry(Strict):
    safe_phrases: Terms
    critical_values: Annotated[list[CriticalValueEntry], Field(min_length=1)]
    blood_pressure: BloodPressureEntry | None = None  # absent: no blood-pressure values (a policy before SPEC §3.5 rev 2)
    infant_fever: InfantFeverEntry
    concepts: Annotated[list[ConceptEntry], Field(min_length=1)]


# SPEC §4.7 revision 3, "Every sick child is asked": the symptom families and their questions.
SymptomId = Annotated[str, StringConstraints(pattern=r"^symptom\.[a-z][a-z0-9_]*$")]


class SymptomConceptEntry(Strict):
    id: SymptomId
    question: NonEmpty
    # P0 concepts whose severity question this one answers when acknowledged (IMCI's general signs).
    stands_for: list[Name] = []
    # P0 concepts whose sign the question asks about now (IMCI: 抽过风, 呼吸很费力): a no answers
    # whether a non-current mention of theirs is happening now, as an acknowledgement would.
    answers_now: list[Name] = []


class CompoundEntry(Strict):
    """Terms spelled as every ``first`` + (nothing or one of ``middle``) + ``last``: 肚子有点疼."""

    first: Terms
    middle: list[NonEmpty] = []
    last: Terms

    def terms(self) -> list[str]:
        return [f + m + t for f in self.first for m in ["", *self.middle] for t in self.last]


class SymptomFamilyEntry(Strict):
    name: Name
    concept: SymptomId
    terms: Terms
    patterns: dict[Name, NonEmpty] = {}
    # Terms a list would spell out by the hundred (a body part, a qualifier, a pain word); one that is
    # a P0 term or another family's stays theirs (the red flag takes it anyway).
    compounds: list[CompoundEntry] = []

    def all_terms(self, taken: set[str]) -> list[str]:
        """The family's terms, then its compounds' not in ``taken`` (folded P0 terms) or listed."""
        listed = {fold(t) for t in self.terms}
        spelled = [t for c in self.compounds for t in c.terms() if fold(t) not in taken and fold(t) not in listed]
        return self.terms + list(dict.fromkeys(spelled))


class SymptomsEntry(Strict):
    not_inside: list[NonEmpty] = []  # phrases that hold a symptom word and are none (the longer hides it)
    # The family whose question every sick child is asked once (WHO IMCI: the general danger signs in
    # every sick child), in the first turn that asks about any current sign of the child.
    every_sick_child: SymptomId | None = None
    concepts: Annotated[list[SymptomConceptEntry], Field(min_length=1)]
    families: Annotated[list[SymptomFamilyEntry], Field(min_length=1)]


# ------------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------------


def check(p0: P0Entry, symptoms: SymptomsEntry | None) -> list[str]:
    """Concepts: a term in one concept only, soft forms with their question, patterns bounded and
    opening with a literal, safe phrases that hide a term, critical values and fevers that add up."""
    problems: list[str] = []
    concept_ids = [c.id for c in p0.concepts]
    if len(set(concept_ids)) != len(concept_ids):
        problems.append("p0.concepts: a concept id is listed twice")
    owner: dict[str, str] = {}
    names: set[str] = set()
    for concept in p0.concepts:
        where = f"p0.concepts.{concept.id}"
        for term in concept.terms + concept.soft_terms:
            key = fold(term)
            if key in owner:
                problems.append(f"{where}.terms: {term!r} is already a term of {owner[key]}")
            owner[key] = concept.id
        if bool(concept.soft_terms or concept.soft_patterns) != (concept.severity_question is not None):
            problems.append(f"{where}: soft_terms and severity_question go together")
        problems.extend(f"{where}.soft_patterns: {name!r} is a hard pattern too"
                        for name in concept.soft_patterns if name in concept.patterns)
        for name, pattern in (concept.patterns | concept.soft_patterns).items():
            if name in names:
                problems.append(f"{where}.patterns: pattern name {name!r} is used twice")
            names.add(name)
            found = pattern_problems(pattern)
            if not found and heads(pattern) is None:
                found = ["must start with a literal character, a class of them or a choice of them"]
            problems.extend(f"{where}.patterns.{name}: {p}" for p in found)
        soft = {fold(t) for t in concept.soft_terms} | set(concept.soft_patterns)
        for name, facets in concept.together.items():
            if name in names:
                problems.append(f"{where}.together: name {name!r} is used twice")
            names.add(name)
            problems.extend(f"{where}.together.{name}: {item!r} is no soft term or soft pattern of the concept"
                            for facet in facets for item in facet if fold(item) not in soft and item not in soft)
            items = [fold(item) for facet in facets for item in set(facet)]
            # One mention in two facets would be a together rule of one mild form: it would halt alone.
            problems.extend(f"{where}.together.{name}: {item!r} is in two facets"
                            for item in sorted({i for i in items if items.count(i) > 1}))
    compiled = [re.compile(p) for c in p0.concepts for p in (c.patterns | c.soft_patterns).values() if not pattern_problems(p)]
    for phrase in p0.safe_phrases:
        key = fold(phrase)
        if key in owner:
            problems.append(f"p0.safe_phrases: {phrase!r} is itself a P0 term")
        elif not any(term in key for term in owner) and not any(p.search(key) for p in compiled):
            problems.append(f"p0.safe_phrases: {phrase!r} contains no P0 term or pattern, so it suppresses nothing")
    for rule in p0.critical_values:
        if rule.plausible_max <= rule.threshold:
            problems.append(f"p0.critical_values.{rule.analyte}: plausible_max must be above threshold")
        for word in rule.words:
            folded = fold(word)
            if folded and folded[-1] in CHARS:  # slots.analytes reads one number scan: a numeral would run into it
                problems.append(f"p0.critical_values.{rule.analyte}: {word!r} ends with a numeral character")
        if rule.concept not in concept_ids:
            problems.append(f"p0.critical_values.{rule.analyte}: unknown concept {rule.concept!r}")
    if p0.blood_pressure is not None and p0.blood_pressure.concept not in concept_ids:
        problems.append(f"p0.blood_pressure: unknown concept {p0.blood_pressure.concept!r}")
    fever = p0.infant_fever
    if fever.concept not in concept_ids:
        problems.append(f"p0.infant_fever: unknown concept {fever.concept!r}")
    if fever.max_celsius <= fever.min_celsius:
        problems.append("p0.infant_fever: max_celsius must be above min_celsius")
    problems.extend(f"p0.infant_fever.fever_patterns: {pattern!r} {p}"
                    for pattern in fever.fever_patterns or () for p in pattern_problems(pattern))

    if symptoms is not None:
        problems.extend(_check_symptoms(symptoms, p0, owner, names))
    return problems


def _check_symptoms(symptoms: SymptomsEntry, p0: P0Entry, owner: dict[str, str], names: set[str]) -> list[str]:
    """Symptom families: known concepts, each concept with a family, a word in one family only and
    never a P0 term or safe phrase (the red flag would always take it), patterns like P0's."""
    problems: list[str] = []
    ids = [c.id for c in symptoms.concepts]
    if len(set(ids)) != len(ids):
        problems.append("symptoms.concepts: a concept id is listed twice")
    p0_ids = {c.id: c for c in p0.concepts}
    if symptoms.every_sick_child is not None and symptoms.every_sick_child not in ids:
        problems.append(f"symptoms.every_sick_child: unknown symptom concept {symptoms.every_sick_child!r}")
    for concept in symptoms.concepts:
        for target in concept.answers_now:
            if target not in p0_ids:
                problems.append(f"symptoms.concepts.{concept.id}.answers_now: unknown P0 concept {target!r}")
        for target in concept.stands_for:
            if target not in p0_ids:
                problems.append(f"symptoms.concepts.{concept.id}.stands_for: unknown P0 concept {target!r}")
            elif p0_ids[target].severity_question is None:
                problems.append(f"symptoms.concepts.{concept.id}.stands_for: {target!r} has no severity question")
    safe = {fold(t) for t in p0.safe_phrases}
    family_names: set[str] = set()
    used: set[str] = set()
    mine: dict[str, str] = {}
    for family in symptoms.families:
        where = f"symptoms.families.{family.name}"
        if family.name in family_names:
            problems.append(f"{where}: family name listed twice")
        family_names.add(family.name)
        if family.concept not in ids:
            problems.append(f"{where}: unknown symptom concept {family.concept!r}")
        used.add(family.concept)
        for term in family.terms:
            key = fold(term)
            if key in owner:
                problems.append(f"{where}.terms: {term!r} is a P0 term of {owner[key]}")
            elif key in safe:
                problems.append(f"{where}.terms: {term!r} is a P0 safe phrase")
            elif key in mine:
                problems.append(f"{where}.terms: {term!r} is already a term of {mine[key]}")
            mine[key] = family.name
        for name, pattern in family.patterns.items():
            if name in names:
                problems.append(f"{where}.patterns: pattern name {name!r} is used twice")
            names.add(name)
            found = pattern_problems(pattern)
            if not found and heads(pattern) is None:
                found = ["must start with a literal character, a class of them or a choice of them"]
            problems.extend(f"{where}.patterns.{name}: {p}" for p in found)
    problems.extend(f"symptoms.concepts.{c}: no family names it" for c in ids if c not in used)
    for phrase in symptoms.not_inside:
        key = fold(phrase)
        if key in mine:
            problems.append(f"symptoms.not_inside: {phrase!r} is itself a symptom term")
        elif not any(term in key for term in mine):
            problems.append(f"symptoms.not_inside: {phrase!r} contains no symptom term, so it hides nothing")
    return problems


# ------------------------------------------------------------------------------------------------
# Compiled form
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CriticalValue:
    analyte: str
    concept: str
    name: str
    threshold: float
    plausible_max: float
    units: frozenset[str]
    window: int  # unused since SPEC §4.7 revision 3 (slots.analytes reads a value's clause)
    # the analyte's words are the lexicon's "critical" group, payload = this rule's index


@dataclass(frozen=True, slots=True)
class BloodPressure:
    concept: str
    name: str
    limits: tuple[int, int]  # (systolic, diastolic) at any age
    child_limits: tuple[int, int]  # … in a child (a patient word or an age under 18 in the text)
    reading: re.Pattern[str]  # groups: w (the word), s (first value), d (the value after a slash)
    pair: re.Pattern[str]  # two values with a slash and no word (量了170/110的血压): groups s, d
    diastolic_words: frozenset[str]
    child: re.Pattern[str]
    # Strings one of which every pressure word holds (压, bp): a text with none of them has no
    # reading after a word, found by a C-level ``in`` each before any pattern runs.
    clues: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InfantFever:
    concept: str
    name: str
    min_celsius: float
    max_celsius: float
    max_age_days: int  # the age and its upper bounds are the slot readers' (SPEC §4.7 revision 3)
    fever_word: re.Pattern[str]  # a fever said without a number (新生儿发烧, 摸着很烫)


@dataclass(frozen=True, slots=True)
class RedFlagRules:
    concept_ids: tuple[str, ...]
    # the first two characters of a text position, or its first one when no pair is listed → the
    # patterns that can start there (``patterns.heads``), as (pattern, its name, its concept)
    pattern_starts: dict[str, tuple[tuple[re.Pattern[str], str, str], ...]]
    pattern_prefilter: re.Pattern[str] | None  # where a key of ``pattern_starts`` opens
    critical_values: tuple[CriticalValue, ...]
    time_opening: re.Pattern[str] | None  # a time cue at a clause start: a critical word's values continue there
    blood_pressure: BloodPressure | None
    infant_fever: InfantFever
    context: ContextRules
    soft_terms: frozenset[str]  # folded soft terms and soft pattern names: a current mention of one asks its severity question
    severity_questions: dict[str, str]  # concept id → its question
    only_with: dict[str, re.Pattern[str]]  # concept id → the words one of which its text must hold
    # concept id → (name, facets): current soft mentions of every facet together halt under the name
    together: dict[str, tuple[tuple[str, tuple[frozenset[str], ...]], ...]]
    term_count: int
    pattern_count: int
    # SPEC §4.7 revision 3: the symptom concepts (their families' words are the lexicon's "symptom"
    # group, their patterns in ``pattern_starts`` under the concept) and, per concept, the P0
    # concepts whose severity question its acknowledgement answers. Their questions are in
    # ``severity_questions``.
    symptom_concepts: frozenset[str] = frozenset()
    # The concept of the symptom family named "fever": a current temperature reading of the child at
    # or above the fever threshold, as the slot readers read it (高热39, 额温38.6, a bare 39度), is a
    # mention of it — one reading of every value; None when the policy has no such family.
    fever_symptom: str | None = None
    every_sick_child: str | None = None  # asked beside the first question about a current sign
    stands_for: dict[str, frozenset[str]] = field(default_factory=dict)
    # per symptom concept, every P0 concept a no to its question says is not happening now (its
    # ``stands_for`` and its ``answers_now``): their non-current mentions ask no more
    answers_now: dict[str, frozenset[str]] = field(default_factory=dict)


_CN = "零一二两三四五六七八九十"


def compile_rules(p0: P0Entry, context: ContextEntry, symptoms: SymptomsEntry | None = None) -> RedFlagRules:
    patterns = tuple(
        (re.compile(pattern), name, concept.id) for concept in p0.concepts
        for name, pattern in (concept.patterns | concept.soft_patterns).items()
    ) + tuple(
        (re.compile(pattern), name, family.concept) for family in (symptoms.families if symptoms else ())
        for name, pattern in family.patterns.items()
    )
    opening = {compiled: heads(compiled[0].pattern) or frozenset() for compiled in patterns}
    # A two-character key lists the patterns that open with it or with its first character alone.
    starts = {key: tuple(c for c in patterns if key in opening[c] or key[0] in opening[c])
              for key in sorted(frozenset().union(*opening.values()))}
    fever = p0.infant_fever
    fever_word = _fever_word(fever)
    kid = "|".join(re.escape(fold(w)) for w in sorted(context.patient_words, key=len, reverse=True))
    return RedFlagRules(
        concept_ids=tuple(c.id for c in p0.concepts),
        pattern_starts={ch: tuple(found) for ch, found in starts.items()},
        pattern_prefilter=_prefilter(starts),
        critical_values=tuple(
            CriticalValue(c.analyte, c.concept, c.name, c.threshold, c.plausible_max, frozenset(fold(u) for u in c.units), c.window)
            for c in p0.critical_values
        ),
        time_opening=time_opening(context),
        blood_pressure=_blood_pressure(p0.blood_pressure, kid) if p0.blood_pressure else None,
        infant_fever=InfantFever(fever.concept, fever.name, fever.min_celsius, fever.max_celsius, fever.max_age_days, fever_word),
        context=compile_context(context, {name: compiled for compiled, name, _ in patterns}),
        soft_terms=frozenset([fold(t) for c in p0.concepts for t in c.soft_terms]
                             + [name for c in p0.concepts for name in c.soft_patterns]),
        severity_questions={c.id: c.severity_question for c in p0.concepts if c.severity_question}
        | {c.id: c.question for c in (symptoms.concepts if symptoms else ())},
        only_with={c.id: re.compile("|".join(re.escape(fold(w)) for w in c.only_with)) for c in p0.concepts if c.only_with},
        together={c.id: tuple((name, tuple(frozenset(fold(t) for t in facet) for facet in facets))
                              for name, facets in c.together.items()) for c in p0.concepts if c.together},
        term_count=sum(len(c.terms) + len(c.soft_terms) for c in p0.concepts),
        pattern_count=len(patterns),
        symptom_concepts=frozenset(c.id for c in (symptoms.concepts if symptoms else ())),
        every_sick_child=symptoms.every_sick_child if symptoms else None,
        fever_symptom=next((f.concept for f in (symptoms.families if symptoms else ()) if f.name == "fever"), None),
        stands_for={c.id: frozenset(c.stands_for) for c in (symptoms.concepts if symptoms else ()) if c.stands_for},
        answers_now={c.id: frozenset(c.stands_for) | frozenset(c.answers_now)
                     for c in (symptoms.concepts if symptoms else ()) if c.stands_for or c.answers_now},
    )


def _prefilter(starts: dict[str, tuple[tuple[re.Pattern[str], str, str], ...]]) -> re.Pattern[str] | None:
    """Where a key of ``starts`` opens: one alternative per first character, alone when a key is
    that character, else followed by a look-ahead for the keys' second characters. Each
    alternative opens with a literal, so sre skips in C to the next first character, and a match
    consumes one character: every position is looked at."""
    keys: dict[str, list[str]] = {}
    for key in starts:
        keys.setdefault(key[0], []).append(key)
    alternatives = [
        re.escape(first) if first in pairs else f"{re.escape(first)}(?=[{''.join(re.escape(key[1]) for key in pairs)}])"
        for first, pairs in keys.items()
    ]
    return re.compile("|".join(alternatives)) if alternatives else None


def _fever_word(fever: InfantFeverEntry) -> re.Pattern[str]:
    """A fever said without a number (新生儿发烧, 摸着很烫): the policy's fever words and patterns,
    tried in its order, then 烫 said of the body (身上有点烫, 额头挺烫: 水有点烫 is the bath). Every
    alternative opens with a literal (the body words distributed, the same tries in the same order),
    so sre skips in C to the next possible first character: a group first made it try the whole
    pattern at every position, 2.4 µs of a dev text's route_request (0.6 µs so)."""
    def words(key: str) -> list[str]:
        return [re.escape(fold(w)) for w in given_or_shipped(fever, "p0.infant_fever", key)]

    hot = re.escape(fold(given_or_shipped(fever, "p0.infant_fever", "hot")))
    degree = "|".join(words("hot_degree"))
    return re.compile("|".join(words("fever_words") + list(given_or_shipped(fever, "p0.infant_fever", "fever_patterns"))
                               + [f"{body}(?:{degree})?{hot}" for body in words("hot_body")]))


def _clues(words: list[str]) -> tuple[str, ...]:
    """Few short strings, one of which every word holds: the character most of the words left hold,
    in turn; a word in ASCII letters is its own (a letter alone is in every English text)."""
    left, clues = list(dict.fromkeys(words)), []
    while left:
        counts = Counter(ch for w in left if not w.isascii() for ch in set(w))
        clue = max(counts, key=counts.__getitem__) if counts else left[0]
        clues.append(clue)
        left = [w for w in left if clue not in w]
    return tuple(clues)


def _blood_pressure(bp: BloodPressureEntry, kid: str) -> BloodPressure:
    words = "|".join(re.escape(fold(w)) for w in sorted(bp.words + bp.diastolic_words, key=len, reverse=True))
    not_before = "|".join(re.escape(fold(w)) for w in bp.not_before)
    more = re.escape(fold(given_or_shipped(bp, "p0.blood_pressure", "more")))
    year = re.escape(fold(given_or_shipped(bp, "p0.blood_pressure", "age_unit")))
    # 血压175/115, 高压180, 血压170多, 收缩压 185 mmHg, 血压一百八十/一百二十, 高压一百八: a word, a short
    # gap in the clause with no digit, the first value and perhaps a second after a slash; a value
    # in Chinese numerals is read by the project's converter (``numerals``), as every number is.
    value = f"[0-9]{{2,3}}(?![0-9.])|(?<![{_CN}百])[{_CN}百]{{2,6}}"
    reading = re.compile(
        f"(?P<w>{words})" + (f"(?!{not_before})" if not_before else "")
        + f"[^{CLAUSE_ENDS}0-9]{{0,{bp.window}}}?(?<![0-9.])(?P<s>{value})(?:{more})?"
        f"(?:\\s?/\\s?(?P<d>{value}))?"
    )
    # A patient word or an age under 18 (5岁, 十二岁) makes the text a child's.
    child = re.compile(f"{kid}|(?<![0-9])(?:1[0-7]|[1-9]){year}|[一二两三四五六七八九]{year}|十[一二三四五六七]?{year}")
    pair = re.compile("(?<![0-9./])(?P<s>[0-9]{2,3})\\s?/\\s?(?P<d>[0-9]{2,3})(?![0-9./])")
    return BloodPressure(bp.concept, bp.name, (bp.systolic, bp.diastolic), (bp.child_systolic, bp.child_diastolic), reading, pair,
                         frozenset(fold(w) for w in bp.diastolic_words), child,
                         _clues([fold(w) for w in bp.words + bp.diastolic_words]))


def p0_words(p0: P0Entry) -> Groups:
    """The red-line lexicon's groups: "p0", each term with its concept id (None for a safe phrase,
    which only hides the term inside it), and "critical", each analyte word with its rule's index."""
    return {
        "p0": [(fold(t), c.id) for c in p0.concepts for t in c.terms + c.soft_terms] + [(fold(t), None) for t in p0.safe_phrases],
        "critical": [(fold(w), n) for n, c in enumerate(p0.critical_values) for w in c.words],
    }


def symptom_words(p0: P0Entry, symptoms: SymptomsEntry | None) -> Groups:
    """The lexicon group "symptom": each family's words, payload its concept (None for a phrase that
    only hides the word inside it); a compound that is a P0 term or safe phrase stays theirs."""
    if symptoms is None:
        return {}
    taken = {fold(t) for c in p0.concepts for t in c.terms + c.soft_terms} | {fold(t) for t in p0.safe_phrases}
    return {"symptom": [(fold(t), f.concept) for f in symptoms.families for t in f.all_terms(taken)]
            + [(fold(t), None) for t in symptoms.not_inside]}
