"""Patient facts (SPEC §4.5 revision 3): what the dispatcher's session knows about the child.

A parent does not restate "my transplanted two-month-old" in every message. ``route_request`` and
``check_safety_gate`` take an optional ``patient_facts`` object — ``age_years``, ``kidney_therapy``,
``nephrotic`` — from the dispatcher's authenticated session, and the facts feed the rules the text's
own words feed, never a rule of their own:

* ``age_years`` < ``young_infant_years``: a fever is ``infant_fever`` (NICE NG143);
* ``kidney_therapy`` ``transplant``: a fever, urine output falling or pain over the graft is
  ``transplant_alert``; ``pd``: a fever or belly pain is ``pd_peritonitis``; ``hd``: a fever or chills
  in a sentence that names a dialysis session is ``dialysis_access``;
* ``nephrotic``: belly pain with a fever, a limb swollen and painful, or cold hands and feet with
  dizziness is ``nephrotic_complication``.

A fever is a current slot reading (§4.4) at or above ``fever_celsius`` or, when the slot readers
read no current temperature at all, a fever word. The words are policy data (``[facts]``), found by
the policy lexicon's one scan (group ``fact``); every mention gets its §4.7 context from
``context.contexts``, so a past, negated, hypothetical or another person's event asks and never
halts. A flag a fact made names it (``Flag.fact``); its ``term`` is the text's policy word (or the
reading's rule name). Facts only add flags: they never lower a decision, and the result echoes none
of them. Without facts nothing here runs.

The ``[facts]`` section's model, checks and compiled form are in ``policy/facts.py``, beside every
other section's. This module runs past 400 lines on purpose: the argument's model and the rules that
read the section are one concept (what a fact does), kept side by side; split, a new fact would be
touched in one more file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from .context import CURRENT, Mention, contexts, leftmost_longest
from .lexicon import Hit, Hits
from .policy.facts import ANY_GROUP, GROUP, KINDS, FactRules
from .redflags import Flag
from .text import Cut

if TYPE_CHECKING:
    from .policy.red_flags import RedFlagRules

KIDNEY_THERAPIES = ("none", "ckd", "pd", "hd", "transplant")
FACT_KEYS = ("age_years", "kidney_therapy", "nephrotic")


# --------------------------------------------------------------------------------------------
# The argument
# --------------------------------------------------------------------------------------------


class PatientFacts(BaseModel):
    """Facts about the patient from the dispatcher's patient profile. Every key optional; numbers
    are JSON numbers ("1" is not one), booleans JSON booleans; an unknown key is an error."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        json_schema_extra={"additionalProperties": False},
    )

    age_years: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="The child's age in years from the patient profile (a number ≥ 0: 0.17 for two months). "
        "Under 0.25 (three months) any current fever is an emergency.",
    )
    kidney_therapy: Literal["none", "ckd", "pd", "hd", "transplant"] | None = Field(
        default=None,
        description="The child's kidney replacement therapy from the patient profile: 'none', 'ckd' "
        "(chronic kidney disease without dialysis), 'pd' (peritoneal dialysis: a fever or belly pain is "
        "peritonitis until proven otherwise), 'hd' (haemodialysis: fever or chills around a session) or "
        "'transplant' (a fever, urine output falling or pain over the graft).",
    )
    nephrotic: bool | None = Field(
        default=None,
        description="The child has nephrotic syndrome (true / false): belly pain with fever, a limb swollen "
        "and painful, or cold hands and feet with dizziness is an emergency.",
    )

    def given(self) -> bool:
        """Whether any fact is stated ({} and all-null are no facts)."""
        return self.age_years is not None or self.kidney_therapy is not None or self.nephrotic is not None


FactsArgument = Annotated[
    PatientFacts | None,
    Field(
        default=None,
        description="What the dispatcher's authenticated session knows about the patient (its patient "
        "profile), never taken from the user's words: {age_years, kidney_therapy, nephrotic}, every key "
        "optional; null or {} means no facts. The facts make the gate read the text as it would for that "
        "child (a fever of a transplanted child or of a two-month-old halts); they never lower a decision, "
        "and the result echoes none of them. A red flag that a fact made names it in `red_flags[].fact`.",
    ),
]

_MESSAGES = {
    "extra_forbidden": "is not a patient fact: the keys are age_years, kidney_therapy and nephrotic",
    "float_type": "must be a number",
    "greater_than_equal": "must be a number of years ≥ 0",
    "finite_number": "must be a finite number",
    "literal_error": "must be one of none, ckd, pd, hd or transplant",
    "bool_type": "must be true or false",
    "model_type": "must be an object with age_years, kidney_therapy and nephrotic, or null",
}


def error_message(error: Mapping[str, Any]) -> str | None:
    """The message of a validation error inside ``patient_facts`` (None: not one); never the value."""
    loc = error.get("loc", ())
    if not loc or loc[0] != "patient_facts":
        return None
    return _MESSAGES.get(error.get("type", ""))


def error_field(loc: tuple[int | str, ...]) -> str | None:
    """``patient_facts.<key>`` for a known key; an unknown key is not echoed (None: not a fact error)."""
    if not loc or loc[0] != "patient_facts":
        return None
    if len(loc) > 1 and loc[1] in FACT_KEYS:
        return f"patient_facts.{loc[1]}"
    return "patient_facts"


def as_facts(value: PatientFacts | Mapping[str, Any] | None) -> PatientFacts | None:
    """The facts of a direct (Python) call: a model, a mapping validated as the wire's, or None.
    No facts ({} included) is None."""
    if value is None:
        return None
    facts = value if isinstance(value, PatientFacts) else PatientFacts.model_validate(value)
    return facts if facts.given() else None


# --------------------------------------------------------------------------------------------
# The flags the facts make
# --------------------------------------------------------------------------------------------

# Where the slot readers may read a temperature (§4.4 revision 2, slots/temperatures.py): a number
# of 35–43 (in digits, or 三十… / 四十… in numerals), and with it a temperature word of theirs, ℃ / °,
# a short reply (at most REPLY_LENGTH characters) or a message that opens with the number
# (``FactRules.opens_with_number``, after the reader's own reply opening). Elsewhere
# they read none, and the facts do not ask them.
# Written with a first character per branch (the lookbehind after the two digits): the engine then
# skips to a 3, 4, 三 or 四, ×2–5 faster than a lookbehind first on a long message.
_READING_NUMBER = re.compile("3[5-9](?<![0-9]..)(?![0-9])|4[0-3](?<![0-9]..)(?![0-9])|三十|四十")
REPLY_LENGTH = 40  # slots.temperatures.REPLY_LENGTH (a test keeps them equal; importing it here would be circular)
_AGE, _THERAPY, _NEPHROTIC = FACT_KEYS
_READING = "temperature"  # the kind of a temperature word (the slots' lexicon group) beside a reading


class _Plan(NamedTuple):
    """What one combination of facts reads (``_plan``): computed once per combination."""

    kinds: frozenset[str]  # the kinds of words these facts read
    groups: tuple[str, ...]  # their lexicon groups
    fever_read: bool  # some rule of these facts reads a fever
    fever_alone: bool  # a fever counts alone (an infant, a transplant, PD)
    infant: bool
    therapy: str | None
    nephrotic: bool
    standing: frozenset[str]  # kinds that are useful whatever else the text holds


def _plan(facts: PatientFacts, rules: FactRules) -> _Plan:
    """The plan of these facts (cached per combination: a few facts make every plan)."""
    age = facts.age_years
    key = (age is not None and age < rules.young_infant_years, facts.kidney_therapy, bool(facts.nephrotic))
    plan = _PLANS.get(key)
    if plan is None:
        infant, therapy, nephrotic = key
        kinds: set[str] = {"fever"} if infant else set()
        kinds |= _THERAPY_KINDS.get(therapy or "", set())
        standing: set[str] = set()
        if therapy == "transplant":
            standing |= {"urine_falling", "graft_pain"}
        elif therapy == "pd":
            standing.add("belly_pain")
        if nephrotic:
            kinds |= {"fever", "belly_pain", "limb_swelling", "cold_extremities", "dizziness"}
            standing.add("limb_swelling")
        plan = _PLANS[key] = _Plan(frozenset(kinds), tuple(GROUP[k] for k in KINDS if k in kinds), "fever" in kinds,
                                   infant or therapy in ("transplant", "pd"), infant, therapy, nephrotic, frozenset(standing))
    return plan


_THERAPY_KINDS = {"transplant": {"fever", "urine_falling", "graft_pain"}, "pd": {"fever", "belly_pain"},
                  "hd": {"fever", "chills", "session"}}
_PLANS: dict[tuple[bool, str | None, bool], _Plan] = {}


def fact_flags(
    rules: FactRules,
    red_rules: RedFlagRules,
    facts: PatientFacts,
    cut: Cut,
    hits: Hits,
    text_flags: list[Flag],
    caller: str | None,
    temperature: Callable[[], float | None],
    cues: Callable[[], list[Hit]],
) -> list[Flag]:
    """The red flags the facts add to the text's own (``text_flags``), in the order of the rules
    above. ``temperature``: the child's current temperature as the slot readers read it, asked only
    when a fever matters and the text may hold a reading; ``cut``: the text and its sentences, and
    ``cues``: the context lexicon's hits on it, scanned on the first call (both the analysis's,
    shared with the red flags). A flag the text made already (the same concept in the same context)
    is not repeated."""
    text = cut.text
    words = hits.get(ANY_GROUP)
    present: frozenset[str] = frozenset()
    if words:
        plan = _plan(facts, rules)
        # The kinds the text's fact words may be of (every kind of every word inside a word found: a
        # superset of the kinds the groups ``fact_<kind>`` found), of those these facts read. Every
        # rule makes more flags from more kinds, so where even these make none, none is made.
        present = (words[0].payload if len(words) == 1 else frozenset().union(*[h.payload for h in words])) & plan.kinds
    if not present:
        # Most texts: no fact word these facts read; only a current fever reading could make a flag.
        if not _may_read(rules, text, hits):
            return []
        plan = _plan(facts, rules)
        if not plan.fever_alone:
            return []
        celsius = temperature()
        if celsius is None or celsius < rules.fever_celsius:
            return []
        return _flags(rules, red_rules, facts, cut, hits, text_flags, caller, temperature, cues, plan, True)
    fever_counts = plan.fever_read and (plan.fever_alone or (plan.therapy == "hd" and "session" in present)
                                        or (plan.nephrotic and "belly_pain" in present))
    fever = "fever" in present
    may_read: bool | None = None
    if fever_counts:
        may_read = _may_read(rules, text, hits)
        if may_read:
            celsius = temperature()
            if celsius is not None:
                if celsius >= rules.fever_celsius:
                    return _flags(rules, red_rules, facts, cut, hits, text_flags, caller, temperature, cues, plan, True)
                fever = False  # a reading below the threshold decides, whatever the words say
    # No fever reading: only words can make a flag (the rules of ``_flags``).
    if not (plan.standing & present or (fever_counts and fever)
            or (plan.therapy == "hd" and "session" in present and (fever or "chills" in present))
            or (plan.nephrotic and (("belly_pain" in present and fever)
                                    or ("cold_extremities" in present and "dizziness" in present)))):
        return []
    return _flags(rules, red_rules, facts, cut, hits, text_flags, caller, temperature, cues, plan, may_read)

def _flags(
    rules: FactRules,
    red_rules: RedFlagRules,
    facts: PatientFacts,
    cut: Cut,
    hits: Hits,
    text_flags: list[Flag],
    caller: str | None,
    temperature: Callable[[], float | None],
    cues: Callable[[], list[Hit]],
    plan: _Plan,
    may_read: bool | None,
) -> list[Flag]:
    """``fact_flags`` for a text where the facts may make a flag: every group read exactly.
    ``may_read``: ``_may_read`` when known."""
    text = cut.text
    groups = plan.groups
    if not groups:
        return []
    found: list[Hit] = []
    for name in groups:
        group = hits.get(name)
        if group:
            found += group
    fever_alone = plan.fever_alone
    if not found:
        if not fever_alone:
            return []  # the text's fact words are of kinds these facts do not read
        if may_read is None:
            may_read = _may_read(rules, text, hits)
        if not may_read:
            return []
    present = {h.payload for h in found}
    therapy, infant, nephrotic_facts = plan.therapy, plan.infant, plan.nephrotic
    # A fever counts alone (an infant, a transplant, PD), or beside a session (HD) or belly pain
    # (nephrotic syndrome): only then is the temperature read, and only where the slot readers may
    # find one (``_may_read``).
    fever_counts = plan.fever_read and (fever_alone or (therapy == "hd" and "session" in present)
                                        or (nephrotic_facts and "belly_pain" in present))
    reading = False  # a current reading at or above the fever threshold
    if fever_counts:
        if may_read is None:
            may_read = _may_read(rules, text, hits)
        if may_read:
            celsius = temperature()
            if celsius is not None:
                reading = celsius >= rules.fever_celsius
                present.discard("fever")  # a reading decides, whatever the words say
    fever_any = reading or "fever" in present
    # The kinds that can make a flag: those that stand alone for these facts, a fever when it
    # counts, and the pairs (a session with a fever or chills, belly pain with a fever, cold hands
    # and feet with dizziness).
    useful = plan.standing & present
    if fever_counts and "fever" in present:
        useful |= {"fever"}
    if therapy == "hd" and "session" in present and (fever_any or "chills" in present):
        useful |= {"session", "chills"} & present
    if nephrotic_facts:
        if fever_any and "belly_pain" in present:
            useful |= {"belly_pain"}
        if "cold_extremities" in present and "dizziness" in present:
            useful |= {"cold_extremities", "dizziness"}
    if not useful and not reading:
        return []  # nothing the facts could make a flag of: no context is read
    found = [h for h in found if h.payload in useful]
    if reading:
        # The slot readers leave out past and hypothetical readings; whose reading it is, and whether
        # it is denied, the text's temperature words say (同事的孩子烧到38.6 asks): the reading is
        # current when one of them is, or when the text has none (a reply, 38.5).
        found += [Hit(h.start, h.end, h.term, _READING) for h in hits.get("temperature") or []]
    found.sort(key=leftmost_longest)
    # Words of two kinds may overlap (右下腹痛, 腹痛): the leftmost-longest one is read in context and
    # every word it overlaps shares its context.
    leaders: list[Mention] = []
    led: list[int] = []
    for h in found:
        if not leaders or h.start >= leaders[-1].end:
            leaders.append(Mention(h.start, h.end, h.term, h.payload))
        led.append(len(leaders) - 1)
    context = _contexts(red_rules, cut, hits, leaders, caller, cues()) if leaders else []
    by_kind: dict[str, list[tuple[Mention, str]]] = {}
    for h, i in zip(found, led):
        by_kind.setdefault(h.payload, []).append((Mention(h.start, h.end, h.term, h.payload), context[i]))
    fever = by_kind.get("fever", [])
    words = [c for _, c in by_kind.get(_READING, [])]
    reading_flag = [(rules.reading_name, CURRENT if not words or CURRENT in words else words[0])] if reading else []
    fevers = reading_flag + [(m.term, c) for m, c in fever]

    made: list[Flag] = []
    concept = rules.concept
    if infant:
        made += [Flag(concept["age_years"], term, c, _AGE) for term, c in fevers]
    if therapy == "transplant":
        made += [Flag(concept["transplant"], term, c, _THERAPY) for term, c in fevers]
        made += [Flag(concept["transplant"], m.term, c, _THERAPY)
                 for kind in ("urine_falling", "graft_pain") for m, c in by_kind.get(kind, [])]
    elif therapy == "pd":
        made += [Flag(concept["pd"], term, c, _THERAPY) for term, c in fevers]
        made += [Flag(concept["pd"], m.term, c, _THERAPY) for m, c in by_kind.get("belly_pain", [])]
    elif therapy == "hd" and "session" in by_kind:
        sessions = by_kind["session"]
        around = [(m, c) for m, c in fever + by_kind.get("chills", []) if _same_sentence(cut, m, [s for s, _ in sessions])]
        made += [Flag(concept["hd"], term, c, _THERAPY) for term, c in reading_flag]
        made += [Flag(concept["hd"], m.term, c, _THERAPY) for m, c in around]
    if facts.nephrotic:
        nephrotic = concept["nephrotic"]
        made += [Flag(nephrotic, m.term, c, _NEPHROTIC) for m, c in _with(by_kind.get("belly_pain", []), fevers)]
        made += [Flag(nephrotic, m.term, c, _NEPHROTIC) for m, c in by_kind.get("limb_swelling", [])]
        dizzy = [(m.term, c) for m, c in by_kind.get("dizziness", [])]
        made += [Flag(nephrotic, m.term, c, _NEPHROTIC) for m, c in _with(by_kind.get("cold_extremities", []), dizzy)]
    if not made:
        return []
    theirs = {(f.concept, f.context) for f in text_flags}
    return [f for f in dict.fromkeys(made) if (f.concept, f.context) not in theirs]


def _may_read(rules: FactRules, text: str, hits: Hits) -> bool:
    return _READING_NUMBER.search(text) is not None and (
        bool(hits.get("temperature")) or "℃" in text or "°" in text or len(text) <= REPLY_LENGTH
        or rules.opens_with_number.match(text) is not None)


def _with(mentions: list[tuple[Mention, str]], partners: list[tuple[str, str]]) -> list[tuple[Mention, str]]:
    """Mentions that count only beside a partner (belly pain with a fever): current when both are,
    else the first context that is not (a past fever with belly pain now asks)."""
    if not mentions or not partners:
        return []
    partner = CURRENT if any(c == CURRENT for _, c in partners) else partners[0][1]
    return [(m, c if c != CURRENT else partner) for m, c in mentions]


def _same_sentence(cut: Cut, m: Mention, sessions: list[Mention]) -> bool:
    for s in sessions:
        low, high = (s.end, m.start) if s.end <= m.start else (m.end, s.start)
        if not cut.sentence_ends_within(low, high, points=False):
            return True
    return False


def _contexts(
    red_rules: RedFlagRules, cut: Cut, hits: Hits, mentions: list[Mention], caller: str | None, cues: list[Hit]
) -> list[str]:
    """§4.7 contexts of the fact words, read beside the text's own red-flag terms (a negation carried
    along 没有抽搐和发烧 reaches the fever; 没有抽搐，发烧 does not)."""
    p0 = hits.get("p0")
    if not p0:
        return contexts(red_rules.context, cut, mentions, caller, cues)
    theirs = [Mention(h.start, h.end, h.term, "") for h in p0 if h.payload is not None
              and not any(h.start < m.end and m.start < h.end for m in mentions)]
    merged = sorted(mentions + theirs)
    kept: list[Mention] = []
    for m in merged:  # two red-flag terms may overlap (咳粉红色泡沫|粉红色泡沫痰): the leftmost acts
        if kept and m.start < kept[-1].end:
            continue
        kept.append(m)
    found = dict(zip(kept, contexts(red_rules.context, cut, kept, caller, cues)))
    return [found.get(m, CURRENT) for m in mentions]
