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
    if squashed is hits:
        mentions = _mentions(rules, text, hits.get("p0"))
    else:
        # The squashed view finds every term and pattern the text view has, and those that fillers
        # split (抽-搐): one pattern scan there, its mentions placed back in the text. The text
        # view's terms are kept too (a term may span a filler the policy wrote into it, "hun mi").
        mentions = [Mention(h.start, h.end, h.payload, h.term) for h in hits.get("p0") or () if h.payload is not None]
        mentions += _squashed(rules, v, squashed)
    for start, end, index in critical:
        rule = rules.critical_values[index]
        mentions.append(Mention(start, end, rule.concept, rule.name))
    fever = _infant_fever(rules, text)
    if fever is not None:
        mentions.append(fever)
    if not mentions:
        return []
    # A few sorted runs (terms, patterns, critical values, the squashed view): Timsort merges them
    # in linear time. Where two overlap, the earlier wins, then the longer.
    mentions = _longest(sorted(mentions, key=lambda m: (m.start, -m.end)))
    found = contexts(rules.context, text, mentions, caller)
    return [Flag(m.concept, m.term, c) for m, c in zip(mentions, found)]


def _mentions(rules: RedFlagRules, text: str, p0: list[Hit] | None) -> list[Mention]:
    mentions = [Mention(h.start, h.end, h.payload, h.term) for h in p0 if h.payload is not None] if p0 else []
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
            mentions.append(Mention(position, m.end(), concept, name))
    return mentions


def _squashed(rules: RedFlagRules, v: TextViews, squashed: Hits) -> list[Mention]:
    """The squashed view's mentions, placed in the text (one the text view has too is dropped by
    ``_longest``)."""
    found = _mentions(rules, v.squashed, squashed.get("p0"))
    if not found:
        return []
    offsets = kept_offsets(v.text)
    return [Mention(offsets[m.start], offsets[m.end - 1] + 1, m.concept, m.term) for m in found]


def _longest(mentions: list[Mention]) -> list[Mention]:
    """Leftmost-longest: drop a mention that overlaps an earlier (or, at one start, longer) one."""
    kept: list[Mention] = []
    for m in mentions:
        if kept and m.start < kept[-1].end:
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
            return Mention(hot.start(), hot.end(), fever.concept, fever.name)
        days = m.group("d1") or m.group("d2") or m.group("d3")
        months = m.group("m")
        value = numerals.parse_number(days or months or "")
        if value is None:
            continue
        if (value if days else value * 30) < fever.max_age_days:
            return Mention(hot.start(), hot.end(), fever.concept, fever.name)
    return None
