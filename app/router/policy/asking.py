"""Intents and what is asked: the intents and their keywords, the question words, the rules of what
a question asks first (foods, medicines, readings, feeding, how serious) and the medicine words —
models, checks, compiled form."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Literal, Mapping

from pydantic import Field, StringConstraints

from ..text import fold
from .access import unknown_roles, unregistered
from .common import Groups, NonEmpty, Strict, Terms, alternation, duplicates, given_or_shipped, hides, overlaps, owned_by

# ------------------------------------------------------------------------------------------------
# The sections: intents, asking, medicines
# ------------------------------------------------------------------------------------------------


class IntentEntry(Strict):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z_]*$")]
    mcp: NonEmpty
    priority: Annotated[int, Field(ge=0, le=5)]
    allowed_callers: Terms
    keywords: list[NonEmpty]
    required_slots: list[Literal["patient_id", "food"]]
    keyword_notes: dict[NonEmpty, NonEmpty] = {}


class AskingEntry(Strict):
    question_words: Terms
    # Session 4 (issue 21); absent: none. Words holding a question word that ask nothing: the
    # indefinite uses (这几天, 没什么, 不怎么, 什么都); each hides the question word inside it.
    not_question_words: list[NonEmpty] = []
    weak_keywords: Terms
    consume_verbs: Terms
    food_intent: NonEmpty
    medicine_intent: NonEmpty
    # SPEC §4.2 revision 2 (issue 21). Absent in a policy written before it: each rule off, as
    # released (no diet-advice redirect, lab_result needs nothing to read, no form heading).
    advice_intent: NonEmpty | None = None
    diet_advice: list[NonEmpty] = []
    reading_intent: NonEmpty | None = None
    reading_words: list[NonEmpty] = []
    # Session 4 (issue 21); absent: none. Phrases holding a reading word that read nothing: a visit
    # (去医院看看 is going to see a doctor, not looking at a result). Matched with the reading words,
    # longest first, so each hides the reading word inside it.
    not_reading_words: list[NonEmpty] = []
    reading_generic: list[NonEmpty] = []
    form_headings: list[NonEmpty] = []
    # Absent in a policy written before it: no split feeding question (奶粉可以照常喝吗 is knowledge).
    feeding_modals: list[NonEmpty] = []
    feeding_verbs: list[NonEmpty] = []
    # Issue 21, each absent in a policy written before it (rule off): colloquial question endings
    # (可以吃香蕉嘛, 能喝酸奶不), a reading word that asks a norm (正常值是多少), how-serious questions.
    question_endings: list[NonEmpty] = []
    not_question_endings: list[NonEmpty] = []
    reading_questions: list[NonEmpty] = []
    reference_words: list[NonEmpty] = []
    serious_intent: NonEmpty | None = None
    serious_questions: list[NonEmpty] = []
    general_subjects: list[NonEmpty] = []
    # Session 4 (issue 21); absent: rule off. Keywords of serious_intent that ask what a thing did to
    # the child (有影响吗): about a food or a medicine just named, that thing's intent decides.
    effect_questions: list[NonEmpty] = []
    # The grammar of what a clause asks (``Asking``): trailing particles, the endings that ask about a
    # food, what names no consume verb's object, a verb of amount, a result's direction, the units of
    # a number that is no result, a food as a vehicle. Each absent in a policy written before it (the
    # released one): the shipped file's, the words that were code then.
    trailing_particles: list[NonEmpty] | None = None
    food_question_ends: list[NonEmpty] | None = None
    no_object: list[NonEmpty] | None = None
    amount_mark: NonEmpty | None = None
    value_directions: list[NonEmpty] | None = None
    not_value_units: list[NonEmpty] | None = None
    value_about: NonEmpty | None = None
    vehicles: list[NonEmpty] | None = None


class MedicinesEntry(Strict):
    names: Terms
    suffixes: Terms
    not_medicines: Terms
    not_before_suffix: list[NonEmpty] | None = None  # absent: the shipped file's


# ------------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------------


def check_intents(intents: list[IntentEntry], roles: set[str], ids: set[str]) -> tuple[list[str], dict[str, str]]:
    """The problems of the intents, and each folded keyword's intent (what ``check_asking`` reads)."""
    problems: list[str] = []
    intent_names = [i.name for i in intents]
    if len(set(intent_names)) != len(intent_names):
        problems.append("intents: an intent is listed twice")
    keyword_owner: dict[str, str] = {}
    unscored = [i.name for i in intents if not i.keywords]
    if len(unscored) != 1:
        problems.append("intents: exactly one intent (the P0 emergency intent) must have no keywords")
    for intent in intents:
        where = f"intents.{intent.name}"
        problems += unregistered(where, intent.mcp, ids)
        problems += unknown_roles(where + ".allowed_callers", intent.allowed_callers, roles)
        for word in intent.keywords:
            key = fold(word)
            if key in keyword_owner:
                problems.append(f"{where}.keywords: {word!r} overlaps a keyword of {keyword_owner[key]}")
            keyword_owner[key] = intent.name
        for word in intent.keyword_notes:
            if fold(word) not in {fold(k) for k in intent.keywords}:
                problems.append(f"{where}.keyword_notes: {word!r} is not one of its keywords")
    for intent in intents:
        if not intent.keywords and intent.priority != 0:
            problems.append(f"intents.{intent.name}: the emergency intent must have priority 0")
    return problems, keyword_owner


def check_asking(asking: AskingEntry, medicines: MedicinesEntry, keyword_owner: Mapping[str, str]) -> list[str]:
    """Weak words and consume verbs are intent keywords; the verbs belong to the food intent; a
    word that is not a medicine must hide a medicine word, or it suppresses nothing."""
    problems: list[str] = []
    if (asking.diet_advice or asking.reading_intent) and not asking.advice_intent:
        problems.append("asking.advice_intent: required by asking.diet_advice and asking.reading_intent")
    if (asking.reading_words or asking.reading_generic) and not asking.reading_intent:
        problems.append("asking.reading_intent: required by asking.reading_words and asking.reading_generic")
    for attr in ("food_intent", "medicine_intent", "advice_intent", "reading_intent", "serious_intent"):
        name = getattr(asking, attr)
        if name is not None and name not in keyword_owner.values():
            problems.append(f"asking.{attr}: {name!r} is not a scored intent")
    for word in asking.weak_keywords:
        if fold(word) not in keyword_owner:
            problems.append(f"asking.weak_keywords: {word!r} is not an intent keyword")
    owned_by(problems, "asking.consume_verbs", asking.consume_verbs, asking.food_intent, keyword_owner)
    duplicates(problems, "asking.question_words", asking.question_words)
    duplicates(problems, "asking.weak_keywords", asking.weak_keywords)
    duplicates(problems, "asking.consume_verbs", asking.consume_verbs)
    duplicates(problems, "asking.reading_words", asking.reading_words)
    duplicates(problems, "asking.diet_advice", asking.diet_advice)
    owned_by(problems, "asking.reading_generic", asking.reading_generic, asking.reading_intent, keyword_owner)
    owned_by(problems, "asking.diet_advice", asking.diet_advice, asking.food_intent, keyword_owner)
    duplicates(problems, "asking.form_headings", asking.form_headings)
    duplicates(problems, "asking.feeding_modals", asking.feeding_modals)
    duplicates(problems, "asking.feeding_verbs", asking.feeding_verbs)
    if bool(asking.feeding_modals) != bool(asking.feeding_verbs):
        problems.append("asking.feeding_modals and asking.feeding_verbs: both or neither")
    overlaps(problems, "asking", {"question_endings": asking.question_endings, "not_question_endings": asking.not_question_endings})
    for word in asking.reading_questions:
        if word not in asking.reading_words:
            problems.append(f"asking.reading_questions: {word!r} is not one of asking.reading_words")
    if asking.reading_questions and not asking.reference_words:
        problems.append("asking.reference_words: required by asking.reading_questions")
    duplicates(problems, "asking.general_subjects", asking.general_subjects)
    if asking.general_subjects and not asking.serious_intent:
        problems.append("asking.serious_intent: required by asking.general_subjects")
    if bool(asking.serious_questions) != bool(asking.serious_intent):
        problems.append("asking.serious_intent and asking.serious_questions: both or neither")
    owned_by(problems, "asking.serious_questions", asking.serious_questions, asking.serious_intent, keyword_owner)
    if asking.effect_questions and not asking.serious_intent:
        problems.append("asking.serious_intent: required by asking.effect_questions")
    duplicates(problems, "asking.effect_questions", asking.effect_questions)
    owned_by(problems, "asking.effect_questions", asking.effect_questions, asking.serious_intent, keyword_owner)
    overlaps(problems, "asking", {"question_words": asking.question_words, "not_question_words": asking.not_question_words})
    overlaps(problems, "asking", {"reading_words": asking.reading_words, "not_reading_words": asking.not_reading_words})
    asked = [fold(w) for w in asking.question_words]
    hides(problems, "asking.not_reading_words", asking.not_reading_words, [fold(w) for w in asking.reading_words], "reading word")
    hides(problems, "asking.not_question_words", asking.not_question_words, asked, "question word")
    hides(problems, "asking.form_headings", asking.form_headings, list(keyword_owner) + asked, "intent keyword or question word")
    for where, entry, key in (("asking", asking, "trailing_particles"), ("asking", asking, "no_object"),
                              ("medicines", medicines, "not_before_suffix")):
        problems.extend(f"{where}.{key}: {word!r} is not one character" for word in given_or_shipped(entry, where, key)
                        if len(fold(word)) != 1)
    overlaps(problems, "medicines", {"names": medicines.names, "suffixes": medicines.suffixes, "not_medicines": medicines.not_medicines})
    medicine_words = [fold(w) for w in medicines.names + medicines.suffixes]
    for word in medicines.not_medicines:
        if not any(m in fold(word) for m in medicine_words):
            problems.append(f"medicines.not_medicines: {word!r} contains no medicine word, so it suppresses nothing")
    return problems


# ------------------------------------------------------------------------------------------------
# Compiled form
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Intent:
    name: str
    mcp: str  # registry name
    priority: int
    order: int
    allowed_callers: tuple[str, ...]
    required_slots: tuple[str, ...]
    keyword_notes: dict[str, str]


@dataclass(frozen=True, slots=True)
class Asking:
    """SPEC §4.2 "What is asked counts first", folded. Question words and medicines are lexicon
    groups ("question", "medicine"); these are the sets classify reads per hit."""

    weak_keywords: frozenset[str]
    consume_verbs: frozenset[str]
    food_intent: str
    medicine_intent: str
    advice_intent: str  # diet advice with no food; a reading intent with nothing to read ("": rule off)
    diet_advice: frozenset[str]  # keywords of food_intent that ask advice: advice_intent without a food
    reading_intent: str  # needs a result to read (``reading``, or a number in a clause of its keywords; "": off)
    # The reading words, searched only in a text where the reading intent scored: kept out of the
    # shared automaton, where words as common as 多少 and 看看 cost every text a hit each.
    reading: re.Pattern[str] | None
    reading_generic: frozenset[str]  # keywords of reading_intent whose clause's digits read nothing
    trailing: frozenset[str]  # said after a clause's last word without changing what it asks (啊, ~)
    food_question_ends: tuple[str, ...]  # a clause ending so asks about its food (奶粉还喂吗)
    no_object: re.Pattern[str]  # after a consume verb, a run of what names nothing (么, 点, 的吧)
    amount_mark: str  # a consume verb holding it asks an amount (喝多少): never without an object
    value_directions: tuple[str, ...]  # right after a reading keyword: its value went somewhere (肌酐高)
    value: re.Pattern[str]  # a number that can be a test's value: no age, time, count or body measure
    vehicles: tuple[str, ...]  # after a food: what is put in it is asked (米糊里拌上药粉)
    not_before_suffix: frozenset[str]  # before a medicine suffix: a portion (两片, 几粒), no medicine
    # A modal, then within a few characters a feeding verb (奶粉可以照常喝吗, 要不要停母乳): searched
    # only in the question clauses of a text that names a food (None: rule off).
    feeding: re.Pattern[str] | None = None
    # Clause endings (after the trailing particles) → whether they ask: the longest that ends a
    # clause decides (不好吧 asks, 好吧 does not); ``ending_max`` bounds the look-back.
    endings: dict[str, bool] = field(default_factory=dict)
    ending_max: int = 0
    # The last characters of the endings (吧, 么…): a clause that ends in none of them asks no
    # look-up at all (most clauses; every clause of a text with keywords is looked at).
    ending_last: frozenset[str] = frozenset()
    reading_questions: frozenset[str] = frozenset()  # reading words that ask a norm beside a reference word
    not_reading: frozenset[str] = frozenset()  # 去医院看看: matched with the reading words, reads nothing
    reference: re.Pattern[str] | None = None  # 正常值, 参考值: the clause asks the norm, not a reading
    serious_intent: str = ""  # a question clause that ends asking how serious decides it ("": off)
    serious_questions: frozenset[str] = frozenset()
    general: re.Pattern[str] | None = None  # 女性, 成年人: the clause asks about a disease in general
    effect_questions: frozenset[str] = frozenset()  # 有影响吗: asked of a food or medicine just named, its intent decides


def compile_intents(entries: list[IntentEntry], name_of: Mapping[str, str]) -> tuple[Intent, ...]:
    return tuple(
        Intent(
            name=i.name,
            mcp=name_of[i.mcp],
            priority=i.priority,
            order=n,
            allowed_callers=tuple(i.allowed_callers),
            required_slots=tuple(i.required_slots),
            keyword_notes={fold(k): v for k, v in i.keyword_notes.items()},
        )
        for n, i in enumerate(entries)
    )


# Blanks and the tilde, trailing a clause as its particles do (没事吧~): no words.
_BLANKS = " \t~"
# What a numeral is spelt with, before a medicine suffix a portion (两片, 半粒) as the policy's words are.
_NUMERALS = "零〇一二两三四五六七八九十百千万半"


def compile_asking(asking: AskingEntry, medicines: MedicinesEntry) -> Asking:
    endings = {fold(w): True for w in asking.question_endings} | {fold(w): False for w in asking.not_question_endings}

    def words(key: str) -> list[str]:
        return [fold(w) for w in given_or_shipped(asking, "asking", key)]

    trailing = "".join(words("trailing_particles")) + _BLANKS
    about = re.escape(fold(given_or_shipped(asking, "asking", "value_about")))
    return Asking(
        trailing=frozenset(trailing),
        food_question_ends=tuple(words("food_question_ends")),
        # Matched from the verb's end, the run stops at the first other character: runs after
        # different verbs never overlap.
        no_object=re.compile(f"[{re.escape(''.join(words('no_object')) + trailing)}]*+"),
        amount_mark=fold(given_or_shipped(asking, "asking", "amount_mark")),
        value_directions=tuple(words("value_directions")),
        # Only a run's first digit starts a match and the run is taken possessively: one attempt per
        # run, linear in the clause.
        value=re.compile(f"(?<![0-9.])[0-9]++(?:\\.[0-9]+)?+(?!(?:{about})?(?:{alternation(words('not_value_units'))}))"),
        vehicles=tuple(words("vehicles")),
        not_before_suffix=frozenset(_NUMERALS + "".join(fold(w) for w in given_or_shipped(medicines, "medicines", "not_before_suffix"))),
        weak_keywords=frozenset(fold(w) for w in asking.weak_keywords),
        consume_verbs=frozenset(fold(w) for w in asking.consume_verbs),
        food_intent=asking.food_intent,
        medicine_intent=asking.medicine_intent,
        advice_intent=asking.advice_intent or "",
        diet_advice=frozenset(fold(w) for w in asking.diet_advice),
        reading_intent=asking.reading_intent or "",
        reading_generic=frozenset(fold(w) for w in asking.reading_generic),
        reading=re.compile(alternation(asking.reading_words + asking.not_reading_words)) if asking.reading_words else None,
        not_reading=frozenset(fold(w) for w in asking.not_reading_words),
        feeding=_feeding(asking.feeding_modals, asking.feeding_verbs),
        endings=endings,
        ending_max=max(map(len, endings), default=0),
        ending_last=frozenset(w[-1] for w in endings if w),
        reading_questions=frozenset(fold(w) for w in asking.reading_questions),
        reference=re.compile(alternation(asking.reference_words)) if asking.reference_words else None,
        serious_intent=asking.serious_intent or "",
        serious_questions=frozenset(fold(w) for w in asking.serious_questions),
        general=re.compile(alternation(asking.general_subjects)) if asking.general_subjects else None,
        effect_questions=frozenset(fold(w) for w in asking.effect_questions),
    )


def intent_groups(entries: list[IntentEntry]) -> Groups:
    """The lexicon group "intent": every keyword, payload its intent's name."""
    return {"intent": [(fold(k), i.name) for i in entries for k in i.keywords]}


def asking_groups(asking: AskingEntry, medicines: MedicinesEntry) -> Groups:
    return {
        "question": [(fold(w), None) for w in asking.question_words] + [(fold(w), "not") for w in asking.not_question_words],
        "consume": [(fold(w), None) for w in asking.consume_verbs],
        "form": [(fold(w), None) for w in asking.form_headings],
        "medicine": [(fold(w), "name") for w in medicines.names]
        + [(fold(w), "suffix") for w in medicines.suffixes]
        + [(fold(w), "not") for w in medicines.not_medicines],
    }


# At most this many characters between a feeding question's modal and its verb (可以让宝宝吃).
FEEDING_GAP = 6


def _feeding(modals: list[str], verbs: list[str]) -> re.Pattern[str] | None:
    """The split feeding question of SPEC §4.2 revision 2: a modal, then a feeding verb at most
    ``FEEDING_GAP`` characters on; a modal that ends in a feeding verb (要停) is one by itself. The
    gap is bounded, so a search costs at most a constant per
    character of the clause it is run on."""
    if not modals:
        return None
    whole = [m for m in modals if m.endswith(tuple(verbs))]  # 要停 holds its verb
    split = f"(?:{alternation(modals)}).{{0,{FEEDING_GAP}}}?(?:{alternation(verbs)})"
    return re.compile(f"{split}|{alternation(whole)}" if whole else split, re.DOTALL)
