"""Red-flag mentions of one text and their contexts (SPEC §3.5, §4.7).

A mention is a term of a concept (the Aho-Corasick scan's "p0" group, safe phrases already hiding
the terms inside them), a named pattern, a critical value or an infant's fever. Mentions that only
the squashed view reveals (抽-搐, 无 尿) are mapped back to their place in the text, so every
mention's context is read on the same text. ``context.contexts`` then gives each one its context.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from . import numerals
from .context import CURRENT, HYPOTHETICAL, Mention, contexts
from .lexicon import Hit, Hits
from .policy.red_flags import BloodPressure, RedFlagRules
from .text import Cut, TextViews, kept_offsets

if TYPE_CHECKING:  # the slot readers import the policy, which imports this module's Flag (through facts)
    from .slots import Values
    from .slots.analytes import Value


# tuple.__new__ builds a NamedTuple in C (its own __new__ is Python); a Hit (start, end, term,
# concept) has a Mention's very layout.
_as_mention = tuple.__new__


class Flag(NamedTuple):
    concept: str
    term: str  # a policy term or pattern / rule name, never the request's own text
    context: str
    fact: str | None = None  # the patient fact that made the flag (SPEC §4.5 revision 3, ``facts``)


# A Flag of the text built in C, as a Mention is: every field given (no patient fact).
_as_flag = tuple.__new__
_NO_FACTS = itertools.repeat(None)


def red_flags(
    rules: RedFlagRules,
    v: TextViews,
    hits: Hits,
    squashed: Hits,
    critical: list[Value],
    caller: str | None,
    values: Values,
    cues: Callable[[], list[Hit]],
    cut: Cut,
) -> tuple[list[Flag], list[Flag]]:
    """Every red-flag mention in text order with its context, and the current symptom mentions
    (SPEC §4.7 revision 3) that no red-flag mention overlaps; ``critical``: the analyte values the
    slot reader gives a critical word (``slots.analytes.critical_values``); ``values``: the slot
    readers' age and current temperature of the child (SPEC §4.7 revision 3: the gate reads no value
    of its own); ``cues``: the context lexicon's hits on the text, scanned on the first call (the
    analysis's, shared with the facts); ``cut``: the text's sentences and clauses, which the analysis
    carries."""
    text = v.text
    terms = _terms(hits.get("p0"))
    if squashed is hits:
        extra = _patterns(rules, text, hits.get("p0"))
    else:
        # The squashed view finds every term and pattern the text view has, and those that fillers
        # split (抽-搐): one pattern scan there, its mentions placed back in the text. The text
        # view's terms are kept too (a term may span a filler the policy wrote into it, "hun mi").
        extra = _squashed(rules, v, squashed)
    for start, end, index in critical_readings(rules, critical) if critical else ():
        rule = rules.critical_values[index]
        extra.append(_as_mention(Mention, (start, end, rule.name, rule.concept)))
    infant = _infant_fever(rules, text, values)
    extra += infant
    bp = rules.blood_pressure
    if bp is not None:
        worded = any(clue in text for clue in bp.clues)
        if worded or "/" in text:
            extra += _blood_pressure(bp, text, worded)
    # The symptom families' words (the same scan's "symptom" group) and patterns (the same pattern
    # scan, under their symptom concept).
    symptom_concepts = rules.symptom_concepts
    symptoms = _terms(hits.get("symptom"))
    if rules.fever_symptom is not None and values.temperature is not None and values.temperature_at >= 0 \
            and values.temperature >= rules.infant_fever.min_celsius:
        # The child's current reading at or above the fever threshold is a fever, whatever word
        # introduced it or none (孩子39度怎么办): the slot reader has read whose it is and when.
        at = values.temperature_at
        symptoms.append(_as_mention(Mention, (at, _reading_end(text, at), "fever", rules.fever_symptom)))
    if extra and symptom_concepts:
        symptoms += [m for m in extra if m.concept in symptom_concepts]
        extra = [m for m in extra if m.concept not in symptom_concepts]
    if extra:
        # A few sorted runs (terms, patterns, critical values, the squashed view): Timsort merges
        # them in linear time, comparing the tuples in C. Where two overlap, the earlier wins, then
        # the longer.
        mentions = _longest(sorted(terms + extra), rules.soft_terms)
    elif terms:
        # One group of the scan: in text order, none containing another, but two may overlap
        # (咳粉红色泡沫|粉红色泡沫痰): the leftmost acts, a hard term before a soft one (有点吐血).
        mentions = _longest(terms, rules.soft_terms)
    elif not symptoms:
        return [], []
    else:
        mentions = []
    if mentions and rules.only_with:
        mentions = _with_their_context_words(rules, text, mentions)
    if symptoms:
        # A red-flag mention covers every symptom word it overlaps (吐血 is gi_bleeding, not vomiting).
        symptoms = _uncovered(_longest(sorted(symptoms), rules.soft_terms), mentions)
    if not symptoms:
        return (_flags(rules, mentions, _found(rules, mentions, caller, infant, values, cues, cut)) if mentions else []), []
    flags = _flags(rules, mentions, _found(rules, mentions, caller, infant, values, cues, cut)) if mentions else []
    if flags and halting(rules, flags, [], frozenset())[0]:
        return flags, []  # the text's own red flags halt whatever else it says: no symptom is asked
    # The symptoms' contexts from a walk over both kinds (a negation carries along an enumeration of
    # either: 没有抽搐、发烧); the red flags keep their own walk, where no symptom word hides a cue
    # (一发烧就抽搐 stays habitual).
    both = sorted(mentions + symptoms) if mentions else symptoms
    stated: list[bool] = []
    found_both = contexts(rules.context, cut, both, caller, cues(), stated)
    current = [
        _as_flag(Flag, (m.concept, m.term, CURRENT, None))
        for m, c, told in zip(both, found_both, stated)
        # SPEC §4.7 revision 3: a symptom of the patient now. A question about a symptom in general
        # (发烧的原因有哪些: the hypothetical after-cue) is none; a symptom told as an event under a
        # question's cue is the child's (会不会是指甲弄出血了: 了), and so is one that keeps coming back
        # (一到傍晚就烧起来), as a question about the child's symptom asks (孩子发烧了能吃鸡蛋吗).
        if m.concept in symptom_concepts and (c == CURRENT or (c == HYPOTHETICAL and told))
    ]
    return flags, list(dict.fromkeys(current))


def halting(
    rules: RedFlagRules, flags: list[Flag], symptoms: list[Flag], confirmed: frozenset[str]
) -> tuple[list[str], list[str]]:
    """P0's halt, decided here alone (SPEC §4.5, §4.7): the distinct terms that halt — a current
    mention of a hard term, a fact's flag when current (尿少 of a graft), any mention or symptom of a
    concept the user confirmed — and the distinct concepts of the current soft mentions not
    confirmed, which ask their severity question. Every step that halts reads the first list."""
    soft = rules.soft_terms
    current: list[str] = []
    asking: list[str] = []
    for f in flags:
        if f.concept in confirmed:
            current.append(f.term)
        elif f.context == CURRENT:
            if f.term in soft and f.fact is None:
                asking.append(f.concept)
            else:
                current.append(f.term)
    halts = list(dict.fromkeys(current))
    if symptoms and confirmed:
        # a confirmed family halts (the user said yes to its question)
        halts += [f.term for f in symptoms if f.concept in confirmed and f.term not in halts]
    return halts, list(dict.fromkeys(asking))


def critical_readings(rules: RedFlagRules, critical: list[Value]) -> list[tuple[int, int, int]]:
    """The analyte values at or above their rule's threshold, unit absent or allowed, as (start,
    end, rule index) of the number: each a mention of its own placed on the number, so each is read
    in its own context (SPEC §4.7 "Every value is read": 血钾以前6.8，今天7.2); a red-flag mention
    reports the rule's name, not the text."""
    found: list[tuple[int, int, int]] = []
    for value in critical:
        rule = rules.critical_values[value.rule]
        if (value.unit is None or value.unit in rule.units) and rule.threshold <= value.value <= rule.plausible_max:
            found.append((value.start, value.end, value.rule))
    return found


def _found(
    rules: RedFlagRules,
    mentions: list[Mention],
    caller: str | None,
    infant: list[Mention],
    values: Values,
    cues: Callable[[], list[Hit]],
    cut: Cut,
) -> list[str]:
    """The red-flag mentions' contexts. The slot reader has already read each temperature reading's
    context: its current temperature is the child's now (a young infant's fever halts), and a reading
    it did not take as now (a past one, a threshold, a condition) is not current whatever the cues
    say (it asks)."""
    found = contexts(rules.context, cut, mentions, caller, cues())
    if infant and values.readings:
        name = rules.infant_fever.name
        for i, m in enumerate(mentions):
            if m.term == name:
                if m.start == values.temperature_at:
                    found[i] = "current"
                elif found[i] == "current":
                    found[i] = "hypothetical"
    return found


def _flags(rules: RedFlagRules, mentions: list[Mention], found: list[str]) -> list[Flag]:
    names = [m.term for m in mentions]
    if rules.together:
        _together(rules, mentions, found, names)
    # The same (concept, term, context) twice is one flag: 抽搐 written 1,000 times is one line.
    return [_as_flag(Flag, key) for key in dict.fromkeys(zip([m.concept for m in mentions], names, found, _NO_FACTS))]


def _uncovered(symptoms: list[Mention], mentions: list[Mention]) -> list[Mention]:
    """The symptom mentions that overlap no red-flag mention (both lists sorted, neither overlapping
    itself): one pointer walks the red flags."""
    if not mentions:
        return symptoms
    kept: list[Mention] = []
    j = 0
    for m in symptoms:
        while j < len(mentions) and mentions[j].end <= m.start:
            j += 1
        if j < len(mentions) and mentions[j].start < m.end:
            continue
        kept.append(m)
    return kept


def _together(rules: RedFlagRules, mentions: list[Mention], found: list[str], names: list[str]) -> None:
    """Current soft mentions of one concept that cover every facet of one of its ``together``
    rules take the rule's name (a hard one): 精神不好，总想睡觉 halts. A walk over the mentions,
    never over the text."""
    for concept, rules_of in rules.together.items():
        mine = [i for i, m in enumerate(mentions) if m.concept == concept and found[i] == "current"]
        if len(mine) < 2:
            continue
        for name, facets in rules_of:
            members = [[i for i in mine if names[i] in facet] for facet in facets]
            if all(members):
                for group in members:
                    for i in group:
                        names[i] = name


def _with_their_context_words(rules: RedFlagRules, text: str, mentions: list[Mention]) -> list[Mention]:
    """Mentions of a concept that counts only beside certain words, dropped when the text has none."""
    present: dict[str, bool] = {}
    kept: list[Mention] = []
    for m in mentions:
        needed = rules.only_with.get(m.concept)
        if needed is not None:
            if m.concept not in present:
                present[m.concept] = needed.search(text) is not None
            if not present[m.concept]:
                continue
        kept.append(m)
    return kept


def _terms(p0: list[Hit] | None) -> list[Mention]:
    return [_as_mention(Mention, h) for h in p0 if h.payload is not None] if p0 else []


def _patterns(rules: RedFlagRules, text: str, p0: list[Hit] | None) -> list[Mention]:
    """The named patterns' matches; none inside a safe phrase (the view's p0 hits with no concept)."""
    mentions: list[Mention] = []
    prefilter = rules.pattern_prefilter
    if prefilter is None:
        return mentions
    starts = rules.pattern_starts
    safe = [h for h in p0 if h.payload is None] if p0 else []
    n = len(safe)
    j = 0  # safe phrases are in text order and none contains another: one pointer walks them
    for candidate in prefilter.finditer(text):
        position = candidate.start()
        # the patterns that open with the two characters here, else with the first one alone
        tried = starts.get(text[position : position + 2]) or starts[text[position]]
        while j < n and safe[j].end <= position:
            j += 1
        for pattern, name, concept in tried:
            m = pattern.match(text, position)
            if m is None or (j < n and safe[j].start <= position and m.end() <= safe[j].end):
                continue  # no match, or inside a safe phrase
            mentions.append(Mention(position, m.end(), name, concept))
    return mentions


def _squashed(rules: RedFlagRules, v: TextViews, squashed: Hits) -> list[Mention]:
    """The squashed view's mentions, placed in the text (one the text view has too is dropped by
    ``_longest``)."""
    found = _terms(squashed.get("p0")) + _patterns(rules, v.squashed, squashed.get("p0"))
    if not found:
        return []
    offsets = kept_offsets(v.text)
    return [Mention(offsets[m.start], offsets[m.end - 1] + 1, m.term, m.concept) for m in found]


def _longest(mentions: list[Mention], soft: frozenset[str]) -> list[Mention]:
    """Leftmost-longest over mentions sorted by (start, end), hard before soft (SPEC §4.7 revision
    3): a mention that holds another is the mention (半天没尿 holds 没尿: a word that hides a shorter
    one holds it); where a soft and a hard mention only overlap, the hard one is (有点吐血: the soft
    有点吐 gives way to the hard 吐血, so a strong sign keeps its strength under a hedge); else a
    mention that starts inside the kept one before it is dropped."""
    kept: list[Mention] = []
    for m in mentions:
        if kept and m.start < kept[-1].end:
            last = kept[-1]
            if m.start == last.start or m.end <= last.end:  # one holds the other: the longer acts
                if m.end > last.end:
                    kept[-1] = m
            elif last.term in soft and m.term not in soft:  # they overlap: the hard one acts
                kept[-1] = m
            continue
        kept.append(m)
    return kept


# A temperature reading's number, where the slot reader's reading starts: the mention's span.
_READING = re.compile(f"[0-9.]+|[{numerals.CHARS}]+")


def _infant_fever(rules: RedFlagRules, text: str, values: Values) -> list[Mention]:
    """A young infant's fever, from the slot readers alone (SPEC §4.7 revision 3): an age under the
    limit — the age read, or an upper bound of it (不到3个月, 快三个月, 新生儿) — with a temperature
    reading at or above the threshold, whatever word introduced it or none (one mention per
    reading: the child's current one halts, a past or hypothetical one asks); or, when the text
    gives no reading at all, every fever word (新生儿发烧, 摸着很烫: any fever under three months is a
    red flag, NICE NG143)."""
    fever = rules.infant_fever
    if values.readings:
        hot = [at for at, value in values.readings.items() if fever.min_celsius <= value <= fever.max_celsius]
        if not hot or not _young(fever.max_age_days, values):
            return []
        return [Mention(at, _reading_end(text, at), fever.name, fever.concept) for at in sorted(hot)]
    words = [Mention(m.start(), m.end(), fever.name, fever.concept) for m in fever.fever_word.finditer(text)]
    # The age last: its upper bounds take a pass of their own, and most texts have no fever word.
    return words if words and _young(fever.max_age_days, values) else []


def _reading_end(text: str, start: int) -> int:
    number = _READING.match(text, start)
    return number.end() if number else start + 1


def _young(days: int, values: Values) -> bool:
    """An age under ``days``, or an upper bound at most that (快三个月 is under three months)."""
    if values.age is not None and values.age * 365 < days:
        return True
    bound = values.age_below()
    return bound is not None and bound <= days


# A pair read as a pressure: the first value the larger, the second at least this (a pressure's
# diastolic value; 10/12, a date, is none).
_PAIR_LOWEST = 30


def _blood_pressure(bp: BloodPressure, text: str, worded: bool) -> list[Mention]:
    """Every blood-pressure reading at or above the policy's limits (a child's when the text names
    a child or an age under 18), each a mention placed on its values (SPEC §3.5 revision 2): after
    a pressure word (血压175/115, 高压一百八), or written as a pair anywhere (量了170/110的血压, 180/120
    mmHg) — a pair is a reading only as a pressure writes one: the first value the larger, each in
    a pressure's range. ``worded``: the text holds a clue of a pressure word (``bp.clues``)."""
    found: list[Mention] = []
    limits: tuple[int, int] | None = None  # read once, at the first reading
    read: set[int] = set()  # where the values of the readings after a word start
    if worded:
        for m in bp.reading.finditer(text):
            read.add(m.start("s"))
            if limits is None:
                limits = bp.child_limits if bp.child.search(text) else bp.limits
            first = numerals.parse_number(m.group("s"))
            second = numerals.parse_number(m.group("d")) if m.group("d") else None
            if first is None:
                continue  # 三四: a range, no reading
            if second is not None:
                high = first >= limits[0] or second >= limits[1]
            elif m.group("w") in bp.diastolic_words:
                high = first >= limits[1]
            else:
                high = first >= limits[0]
            if high and first <= 300:
                found.append(Mention(m.start("s"), m.end(), bp.name, bp.concept))
    if "/" in text:
        for m in bp.pair.finditer(text):
            first, second = int(m.group("s")), int(m.group("d"))
            if m.start("s") in read or not _PAIR_LOWEST <= second < first <= 300:
                continue
            if limits is None:
                limits = bp.child_limits if bp.child.search(text) else bp.limits
            if first >= limits[0] or second >= limits[1]:
                found.append(Mention(m.start("s"), m.end(), bp.name, bp.concept))
        found.sort()
    return found
