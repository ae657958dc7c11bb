"""Red-flag mentions of one text and their contexts (SPEC §3.5, §4.7).

A mention is a term of a concept (the Aho-Corasick scan's "p0" group, safe phrases already hiding
the terms inside them), a named pattern, a critical value or an infant's fever. Mentions that only
the squashed view reveals (抽-搐, 无 尿) are mapped back to their place in the text, so every
mention's context is read on the same text. ``context.contexts`` then gives each one its context.
"""

from __future__ import annotations

from typing import NamedTuple

from . import numerals
from .context import Mention, contexts
from .lexicon import Hit, Hits
from .redflag_policy import RedFlagRules
from .text import TextViews, kept_offsets


# tuple.__new__ builds a NamedTuple in C (its own __new__ is Python); a Hit (start, end, term,
# concept) has a Mention's very layout.
_as_mention = tuple.__new__


class Flag(NamedTuple):
    concept: str
    term: str  # a policy term or pattern / rule name, never the request's own text
    context: str


def red_flags(
    rules: RedFlagRules,
    v: TextViews,
    hits: Hits,
    squashed: Hits,
    critical: list[tuple[int, int, int]],
    caller: str | None,
) -> list[Flag]:
    """Every mention in text order with its context; ``critical`` holds the critical values found
    on the text view as (start, end, rule index)."""
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
    fever = _infant_fever(rules, text)
    if fever is not None:
        extra.append(fever)
    if extra:
        # A few sorted runs (terms, patterns, critical values, the squashed view): Timsort merges
        # them in linear time, comparing the tuples in C. Where two overlap, the earlier wins, then
        # the longer.
        mentions = _longest(sorted(terms + extra))
    elif terms:
        mentions = terms  # one group of the scan: in text order, none overlapping another
    else:
        return []
    found = contexts(rules.context, text, mentions, caller)
    # The same (concept, term, context) twice is one flag: 抽搐 written 1,000 times is one line.
    return [Flag(*key) for key in dict.fromkeys(zip([m.concept for m in mentions], [m.term for m in mentions], found))]


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
        while j < len(safe) and safe[j].end <= position:
            j += 1
        for pattern, name, concept in starts[candidate.group()]:
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


def _infant_fever(rules: RedFlagRules, text: str) -> Mention | None:
    """A temperature at or above the threshold in a text that states an age under the limit."""
    fever = rules.infant_fever
    if "度" not in text and "℃" not in text and "°" not in text:
        return None
    hot = None
    for m in fever.temperature.finditer(text):
        value = numerals.parse_number(m.group("t"))
        if value is not None and m.group("tenth"):
            tenth = numerals.parse_number(m.group("tenth"))
            value += (tenth or 0) / 10
        if value is not None and fever.min_celsius <= value <= fever.max_celsius:
            hot = m
            break
    if hot is None:
        return None
    for m in fever.age.finditer(text):
        if m.group("newborn"):
            return Mention(hot.start(), hot.end(), fever.name, fever.concept)
        days = m.group("d1") or m.group("d2") or m.group("d3")
        months = m.group("m")
        value = numerals.parse_number(days or months or "")
        if value is None:
            continue
        if (value if days else value * 30) < fever.max_age_days:
            return Mention(hot.start(), hot.end(), fever.name, fever.concept)
    return None
