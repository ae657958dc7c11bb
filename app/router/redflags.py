"""Red-flag mentions of one text and their contexts (SPEC §3.5, §4.7).

A mention is a term of a concept (the Aho-Corasick scan's "p0" group, safe phrases already hiding
the terms inside them), a named pattern, a critical value or an infant's fever. Mentions that only
the squashed view reveals (抽-搐, 无 尿) are mapped back to their place in the text, so every
mention's context is read on the same text. ``context.contexts`` then gives each one its context.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from . import numerals
from .context import Mention, contexts
from .lexicon import Hit, Hits
from .redflag_policy import BloodPressure, InfantFever, RedFlagRules
from .text import TextViews, kept_offsets


# tuple.__new__ builds a NamedTuple in C (its own __new__ is Python); a Hit (start, end, term,
# concept) has a Mention's very layout.
_as_mention = tuple.__new__


class Flag(NamedTuple):
    concept: str
    term: str  # a policy term or pattern / rule name, never the request's own text
    context: str
    fact: str | None = None  # the patient fact that made the flag (SPEC §4.5 revision 3, ``facts``)


def red_flags(
    rules: RedFlagRules,
    v: TextViews,
    hits: Hits,
    squashed: Hits,
    critical: list[tuple[int, int, int]],
    caller: str | None,
    age: Callable[[], float | None],
) -> list[Flag]:
    """Every mention in text order with its context; ``critical`` holds the critical values found
    on the text view as (start, end, rule index); ``age`` reads the child's age in years (the slot
    readers', asked only when an infant's fever may be there)."""
    text = v.text
    terms = _terms(hits.get("p0"))
    if squashed is hits:
        extra = _patterns(rules, text, hits.get("p0"))
    else:
        # The squashed view finds every term and pattern the text view has, and those that fillers
        # split (抽-搐): one pattern scan there, its mentions placed back in the text. The text
        # view's terms are kept too (a term may span a filler the policy wrote into it, "hun mi").
        extra = _squashed(rules, v, squashed)
    for start, end, index in critical:
        rule = rules.critical_values[index]
        extra.append(_as_mention(Mention, (start, end, rule.name, rule.concept)))
    if "度" in text or "烧" in text or "热" in text or "烫" in text or "温" in text or "℃" in text or "°" in text:
        extra += _infant_fever(rules, text, age)
    if rules.blood_pressure is not None and ("压" in text or "bp" in text):
        extra += _blood_pressure(rules.blood_pressure, text)
    if extra:
        # A few sorted runs (terms, patterns, critical values, the squashed view): Timsort merges
        # them in linear time, comparing the tuples in C. Where two overlap, the earlier wins, then
        # the longer.
        mentions = _longest(sorted(terms + extra))
    elif terms:
        # One group of the scan: in text order, none containing another, but two may overlap
        # (咳粉红色泡沫|粉红色泡沫痰): the leftmost acts.
        mentions = _longest(terms)
    else:
        return []
    if rules.only_with:
        mentions = _with_their_context_words(rules, text, mentions)
    found = contexts(rules.context, text, mentions, caller)
    names = [m.term for m in mentions]
    if rules.together:
        _together(rules, mentions, found, names)
    # The same (concept, term, context) twice is one flag: 抽搐 written 1,000 times is one line.
    return [Flag(*key) for key in dict.fromkeys(zip([m.concept for m in mentions], names, found))]


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
    j = 0  # safe phrases are in text order and none contains another: one pointer walks them
    for candidate in prefilter.finditer(text):
        position = candidate.start()
        # the patterns that open with the two characters here, else with the first one alone
        tried = starts.get(text[position : position + 2]) or starts[candidate.group()]
        while j < len(safe) and safe[j].end <= position:
            j += 1
        for pattern, name, concept in tried:
            m = pattern.match(text, position)
            if m is None or (j < len(safe) and safe[j].start <= position and m.end() <= safe[j].end):
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


def _longest(mentions: list[Mention]) -> list[Mention]:
    """Leftmost-longest over mentions sorted by (start, end): at one start the longer replaces the
    shorter; a mention that starts inside the kept one before it is dropped."""
    kept: list[Mention] = []
    for m in mentions:
        if kept and m.start < kept[-1].end:
            if m.start == kept[-1].start and m.end > kept[-1].end:
                kept[-1] = m
            continue
        kept.append(m)
    return kept


def _infant_fever(rules: RedFlagRules, text: str, age: Callable[[], float | None]) -> list[Mention]:
    """In a text that states an age under the limit: every temperature at or above the threshold,
    each a mention of its own (a past reading does not hide today's), or — when the text gives no
    temperature at all — every fever word (新生儿发烧, 摸着很烫: any fever under three months is a
    red flag, NICE NG143)."""
    fever = rules.infant_fever
    dated = _dated(text)
    # A text without an age under a year's characters is young only by a newborn word: looked for once.
    newborn = not dated and fever.newborn.search(text) is not None
    if not dated and not newborn:
        return []  # neither a newborn word nor an age under a year (``_young_infant``): no reading is read
    hot: list[Mention] = []
    any_reading = False
    for m in fever.temperature.finditer(text):
        value = numerals.parse_number(m.group("t"))
        if value is None:
            continue
        if m.group("tenth"):
            value += (numerals.parse_number(m.group("tenth")) or 0) / 10
        any_reading = any_reading or 35 <= value <= fever.max_celsius
        if fever.min_celsius <= value <= fever.max_celsius:
            hot.append(Mention(m.start("t"), m.end(), fever.name, fever.concept))
    if not hot and not any_reading:
        hot = [Mention(m.start(), m.end(), fever.name, fever.concept) for m in fever.fever_word.finditer(text)]
    # The age last: its pattern is the slowest, and most texts have no hot reading or fever word.
    return hot if hot and (newborn or _young_infant(fever, text, age)) else []


def _young_infant(fever: InfantFever, text: str, age: Callable[[], float | None]) -> bool:
    """In a text with an age's characters (``_dated``): a newborn word (新生儿, 未满月, 刚出生), or an
    age under the limit as the slot readers read it (出生10天, 宝宝2个月, 俩个月, 还有十天三个月了; not
    一周两个月 = 1 year 2 months)."""
    if fever.newborn.search(text):
        return True
    years = age()
    return years is not None and years * 365 < fever.max_age_days


def _dated(text: str) -> bool:
    """Whether the text holds a character that every age under a year is written with."""
    return "天" in text or "月" in text or "周" in text or "星" in text or "礼" in text


def _blood_pressure(bp: BloodPressure, text: str) -> list[Mention]:
    """Every blood-pressure reading at or above the policy's limits (a child's when the text names
    a child or an age under 18), each a mention placed on its values (SPEC §3.5 revision 2)."""
    found: list[Mention] = []
    limits: tuple[int, int] | None = None
    for m in bp.reading.finditer(text):
        if limits is None:
            limits = bp.child_limits if bp.child.search(text) else bp.limits
        first = int(m.group("s"))
        second = m.group("d")
        if second is not None:
            high = first >= limits[0] or int(second) >= limits[1]
        elif m.group("w") in bp.diastolic_words:
            high = first >= limits[1]
        else:
            high = first >= limits[0]
        if high and first <= 300:
            found.append(Mention(m.start("s"), m.end(), bp.name, bp.concept))
    return found
