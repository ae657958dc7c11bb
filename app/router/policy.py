"""The policy: one TOML file, validated into pydantic models, compiled into matchers once.

``load_policy`` refuses a file with any inconsistency (unknown role in a rule, a write tool bound
to an unregistered MCP, overlapping aliases or keywords, empty lists, a missing matrix cell) and
names every problem it found. ``policy_version`` is the file's ``version`` plus the first 12 hex
digits of its sha256, so a logged decision can be traced to the exact rules that made it.

The module runs past 400 lines on purpose: the file's models, the cross-checks between its
sections and the compiled form change together whenever the policy grows a field, and splitting
them would put one change in three places.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Iterable, Literal, Mapping, Sequence, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from .facts import FactRules, FactsEntry, check as check_facts, compile_rules as compile_facts, lexicon_groups as fact_groups
from .lexicon import Lexicon
from .redflag_policy import ContextEntry, P0Entry, RedFlagRules, SymptomsEntry, check as check_red_flags, compile_rules
from .slot_words import SlotGrammar, SlotWords, compile_slot_words
from .text import fold

CELLS = ("R", "RL", "R/W", "-")
SLOT_NAMES = ("patient_id", "food")
MEALS = ("breakfast", "lunch", "dinner", "snack")

NonEmpty = Annotated[str, StringConstraints(min_length=1)]
Terms = Annotated[list[NonEmpty], Field(min_length=1)]


class PolicyError(ValueError):
    """A policy file that must not be served. ``problems`` lists every reason, one per line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid policy:\n" + "\n".join(f"  - {p}" for p in problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class McpEntry(_Strict):
    name: NonEmpty
    serves: NonEmpty


class Mx1(_Strict):
    staging_denied_callers: Terms
    delegate_to: NonEmpty
    calc_mcp: NonEmpty
    calc_callers: Terms


class Mx2(_Strict):
    gamification_mcp: NonEmpty
    gamification_callers: Terms
    child_caller: NonEmpty
    child_denied_mcps: Terms


class Mx3(_Strict):
    write_prefixes: Terms


class Rules(_Strict):
    mx1: Mx1 = Field(alias="MX-1")
    mx2: Mx2 = Field(alias="MX-2")
    mx3: Mx3 = Field(alias="MX-3")


class WriteToolEntry(_Strict):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*\*?$")]
    mcp: NonEmpty
    callers: Terms
    requires_confirmation: bool
    aliases: Annotated[dict[NonEmpty, NonEmpty], Field(min_length=1)]


class StagingEntry(_Strict):
    terms: Terms


class IntentEntry(_Strict):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z_]*$")]
    mcp: NonEmpty
    priority: Annotated[int, Field(ge=0, le=5)]
    allowed_callers: Terms
    keywords: list[NonEmpty]
    required_slots: list[Literal["patient_id", "food"]]
    keyword_notes: dict[NonEmpty, NonEmpty] = {}


class RouteEntry(_Strict):
    write_required_slots: list[Literal["patient_id", "food"]]
    session_only_callers: Terms


class SlotsEntry(SlotGrammar):  # the grammar's families ([slots.body], …): slot_words.py
    foods: Terms
    temperature_words: Terms
    # Absent in a policy written before issue 21: no extra child word (the released behaviour).
    age_child_words: list[NonEmpty] = []
    measure_units: Terms
    analytes: Annotated[dict[NonEmpty, Terms], Field(min_length=1)]
    meals: dict[Literal["breakfast", "lunch", "dinner", "snack"], Terms]


class AskingEntry(_Strict):
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


class MedicinesEntry(_Strict):
    names: Terms
    suffixes: Terms
    not_medicines: Terms


class PolicyFile(_Strict):
    version: NonEmpty
    roles: Terms
    mcps: Annotated[dict[NonEmpty, McpEntry], Field(min_length=1)]
    matrix: dict[NonEmpty, dict[NonEmpty, Literal["R", "RL", "R/W", "-"]]]
    rules: Rules
    write_tools: Annotated[list[WriteToolEntry], Field(min_length=1)]
    p0: P0Entry
    context: ContextEntry
    symptoms: SymptomsEntry | None = None  # SPEC §4.7 revision 3; absent in a policy before it
    staging: StagingEntry
    intents: Annotated[list[IntentEntry], Field(min_length=1)]
    route: RouteEntry
    asking: AskingEntry
    medicines: MedicinesEntry
    slots: SlotsEntry
    facts: FactsEntry | None = None  # absent: patient facts feed no rule (a policy written before them)


# --------------------------------------------------------------------------------------------
# The compiled, immutable policy the decisions read.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WriteTool:
    name: str  # "notify_*" for a prefix family
    mcp: str  # registry name
    callers: frozenset[str]
    requires_confirmation: bool

    @property
    def is_family(self) -> bool:
        return self.name.endswith("*")


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


@dataclass(frozen=True, slots=True)
class Mx1Rule:
    staging_denied_callers: frozenset[str]
    delegate_to: str
    calc_mcp: str
    calc_callers: frozenset[str]


@dataclass(frozen=True, slots=True)
class Mx2Rule:
    gamification_mcp: str
    gamification_callers: frozenset[str]
    child_caller: str
    child_denied_mcps: frozenset[str]


@dataclass(frozen=True)
class Policy:
    version: str
    digest: str
    roles: tuple[str, ...]
    mcp_names: tuple[str, ...]
    mcp_id: dict[str, str]  # registry name → M-id
    router_mcp: str
    matrix: dict[tuple[str, str], str]  # (role, registry name) → cell
    mx1: Mx1Rule
    mx2: Mx2Rule
    write_prefixes: tuple[str, ...]
    write_tools: dict[str, WriteTool]
    intents: tuple[Intent, ...]
    intent_by_name: dict[str, Intent]
    intent_by_mcp: dict[str, Intent]
    emergency: Intent  # the P0 intent: forced by a current red flag, never scored
    red_flags: RedFlagRules  # concepts' patterns, critical values, infant fever, context cues
    lexicon: Lexicon  # every word list, scanned on the text view
    redline: Lexicon  # red-line words only, scanned on the squashed view
    intent_lexicon: Lexicon  # intent keywords, for the squashed view when the text view has none
    slots: SlotsPolicy
    slot_words: SlotWords  # the slot grammar's words (``[slots.*]`` families)
    asking: Asking
    write_required_slots: tuple[str, ...]
    session_only_callers: frozenset[str]
    facts: FactRules | None  # how the session's patient facts feed the red flags (SPEC §4.5 revision 3)

    @property
    def policy_version(self) -> str:
        return f"{self.version}+{self.digest}"


DEFAULT_POLICY = "policy.toml"


def default_policy_bytes() -> bytes:
    return resources.files(__package__).joinpath(DEFAULT_POLICY).read_bytes()


def load_policy(path: str | Path | None = None) -> Policy:
    """Load, validate and compile a policy file (the shipped one when ``path`` is None)."""
    if path is None:
        data = default_policy_bytes()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise PolicyError([f"cannot read policy file: {exc.strerror or exc.__class__.__name__}"]) from None
    return parse_policy(data)


def parse_policy(data: bytes) -> Policy:
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise PolicyError(["policy file is not UTF-8"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError([f"policy file is not valid TOML: {exc}"]) from None
    try:
        spec = PolicyFile.model_validate(raw)
    except ValidationError as exc:
        raise PolicyError(
            [f"{'.'.join(str(p) for p in err['loc']) or 'policy'}: {err['msg']}" for err in exc.errors()]
        ) from None
    problems = _cross_check(spec)
    if problems:
        raise PolicyError(problems)
    return _compile(spec, hashlib.sha256(data).hexdigest()[:12])


def _cross_check(spec: PolicyFile) -> list[str]:
    """Every reference between sections must resolve; every list must be free of overlaps."""
    problems: list[str] = []
    roles = set(spec.roles)
    ids = set(spec.mcps)

    def need_roles(where: str, names: Iterable[str]) -> None:
        for name in names:
            if name not in roles:
                problems.append(f"{where}: unknown role {name!r}")

    def need_mcp(where: str, mcp_id: str) -> None:
        if mcp_id not in ids:
            problems.append(f"{where}: unregistered MCP {mcp_id!r}")

    if len(roles) != len(spec.roles):
        problems.append("roles: a role is listed twice")
    names = [m.name for m in spec.mcps.values()]
    if len(set(names)) != len(names):
        problems.append("mcps: two MCPs share a registry name")

    for role in spec.roles:
        if role not in spec.matrix:
            problems.append(f"matrix: no row for role {role!r}")
    for role, row in spec.matrix.items():
        need_roles("matrix", [role])
        for mcp_id in ids - set(row):
            problems.append(f"matrix.{role}: no cell for MCP {mcp_id}")
        for mcp_id in set(row) - ids:
            problems.append(f"matrix.{role}: unregistered MCP {mcp_id!r}")

    mx1, mx2 = spec.rules.mx1, spec.rules.mx2
    need_roles("rules.MX-1.staging_denied_callers", mx1.staging_denied_callers)
    need_roles("rules.MX-1.delegate_to", [mx1.delegate_to])
    need_roles("rules.MX-1.calc_callers", mx1.calc_callers)
    need_mcp("rules.MX-1.calc_mcp", mx1.calc_mcp)
    need_roles("rules.MX-2.gamification_callers", mx2.gamification_callers)
    need_roles("rules.MX-2.child_caller", [mx2.child_caller])
    need_mcp("rules.MX-2.gamification_mcp", mx2.gamification_mcp)
    for mcp_id in mx2.child_denied_mcps:
        need_mcp("rules.MX-2.child_denied_mcps", mcp_id)

    tool_names: set[str] = set()
    alias_owner: dict[str, str] = {}
    for tool in spec.write_tools:
        where = f"write_tools.{tool.name}"
        if tool.name in tool_names:
            problems.append(f"{where}: write tool registered twice")
        tool_names.add(tool.name)
        need_mcp(where, tool.mcp)
        need_roles(where + ".callers", tool.callers)
        for alias, target in tool.aliases.items():
            family = tool.name[:-1] if tool.name.endswith("*") else None
            if target != tool.name and not (family and target.startswith(family) and target[len(family):].isidentifier()):
                problems.append(f"{where}.aliases: alias {alias!r} names {target!r}, not this tool")
            key = fold(alias)
            if key in alias_owner and alias_owner[key] != tool.name:
                problems.append(f"{where}.aliases: alias {alias!r} overlaps an alias of {alias_owner[key]}")
            alias_owner[key] = tool.name

    problems.extend(check_red_flags(spec.p0, spec.context, roles, spec.symptoms))
    if spec.facts is not None:
        problems.extend(check_facts(spec.facts, [c.id for c in spec.p0.concepts]))
    _duplicates(problems, "staging.terms", spec.staging.terms)

    intent_names = [i.name for i in spec.intents]
    if len(set(intent_names)) != len(intent_names):
        problems.append("intents: an intent is listed twice")
    keyword_owner: dict[str, str] = {}
    unscored = [i.name for i in spec.intents if not i.keywords]
    if len(unscored) != 1:
        problems.append("intents: exactly one intent (the P0 emergency intent) must have no keywords")
    for intent in spec.intents:
        where = f"intents.{intent.name}"
        need_mcp(where, intent.mcp)
        need_roles(where + ".allowed_callers", intent.allowed_callers)
        for word in intent.keywords:
            key = fold(word)
            if key in keyword_owner:
                problems.append(f"{where}.keywords: {word!r} overlaps a keyword of {keyword_owner[key]}")
            keyword_owner[key] = intent.name
        for word in intent.keyword_notes:
            if fold(word) not in {fold(k) for k in intent.keywords}:
                problems.append(f"{where}.keyword_notes: {word!r} is not one of its keywords")
    for intent in spec.intents:
        if not intent.keywords and intent.priority != 0:
            problems.append(f"intents.{intent.name}: the emergency intent must have priority 0")

    need_roles("route.session_only_callers", spec.route.session_only_callers)
    _check_asking(problems, spec, keyword_owner)

    _duplicates(problems, "slots.foods", spec.slots.foods)
    _duplicates(problems, "slots.temperature_words", spec.slots.temperature_words)
    _duplicates(problems, "slots.age_child_words", spec.slots.age_child_words)
    _overlaps(problems, "context", {"patient_words": spec.context.patient_words, "other_person_words": spec.context.other_person_words})
    _overlaps(problems, "slots.analytes", spec.slots.analytes)
    for meal in MEALS:
        if meal not in spec.slots.meals:
            problems.append(f"slots.meals: no words for {meal!r}")
    _overlaps(problems, "slots.meals", spec.slots.meals)
    return problems


def _hides(problems: list[str], where: str, words: list[str], inside: list[str], what: str) -> None:
    """Words whose whole point is to hide a shorter word (matched longest first): each must hold one."""
    for word in words:
        if not any(w in fold(word) for w in inside):
            problems.append(f"{where}: {word!r} holds no {what}, so it hides nothing")


def _check_asking(problems: list[str], spec: PolicyFile, keyword_owner: dict[str, str]) -> None:
    """Weak words and consume verbs are intent keywords; the verbs belong to the food intent; a
    word that is not a medicine must hide a medicine word, or it suppresses nothing."""
    asking, medicines = spec.asking, spec.medicines
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
    _owned_by(problems, "asking.consume_verbs", asking.consume_verbs, asking.food_intent, keyword_owner)
    _duplicates(problems, "asking.question_words", asking.question_words)
    _duplicates(problems, "asking.weak_keywords", asking.weak_keywords)
    _duplicates(problems, "asking.consume_verbs", asking.consume_verbs)
    _duplicates(problems, "asking.reading_words", asking.reading_words)
    _duplicates(problems, "asking.diet_advice", asking.diet_advice)
    _owned_by(problems, "asking.reading_generic", asking.reading_generic, asking.reading_intent, keyword_owner)
    _owned_by(problems, "asking.diet_advice", asking.diet_advice, asking.food_intent, keyword_owner)
    _duplicates(problems, "asking.form_headings", asking.form_headings)
    _duplicates(problems, "asking.feeding_modals", asking.feeding_modals)
    _duplicates(problems, "asking.feeding_verbs", asking.feeding_verbs)
    if bool(asking.feeding_modals) != bool(asking.feeding_verbs):
        problems.append("asking.feeding_modals and asking.feeding_verbs: both or neither")
    _overlaps(problems, "asking", {"question_endings": asking.question_endings, "not_question_endings": asking.not_question_endings})
    for word in asking.reading_questions:
        if word not in asking.reading_words:
            problems.append(f"asking.reading_questions: {word!r} is not one of asking.reading_words")
    if asking.reading_questions and not asking.reference_words:
        problems.append("asking.reference_words: required by asking.reading_questions")
    _duplicates(problems, "asking.general_subjects", asking.general_subjects)
    if asking.general_subjects and not asking.serious_intent:
        problems.append("asking.serious_intent: required by asking.general_subjects")
    if bool(asking.serious_questions) != bool(asking.serious_intent):
        problems.append("asking.serious_intent and asking.serious_questions: both or neither")
    _owned_by(problems, "asking.serious_questions", asking.serious_questions, asking.serious_intent, keyword_owner)
    if asking.effect_questions and not asking.serious_intent:
        problems.append("asking.serious_intent: required by asking.effect_questions")
    _duplicates(problems, "asking.effect_questions", asking.effect_questions)
    _owned_by(problems, "asking.effect_questions", asking.effect_questions, asking.serious_intent, keyword_owner)
    _overlaps(problems, "asking", {"question_words": asking.question_words, "not_question_words": asking.not_question_words})
    _overlaps(problems, "asking", {"reading_words": asking.reading_words, "not_reading_words": asking.not_reading_words})
    asked = [fold(w) for w in asking.question_words]
    _hides(problems, "asking.not_reading_words", asking.not_reading_words, [fold(w) for w in asking.reading_words], "reading word")
    _hides(problems, "asking.not_question_words", asking.not_question_words, asked, "question word")
    _hides(problems, "asking.form_headings", asking.form_headings, list(keyword_owner) + asked, "intent keyword or question word")
    _overlaps(problems, "medicines", {"names": medicines.names, "suffixes": medicines.suffixes, "not_medicines": medicines.not_medicines})
    medicine_words = [fold(w) for w in medicines.names + medicines.suffixes]
    for word in medicines.not_medicines:
        if not any(m in fold(word) for m in medicine_words):
            problems.append(f"medicines.not_medicines: {word!r} contains no medicine word, so it suppresses nothing")


# An owner's name: a plain string, or a Literal one such as a meal (Mapping is invariant in its key).
_Owner = TypeVar("_Owner", bound=str)


def _overlaps(problems: list[str], where: str, words_of: Mapping[_Owner, list[str]]) -> None:
    """A word (after folding) may belong to one owner only: 钾 cannot be two analytes."""
    owner: dict[str, _Owner] = {}
    for name, words in words_of.items():
        for word in words:
            key = fold(word)
            if key in owner and owner[key] != name:
                problems.append(f"{where}.{name}: {word!r} overlaps a word of {owner[key]}")
            owner[key] = name


def _owned_by(problems: list[str], where: str, words: list[str], intent: str | None,
              keyword_owner: Mapping[str, str]) -> None:
    """Every word is a keyword of ``intent`` (its owner after folding)."""
    for word in words:
        if keyword_owner.get(fold(word)) != intent:
            problems.append(f"{where}: {word!r} is not a keyword of {intent}")


def _duplicates(problems: list[str], where: str, words: list[str]) -> None:
    seen: set[str] = set()
    for word in words:
        key = fold(word)
        if key in seen:
            problems.append(f"{where}: {word!r} is listed twice")
        seen.add(key)


# Lexicon groups: group name → (folded term, payload) pairs; each group's payload has its own type.
_Groups = dict[str, Sequence[tuple[str, object]]]


def _compile(spec: PolicyFile, digest: str) -> Policy:
    name_of = {mcp_id: entry.name for mcp_id, entry in spec.mcps.items()}
    write_tools = {
        t.name: WriteTool(t.name, name_of[t.mcp], frozenset(t.callers), t.requires_confirmation)
        for t in spec.write_tools
    }
    intents = tuple(
        Intent(
            name=i.name,
            mcp=name_of[i.mcp],
            priority=i.priority,
            order=n,
            allowed_callers=tuple(i.allowed_callers),
            required_slots=tuple(i.required_slots),
            keyword_notes={fold(k): v for k, v in i.keyword_notes.items()},
        )
        for n, i in enumerate(spec.intents)
    )
    emergency = next(i for i in intents if not spec.intents[i.order].keywords)
    slots = SlotsPolicy(
        foods=tuple(dict.fromkeys(fold(f) for f in spec.slots.foods)),
        measure_units=tuple(dict.fromkeys(fold(u) for u in spec.slots.measure_units)),
        patient_words=tuple(dict.fromkeys(fold(w) for w in spec.context.patient_words)),
        age_child_words=tuple(dict.fromkeys(fold(w) for w in spec.slots.age_child_words)),
        self_words=tuple(dict.fromkeys(fold(w) for w in spec.context.self_words)),
        self_not_inside=tuple(dict.fromkeys(fold(w) for w in spec.context.self_not_inside)),
        analytes={fold(w): name for name, words in spec.slots.analytes.items() for w in words},
        meals={fold(w): meal for meal, words in spec.slots.meals.items() for w in words},
    )
    redline_groups: _Groups = {
        # payload: the term's concept id; None for a safe phrase (it only hides the term inside it)
        "p0": [(fold(t), c.id) for c in spec.p0.concepts for t in c.terms + c.soft_terms]
        + [(fold(t), None) for t in spec.p0.safe_phrases],
        "staging": [(fold(t), None) for t in spec.staging.terms],
        "write": [(fold(alias), target) for t in spec.write_tools for alias, target in t.aliases.items()],
    }
    redline_groups["critical"] = [(fold(w), n) for n, c in enumerate(spec.p0.critical_values) for w in c.words]
    endings = {fold(w): True for w in spec.asking.question_endings} | {fold(w): False for w in spec.asking.not_question_endings}
    intent_groups: _Groups = {"intent": [(fold(k), i.name) for i in spec.intents for k in i.keywords]}
    medicines = spec.medicines
    asking_groups: _Groups = {
        "question": [(fold(w), None) for w in spec.asking.question_words]
        + [(fold(w), "not") for w in spec.asking.not_question_words],
        "consume": [(fold(w), None) for w in spec.asking.consume_verbs],
        "form": [(fold(w), None) for w in spec.asking.form_headings],
        "medicine": [(fold(w), "name") for w in medicines.names]
        + [(fold(w), "suffix") for w in medicines.suffixes]
        + [(fold(w), "not") for w in medicines.not_medicines],
    }
    slot_groups: _Groups = {
        "food": [(f, None) for f in slots.foods],
        "analyte": list(slots.analytes.items()),
        "meal": list(slots.meals.items()),
        "temperature": [(fold(w), None) for w in spec.slots.temperature_words],
        "patient": [(w, None) for w in slots.patient_words],
        "other": [(fold(w), None) for w in spec.context.other_person_words],
    }
    # SPEC §4.7 revision 3: the symptom families' words, payload their concept; None for a phrase
    # that only hides the word inside it. Scanned in the same pass as every other word (text view).
    symptoms = spec.symptoms
    taken = {fold(t) for c in spec.p0.concepts for t in c.terms + c.soft_terms} | {fold(t) for t in spec.p0.safe_phrases}
    symptom_groups: _Groups = {"symptom": [(fold(t), f.concept) for f in symptoms.families for t in f.all_terms(taken)]
                               + [(fold(t), None) for t in symptoms.not_inside]} if symptoms else {}
    mx1, mx2 = spec.rules.mx1, spec.rules.mx2
    return Policy(
        version=spec.version,
        digest=digest,
        roles=tuple(spec.roles),
        mcp_names=tuple(name_of.values()),
        mcp_id={name: mcp_id for mcp_id, name in name_of.items()},
        router_mcp=emergency.mcp,
        matrix={(role, name_of[mcp_id]): cell for role, row in spec.matrix.items() for mcp_id, cell in row.items()},
        mx1=Mx1Rule(
            frozenset(mx1.staging_denied_callers), mx1.delegate_to, name_of[mx1.calc_mcp], frozenset(mx1.calc_callers)
        ),
        mx2=Mx2Rule(
            name_of[mx2.gamification_mcp],
            frozenset(mx2.gamification_callers),
            mx2.child_caller,
            frozenset(name_of[m] for m in mx2.child_denied_mcps),
        ),
        write_prefixes=tuple(spec.rules.mx3.write_prefixes),
        write_tools=write_tools,
        intents=intents,
        intent_by_name={i.name: i for i in intents},
        intent_by_mcp={i.mcp: i for i in reversed(intents)},
        emergency=emergency,
        red_flags=compile_rules(spec.p0, spec.context, spec.symptoms),
        lexicon=Lexicon(redline_groups | intent_groups | asking_groups | slot_groups | symptom_groups
                        | (fact_groups(spec.facts) if spec.facts else {})),
        redline=Lexicon(redline_groups),
        intent_lexicon=Lexicon(intent_groups),
        slots=slots,
        slot_words=compile_slot_words(spec.slots),
        asking=Asking(
            weak_keywords=frozenset(fold(w) for w in spec.asking.weak_keywords),
            consume_verbs=frozenset(fold(w) for w in spec.asking.consume_verbs),
            food_intent=spec.asking.food_intent,
            medicine_intent=spec.asking.medicine_intent,
            advice_intent=spec.asking.advice_intent or "",
            diet_advice=frozenset(fold(w) for w in spec.asking.diet_advice),
            reading_intent=spec.asking.reading_intent or "",
            reading_generic=frozenset(fold(w) for w in spec.asking.reading_generic),
            reading=re.compile(_alternation(spec.asking.reading_words + spec.asking.not_reading_words))
            if spec.asking.reading_words else None,
            not_reading=frozenset(fold(w) for w in spec.asking.not_reading_words),
            feeding=_feeding(spec.asking.feeding_modals, spec.asking.feeding_verbs),
            endings=endings,
            ending_max=max(map(len, endings), default=0),
            ending_last=frozenset(w[-1] for w in endings if w),
            reading_questions=frozenset(fold(w) for w in spec.asking.reading_questions),
            reference=re.compile(_alternation(spec.asking.reference_words)) if spec.asking.reference_words else None,
            serious_intent=spec.asking.serious_intent or "",
            serious_questions=frozenset(fold(w) for w in spec.asking.serious_questions),
            general=re.compile(_alternation(spec.asking.general_subjects)) if spec.asking.general_subjects else None,
            effect_questions=frozenset(fold(w) for w in spec.asking.effect_questions),
        ),
        write_required_slots=tuple(spec.route.write_required_slots),
        session_only_callers=frozenset(spec.route.session_only_callers),
        facts=compile_facts(spec.facts) if spec.facts else None,
    )


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
    split = f"(?:{_alternation(modals)}).{{0,{FEEDING_GAP}}}?(?:{_alternation(verbs)})"
    return re.compile(f"{split}|{_alternation(whole)}" if whole else split, re.DOTALL)


def _alternation(words: list[str]) -> str:
    """A regex alternation of the folded words, longest first (还可以 before 可以)."""
    return "|".join(re.escape(fold(w)) for w in sorted(words, key=len, reverse=True))
